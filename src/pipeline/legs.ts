// The stage that runs a command's legs (`obflow run` and `obflow demo`; docs/pipeline.md "Versions and API families"):
// one leg per API version asked for and, inside it, per API family (src/api-families.ts: accounts, the only row so
// far) — generate when the caller asks, run, save the chained environment per leg — then v3.1 beside v4.0 compared
// once (src/run/reporters/compare-versions.ts), and the verdict (src/pipeline/verdict.ts) returned for the CLI to
// render. The legs' report folders are the run's own: what an earlier run over other legs left there goes first.

import { vrpTypeVersionProblem } from '../generate/vrp-types.js';
import { ObflowError } from '../errors.js';
import { readdir, rmdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { familiesOf, FAMILY_LIST, type ApiFamily } from '../api-families.js';
import { compareOutcomes, OUTCOME_COMPARISONS, type OutcomeComparison } from '../run/reporters/compare-outcomes.js';
import type { RunSummary } from '../run/summary.js';
import type { Overrides } from '../config/overrides.js';
import type { ObflowConfig } from '../config/schema.js';
import type { FapiProfile } from '../fapi-profile.js';
import type { PostmanEnvironment } from '../environment/index.js';
import { apiLabel, API_VERSIONS, type ApiVersion } from '../generate/api-versions.js';
import {
  COMPARED_FAMILY,
  COMPARED_VERSIONS,
  compareVersions,
  legOfRun,
  type VersionComparison,
} from '../run/reporters/compare-versions.js';
import { HTML_REPORT_FILE } from '../run/reporters/html.js';
import { removePreviousReports } from '../run/reporters/index.js';
import type { RunResult } from '../run/result.js';
import { familyEnvironmentStem, readFamilyEnvironment, saveEnvironment } from './environment.js';
import { collectionsDirOf, generateStage } from './generate.js';
import { reportsDir, runStage, type RunStageOptions } from './run.js';
import type { Session } from './session.js';
import { legsVerdict, summaryOf, type LegOutcome, type LegsVerdict } from './verdict.js';
import { legReportsDir, versionSession, type LegAxes } from './versions.js';

/** One leg of the run, before it runs. */
export interface Leg {
  version: ApiVersion;
  family: ApiFamily;
  /** How lines name it (`AIS v4.0`); empty in a run of one leg, whose lines are as they always were. */
  label: string;
  /** The session of the leg: its version, its reports folder. */
  session: Session;
}

/** What the caller shows as each leg goes (the CLI's lines); every member optional. */
export interface LegProgress {
  begin?(leg: Leg): void;
  generated?(leg: Leg, generated: { paths: readonly string[]; written: boolean; dir: string }): void;
  ran?(leg: Leg, result: RunResult): void;
}

export interface LegsStageOptions {
  /** The versions, each a leg (one: the session's own, its reports where they always were). */
  versions: readonly ApiVersion[];
  /** The families inside each version's leg (default: flow.apis, in the table's order). */
  families?: readonly ApiFamily[];
  /** The environment every leg starts from (the demo's, just written); absent: each version's saved one
   *  (src/pipeline/environment.ts readVersionEnvironment). */
  environment?: PostmanEnvironment;
  /** Generate each leg's collections into this output folder before its run (the demo), with these generator options. */
  generate?: { collectionsDir: string; par: boolean; jarm: boolean; fapi: FapiProfile };
  /** The run's own options (reporters, step, progress, …), the same for every leg. */
  run: Omit<RunStageOptions, 'environment' | 'collections' | 'family' | 'keepTransactionBodies' | 'versionPage'>;
  /** flow.allowSkips: false is `--no-skips`. */
  allowSkips?: boolean;
  progress?: LegProgress;
}

/** The versions a command's legs run: `--api-version 3.1,4.0` (several, each a leg), else flow.apiVersion. */
export function legVersions(config: Pick<ObflowConfig, 'flow'>, overrides: Pick<Overrides, 'apiVersions'>): readonly ApiVersion[] {
  const versions =
    overrides.apiVersions !== undefined && overrides.apiVersions.length > 1 ? overrides.apiVersions : [config.flow.apiVersion];
  // A VRPType a version's files do not define (cVRP on v3.1): the config's own check covers flow.apiVersion alone.
  const problem = config.flow.apis.includes('vrp') ? vrpTypeVersionProblem(config.flow.vrp.type, versions) : undefined;
  if (problem !== undefined)
    throw new ObflowError('ERR_CONFIG_INVALID', `flow.vrp.type ${problem.message.replace(/: set .*$/, '')}`, {
      hint: `Run the ${config.flow.vrp.type} mandate with --api-version 4.0, or set flow.vrp.type to "Sweeping" or "Other" for v3.1.`,
    });
  return versions;
}

/** The legs of a run, in order: versions as asked, families inside each. */
export function planLegs(session: Session, versions: readonly ApiVersion[], families: readonly ApiFamily[]): Leg[] {
  const several: LegAxes = { versions: versions.length > 1, families: families.length > 1 };
  const root = reportsDir(session.config);
  return versions.flatMap((version) =>
    families.map((family) => ({
      version,
      family,
      label: several.versions || several.families ? apiLabel(family, version) : '',
      session:
        several.versions || several.families
          ? versionSession(session, version, legReportsDir(root, { version, family }, several))
          : session,
    })),
  );
}

export async function runLegsStage(session: Session, options: LegsStageOptions): Promise<LegsVerdict> {
  const listed = options.families ?? familiesOf(session.config.flow.apis);
  // `obflow run <step>`: the families that have the step (a step none has is the first leg's ERR_STEP_UNKNOWN).
  const select = options.run.select ?? 'all';
  const having = listed.filter((family) => select === 'all' || family.steps.includes(select));
  const families = having.length > 0 ? having : listed;
  const legs = planLegs(session, options.versions, families);
  const compared = comparedLegs(legs);
  const severalVersions = options.versions.length > 1;
  let comparison: VersionComparison | undefined;
  const outcomes: LegOutcome[] = [];
  for (const leg of legs) {
    options.progress?.begin?.(leg);
    const collections = options.generate === undefined ? undefined : await generateLeg(leg, options.generate, options.progress);
    // The leg's chained environment: the one given, else the family's or the version's own when an earlier run left
    // one, else the environment stage's; a run over several versions saves each version's to its own file (a later
    // `obflow run <step> --api-version 4.0` continues v4.0's consent), another family than accounts to its own.
    const saved =
      options.environment !== undefined
        ? { environment: options.environment, stem: undefined }
        : await readFamilyEnvironment(session.config, session.target, leg.version, leg.family, severalVersions);
    // The other compared leg, when this leg is one of the two compared.
    const other = compared?.includes(leg) === true ? compared.find((candidate) => candidate !== leg) : undefined;
    const earlier = other === undefined ? undefined : outcomes.find((outcome) => outcome.version === other.version);
    // The later leg of a money family compared on both versions (OUTCOME_COMPARISONS: the payment, the VRP mandate): its
    // page has the two outcomes side by side and links the earlier leg's.
    const earlierSame =
      OUTCOME_COMPARISONS[leg.family.name] === undefined ? undefined : outcomes.find((outcome) => outcome.family === leg.family);
    const earlierSameLeg = legs.find((candidate) => candidate.family === leg.family && candidate.version === earlierSame?.version);
    const result = await runStage(leg.session, {
      ...options.run,
      environment: saved.environment,
      family: leg.family,
      // Before the first leg's run begins (its checks passed): the pages of legs this run does not have go.
      ...(outcomes.length === 0 ? { beforeRun: () => removeOtherLegsReports(session, legs, families) } : {}),
      ...(collections !== undefined ? { collections } : {}),
      ...(earlierSame !== undefined && earlierSameLeg !== undefined
        ? {
            versionPage: {
              outcomeComparison: (own: RunResult) => {
                const mine = { version: leg.version, family: leg.family, summary: summaryOf(own) };
                const compared = outcomesOf(leg.family, [earlierSame, mine]);
                if (compared === undefined) return undefined;
                const other = { version: earlierSame.version, href: pageOf(leg, earlierSameLeg, '') };
                return { ...compared, other };
              },
            },
          }
        : {}),
      ...(other !== undefined
        ? {
            // Both legs add up their transactions; the later one's page holds the comparison, the earlier one's links it.
            keepTransactionBodies: true,
            versionPage:
              earlier === undefined
                ? { comparedIn: { version: other.version, href: pageOf(leg, other, '#versions') } }
                : {
                    comparison: (own: RunResult) => {
                      comparison ??= compare(earlier, { version: leg.version, result: own });
                      return { ...comparison, other: { version: other.version, href: pageOf(leg, other, '') } };
                    },
                  },
          }
        : {}),
    });
    await saveEnvironment(
      leg.session,
      result.environment,
      severalVersions || leg.family.folder !== ''
        ? familyEnvironmentStem(session.target, leg.version, leg.family, severalVersions)
        : saved.stem,
    );
    options.progress?.ran?.(leg, result);
    outcomes.push({ version: leg.version, family: leg.family, label: leg.label, result, summary: summaryOf(result) });
  }
  // No page asked for it (no html reporter): compared here, once all the same.
  const pair = compared?.map((leg) => outcomes.find((outcome) => outcome.version === leg.version));
  if (comparison === undefined && pair?.[0] !== undefined && pair[1] !== undefined) comparison = compare(pair[0], pair[1]);
  return legsVerdict(outcomes, { comparison, outcomeComparisons: outcomesCompared(outcomes), allowSkips: options.allowSkips });
}

/** Each money family's legs of the two compared versions side by side (the same payment or mandate asked on both;
 *  OUTCOME_COMPARISONS has a row per family compared); none for a family the run lacks one of them of. */
function outcomesCompared(outcomes: readonly { version: ApiVersion; family: ApiFamily; summary: RunSummary }[]): OutcomeComparison[] {
  return familiesOf(outcomes.map((outcome) => outcome.family.name)).flatMap((family) => outcomesOf(family, outcomes) ?? []);
}

/** A family's outcomes on COMPARED_VERSIONS, compared in the comparison's column order; none when one is missing. */
function outcomesOf(
  family: ApiFamily,
  outcomes: readonly { version: ApiVersion; family: ApiFamily; summary: RunSummary }[],
): OutcomeComparison | undefined {
  const of = (version: ApiVersion) => outcomes.find((outcome) => outcome.version === version && outcome.family === family);
  const first = of(COMPARED_VERSIONS.first);
  const second = of(COMPARED_VERSIONS.second);
  if (first === undefined || second === undefined) return undefined;
  return compareOutcomes(family.name, first.summary, second.summary);
}

/** The two legs compared (COMPARED_VERSIONS of COMPARED_FAMILY: the comparison reads accounts), in run order; none
 *  when the run lacks one of them. */
function comparedLegs(legs: readonly Leg[]): [Leg, Leg] | undefined {
  const of = (version: ApiVersion) => legs.find((leg) => leg.version === version && leg.family.name === COMPARED_FAMILY);
  const first = of(COMPARED_VERSIONS.first);
  const second = of(COMPARED_VERSIONS.second);
  if (first === undefined || second === undefined) return undefined;
  return legs.indexOf(first) < legs.indexOf(second) ? [first, second] : [second, first];
}

/** The comparison of two legs' runs, in the comparison's own column order. */
function compare(a: { version: ApiVersion; result: RunResult }, b: { version: ApiVersion; result: RunResult }): VersionComparison {
  const [first, second] = a.version === COMPARED_VERSIONS.first ? [a, b] : [b, a];
  return compareVersions(legOfRun(first.version, first.result), legOfRun(second.version, second.result));
}

/** The address of another leg's page from this leg's (both under the run's reports folder): `../v3.1/report.html`. */
function pageOf(from: Leg, to: Leg, anchor: string): string {
  const path = relative(reportsDir(from.session.config), join(reportsDir(to.session.config), HTML_REPORT_FILE));
  return `${path.split(sep).join('/')}${anchor}`;
}

async function generateLeg(
  leg: Leg,
  { collectionsDir, ...generator }: NonNullable<LegsStageOptions['generate']>,
  progress: LegProgress | undefined,
): Promise<Record<string, object>> {
  const generated = await generateStage(collectionsDir, {
    version: leg.version,
    family: leg.family,
    ...generator,
    vrp: leg.session.config.flow.vrp,
  });
  progress?.generated?.(leg, { ...generated, dir: collectionsDirOf(collectionsDir, leg.version, leg.family) });
  return generated.collections;
}

/**
 * A report folder holds the last run's pages only: before the legs run, obflow's own report files in the folders of
 * legs this run does not have (a run over one version after one over two: `<reports>/v3.1/`, `<reports>/v4.0/`; the
 * other way round: `<reports>/` itself) are removed, and such a sub-folder with it once it is empty — never a file or
 * folder obflow did not write (src/run/reporters/index.ts removePreviousReports names them).
 */
async function removeOtherLegsReports(session: Session, legs: readonly Leg[], families: readonly ApiFamily[]): Promise<void> {
  const root = reportsDir(session.config);
  const ours = new Set(legs.map((leg) => reportsDir(leg.session.config)));
  const axes: LegAxes[] = [false, true].flatMap((versions) =>
    (FAMILY_LIST.length > 1 ? [false, true] : [false]).map((several) => ({ versions, families: several })),
  );
  const candidates = new Set(
    axes.flatMap((several) =>
      API_VERSIONS.flatMap((version) => FAMILY_LIST.map((family) => legReportsDir(root, { version, family }, several))),
    ),
  );
  const steps = [...new Set(families.concat(FAMILY_LIST).flatMap((family) => family.steps))];
  for (const dir of [...candidates].filter((candidate) => !ours.has(candidate))) {
    // Only a folder (absent, or a file where a folder would be: not obflow's to touch; the run says so when it writes).
    if ((await stat(dir).catch(() => undefined))?.isDirectory() !== true) continue;
    await removePreviousReports(dir, steps);
    if (dir !== root && (await readdir(dir)).length === 0) await rmdir(dir);
  }
}
