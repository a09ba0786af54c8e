// `obflow workspace`, a stage beside the others (src/pipeline/register.ts, environment.ts, generate.ts, run.ts): the one
// place that reads the state for it: the registration, the saved environment, the target and the certificate material
// of a session (so moving the state folder's layout touches only this file), then an optional run for the report, then
// build (pure) and write (whole or not at all), src/workspace/.

import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { familiesOf } from '../api-families.js';
import { ObflowError } from '../errors.js';
import { buildCollections, loadTemplates, stepFileName } from '../generate/index.js';
import { flowFileName } from '../generate/files.js';
import { obflowVersion, reportModuleDir } from '../run/reporters/page.js';
import { HTML_REPORT_FILE } from '../run/reporters/html.js';
import type { RunResult } from '../run/result.js';
import { stateLayout } from '../state/layout.js';
import { buildWorkspace, COPIED_FILES, type WorkspaceFile } from '../workspace/build.js';
import { writeWorkspace } from '../workspace/write.js';
import { parForGeneration, savedDiscoveryRequiresPar } from './generate.js';
import type { Session } from './session.js';
import { environmentStem, readEnvironmentFile } from './environment.js';
import { storedRegistration } from './register.js';
import { runStage } from './run.js';
import { checkEnvironmentTarget } from './run-checks.js';
import { checkSavedSettings } from './saved-settings.js';
import { sandboxPsuUser } from './target.js';

export interface WorkspaceOptions {
  /** The workspace folder; default `<stateDir>/workspace/<environment stem>` (src/state/layout.ts). */
  out?: string;
  zip?: string;
  includeSecrets: boolean;
  force: boolean;
  /** Run the flow first and put its HTML report in reports/ (default true). */
  run: boolean;
  now: Date;
  /** The folder the guide's paths are relative to: the command line's working folder (the core reads no working folder of its own). */
  cwd: string;
}

export interface WorkspaceOutcome {
  dir?: string;
  zip?: string;
  files: readonly WorkspaceFile[];
  /** The run that made the report (its failure is reported after the workspace is written). */
  run?: RunResult;
}

function workspaceTemplates(): { guide: string; copied: Record<string, string> } {
  const dir = reportModuleDir();
  return {
    guide: readFileSync(join(dir, 'index.html.hbs'), 'utf8'),
    copied: Object.fromEntries(COPIED_FILES.map((name) => [name, readFileSync(join(dir, name), 'utf8')])),
  };
}

export async function makeWorkspace(session: Session, options: WorkspaceOptions): Promise<WorkspaceOutcome> {
  // A workspace holds one family's flow (its guide, run and report are of one journey): several are refused, not
  // narrowed to the first.
  const families = familiesOf(session.config.flow.apis);
  const family = families[0];
  if (family === undefined || families.length !== 1) {
    throw new ObflowError(
      'ERR_USAGE',
      `a workspace holds one API family's flow, but flow.apis names ${session.config.flow.apis.join(', ')}`,
      {
        hint: 'Make one workspace per family: `obflow workspace --apis payments --out <folder>`, then `--apis funds --out <another>`.',
      },
    );
  }
  // Missing registration → ERR_NOT_REGISTERED, missing environment → ERR_FILE_MISSING: before anything is written.
  const registration = await storedRegistration(session);
  const environment = await readEnvironmentFile(session.config, session.target);
  // What the workspace ships must be what the config names (with --no-run no run checks it): ERR_ENVIRONMENT_STALE.
  checkEnvironmentTarget(environment, session.target, registration);
  await checkSavedSettings(session, registration, environment);
  // The same collections `obflow generate` writes for this config: its version, PAR and JARM (src/pipeline/generate.ts).
  const collections = buildCollections({
    templates: loadTemplates(),
    apiVersion: session.config.flow.apiVersion,
    family,
    ...(parForGeneration(session.config, await savedDiscoveryRequiresPar(session.config)) ? { par: true } : {}),
    ...(session.config.flow.jarm ? { jarm: true } : {}),
    fapi: session.config.flow.fapi,
    // A VRP workspace carries the mandate of flow.vrp (its consent and walk), as `obflow generate` does.
    vrp: session.config.flow.vrp,
  });
  let run: RunResult | undefined;
  let reportHtml: string | undefined;
  if (options.run) {
    const byName = new Map(collections.map((file) => [file.fileName, file.json]));
    const stepCollections = Object.fromEntries(
      family.steps.flatMap((name) => {
        const json = byName.get(stepFileName(name));
        return json === undefined ? [] : [[name, JSON.parse(json) as object]];
      }),
    );
    // Its own reports folder: the run must not replace a report.html that `obflow run` wrote.
    const state = stateLayout(session.config.stateDir);
    const reports = state.workspaceReport;
    const reporting: Session = { ...session, config: { ...session.config, output: { ...session.config.output, reports } } };
    // The steps the workspace's own run.mjs runs (the collections'), so the report it ships counts as its runs will.
    run = await runStage(reporting, {
      environment,
      collections: stepCollections,
      reporters: ['html'],
      progress: () => undefined,
      collectionStepsOnly: true,
      family,
    });
    reportHtml = readFileSync(join(reports, HTML_REPORT_FILE), 'utf8');
  }
  const here = (path: string) => relative(options.cwd, path) || '.';
  const transportKey = 'key' in session.identity.transport ? session.identity.transport.key : session.identity.transport.pfx;
  const files = buildWorkspace({
    target: session.target,
    environment,
    collections,
    flowCollection: flowFileName(family),
    apiVersion: session.config.flow.apiVersion,
    family,
    transport: { certPem: session.transport.certPem, chainPem: session.transport.chainPem, keyPem: session.transport.keyPem },
    serverCaPem: session.target.serverCaPem,
    includeSecrets: options.includeSecrets,
    ...(session.target.name === 'sandbox' ? { psu: sandboxPsuUser(session.config) } : {}),
    clientId: registration.client_id,
    registrationFile: here(
      stateLayout(session.config.stateDir).registration({
        softwareId: registration.software_id,
        target: registration.target,
        profile: registration.profile,
      }),
    ),
    keyFiles: { transport: here(transportKey), signing: here(session.identity.signing.key) },
    ...(run !== undefined
      ? {
          lastRun: {
            passed: run.passed,
            checks: run.steps.reduce((sum, step) => sum + step.assertions.total, 0),
            failedChecks: run.steps.reduce((sum, step) => sum + step.assertions.failed, 0),
          },
        }
      : {}),
    ...(reportHtml !== undefined ? { reportHtml } : {}),
    obflowVersion: obflowVersion(),
    builtAt: options.now.toISOString(),
    templates: workspaceTemplates(),
  });
  const written = await writeWorkspace(files, {
    dir: options.out ?? stateLayout(session.config.stateDir).workspace(environmentStem(session.target)),
    ...(options.zip !== undefined ? { zipPath: options.zip } : {}),
    secret: options.includeSecrets,
    force: options.force,
  });
  return { ...written, files, ...(run !== undefined ? { run } : {}) };
}
