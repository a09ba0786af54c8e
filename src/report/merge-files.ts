// `obflow report merge`, the edges: find the legs under the paths given (a leg is a folder holding obflow-run.json,
// obflow-leg.json or both: docs/ci.md "One page for every leg"), read and check them, read the previous summary, and
// write the merged page, JUnit file, summary and Markdown into --out with a copy of each leg's own report beside them
// (so the folder is one artefact whose links work). The merging itself is pure (merge.ts, merge-render.ts).

import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import type { ZodType } from 'zod';
import { z } from '../config/zod.js';
import { ObflowError } from '../errors.js';
import { ensureDirectory, writeFileAtomic } from '../fs.js';
import { JSON_REPORT_FILE, type JsonReport } from '../run/reporters/json.js';
import { HTML_REPORT_FILE } from '../run/reporters/html.js';
import { compareSummaries, mergeLegs, parseSlowerThreshold, type LegInput, type LegStatus, type MergedSummary } from './merge.js';
import { mergedJunit, mergedMarkdown, renderMergedPage } from './merge-render.js';

/** What a leg's CI job writes when obflow ends (examples/ci/: the script's EXIT trap). */
export const LEG_STATUS_FILE = 'obflow-leg.json';

/** The files `report merge` writes into --out. */
export const MERGED_FILES = {
  page: 'index.html',
  summary: 'obflow-merged.json',
  junit: 'obflow-merged.xml',
  markdown: 'obflow-merged.md',
  legs: 'legs',
} as const;

const assertionSchema = z.object({ name: z.string(), status: z.enum(['passed', 'failed', 'skipped']), message: z.string().optional() });
const runReportSchema = z.object({
  version: z.literal(1),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  target: z
    .object({
      name: z.string(),
      profile: z.string().optional(),
      consent: z.string().optional(),
      apiVersion: z.string().optional(),
      families: z.array(z.string()).optional(),
      fapi: z.string().optional(),
    })
    .optional(),
  passed: z.boolean().optional(),
  failure: z.object({ step: z.string(), sentence: z.string(), hint: z.string() }).optional(),
  steps: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(['collection', 'local']),
      status: z.enum(['passed', 'failed', 'skipped', 'not-reached']).optional(),
      skipReason: z.string().optional(),
      startedAt: z.string().optional(),
      finishedAt: z.string().optional(),
      passed: z.boolean().optional(),
      requests: z.array(
        z.object({
          item: z.string(),
          method: z.string(),
          failure: z.object({ message: z.string() }).optional(),
          assertions: z.array(assertionSchema),
        }),
      ),
      preRequestAssertions: z.array(assertionSchema.extend({ item: z.string() })),
      scriptErrors: z.array(z.object({ item: z.string(), listen: z.string(), name: z.string(), message: z.string() })),
    }),
  ),
  // What the leg paid and checked (json.ts: the payments and funds families), ids and amounts only.
  payment: z
    .object({
      consentId: z.string().optional(),
      consentStatus: z.string().optional(),
      paymentId: z.string().optional(),
      status: z.string().optional(),
      amount: z.string().optional(),
      currency: z.string().optional(),
      creditor: z.string().optional(),
      reference: z.string().optional(),
      fundsAvailable: z.boolean().optional(),
      signatures: z.object({ signed: z.number(), verified: z.number() }).optional(),
    })
    .optional(),
  funds: z
    .object({
      consentId: z.string().optional(),
      consentStatus: z.string().optional(),
      checks: z.array(z.object({ amount: z.string(), currency: z.string(), available: z.boolean() })),
    })
    .optional(),
  // The VRP mandate (json.ts: the vrp family): each limit, what the leg used of it, the payments refused or made past it.
  vrp: z
    .object({
      consentId: z.string().optional(),
      consentStatus: z.string().optional(),
      vrpType: z.string().optional(),
      made: z.number(),
      madeMinor: z.number(),
      refused: z.number(),
      madePastLimit: z.number(),
      limits: z.array(
        z.object({
          member: z.string(),
          label: z.string(),
          usedMinor: z.number(),
          limitMinor: z.number(),
          currency: z.string(),
          refused: z.array(z.object({ amount: z.string(), beforeMinor: z.number(), errorCode: z.string() })),
          madePast: z.array(z.object({ amount: z.string(), beforeMinor: z.number() })),
        }),
      ),
    })
    .optional(),
});
const legStatusSchema = z.object({
  bank: z.string().min(1),
  profile: z.string(),
  consent: z.string(),
  apiVersion: z.string().optional(),
  families: z.array(z.string()).optional(),
  fapi: z.string().optional(),
  exit: z.number().int(),
  stage: z.string().optional(),
  error: z.string().optional(),
  hint: z.string().optional(),
});
const stepSchema = z.object({
  name: z.string(),
  status: z.enum(['passed', 'failed', 'skipped', 'not-reached']),
  ms: z.number().optional(),
  reason: z.string().optional(),
  failures: z.array(z.object({ item: z.string(), check: z.string(), rule: z.string().optional(), message: z.string().optional() })),
});
const summarySchema = z.object({
  version: z.literal(1),
  legs: z.array(
    z.object({
      id: z.string(),
      bank: z.string(),
      profile: z.string(),
      consent: z.string(),
      status: z.enum(['passed', 'failed', 'no-report']),
      steps: z.array(stepSchema),
    }),
  ),
});

async function readJson<T>(path: string, schema: ZodType<T>, what: string): Promise<T> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    throw new ObflowError('ERR_FILE_UNREADABLE', `${path} cannot be read (${(cause as Error).message})`, {
      hint: 'Check the path and its permissions.',
      cause,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new ObflowError('ERR_REPORT_INVALID', `${path} is not JSON (${(cause as Error).message})`, {
      hint: `Give ${what} as obflow wrote it.`,
      cause,
    });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ObflowError(
      'ERR_REPORT_INVALID',
      `${path} is not ${what}: ${issue?.path.join('.') || '(top)'} ${issue?.message ?? ''}`.trim(),
      {
        hint: `Give ${what} as obflow wrote it (docs/ci.md "One page for every leg").`,
      },
    );
  }
  return parsed.data;
}

async function kindOf(path: string): Promise<'file' | 'dir'> {
  try {
    return (await stat(path)).isDirectory() ? 'dir' : 'file';
  } catch (cause) {
    throw new ObflowError('ERR_FILE_MISSING', `${path} does not exist`, {
      hint: 'Name the legs’ report folders or their obflow-run.json files.',
      cause,
    });
  }
}

/** Every obflow-run.json and obflow-leg.json under a folder (sorted: the merge does not depend on the disk's order). */
async function legFilesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && (entry.name === JSON_REPORT_FILE || entry.name === LEG_STATUS_FILE))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

export interface FoundLeg {
  dir: string;
  report?: JsonReport;
  status?: LegStatus;
  /** The leg's own HTML report beside its JSON one, when the leg wrote one. */
  html?: string;
}

/** The legs under the paths (folders searched to any depth; a file is one leg's report or status), grouped by folder. */
export async function findLegs(paths: readonly string[], cwd: string): Promise<FoundLeg[]> {
  const files: string[] = [];
  for (const given of paths) {
    const path = resolve(cwd, given);
    if ((await kindOf(path)) === 'dir') files.push(...(await legFilesUnder(path)));
    else files.push(path);
  }
  const legs = new Map<string, FoundLeg>();
  for (const file of [...new Set(files)]) {
    const dir = dirname(file);
    const leg = legs.get(dir) ?? { dir };
    legs.set(dir, leg);
    if (basename(file) === LEG_STATUS_FILE)
      leg.status = (await readJson(file, legStatusSchema, 'a leg status (obflow-leg.json)')) as LegStatus;
    else leg.report = (await readJson(file, runReportSchema, 'an obflow JSON run report (obflow-run.json)')) as JsonReport;
  }
  if (legs.size === 0) {
    throw new ObflowError('ERR_REPORT_NONE', `no ${JSON_REPORT_FILE} or ${LEG_STATUS_FILE} under ${paths.join(', ')}`, {
      hint: 'Download the legs’ artefacts there; each leg runs `obflow run all --reporters cli,junit,json,html` (docs/ci.md).',
    });
  }
  for (const leg of legs.values()) {
    const html = join(leg.dir, HTML_REPORT_FILE);
    if (leg.report !== undefined && (await stat(html).catch(() => undefined))?.isFile() === true) leg.html = html;
  }
  return [...legs.values()];
}

/** `--previous`: a merged summary, or the --out folder of an earlier merge that holds one. */
export async function readPrevious(path: string): Promise<MergedSummary> {
  const file = (await kindOf(path)) === 'dir' ? join(path, MERGED_FILES.summary) : path;
  return (await readJson(file, summarySchema, 'a merged summary (obflow-merged.json)')) as MergedSummary;
}

/** A folder name for a leg's copy under legs/: its id, readable and safe on every file system. */
const folderOf = (id: string): string =>
  id
    .replace(/ \/ /g, '-')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._-]+/, '') || 'leg';

export interface MergeOptions {
  inputs: readonly string[];
  out: string;
  previous?: string;
  slowerThreshold: string;
  cwd: string;
}

/** Finds, merges, compares and writes; returns the summary (its `passed` says whether every leg passed) and the files. */
export async function mergeRunReports(options: MergeOptions): Promise<{ summary: MergedSummary; files: string[] }> {
  const threshold = parseSlowerThreshold(options.slowerThreshold);
  const out = resolve(options.cwd, options.out);
  const found = await findLegs(options.inputs, options.cwd);
  const previous = options.previous === undefined ? undefined : await readPrevious(resolve(options.cwd, options.previous));
  // Where each leg's report goes: legs/<leg>/ (its id decides, so the same leg lands in the same folder every night).
  const planned = found.map((leg) => {
    const input: LegInput = {
      source: relative(options.cwd, leg.dir) || '.',
      ...(leg.report !== undefined ? { report: leg.report } : {}),
      ...(leg.status !== undefined ? { status: leg.status } : {}),
    };
    const id = mergeLegs([input]).legs[0]?.id ?? '';
    const folder = join(MERGED_FILES.legs, folderOf(id));
    const link = leg.report === undefined ? undefined : join(folder, leg.html !== undefined ? HTML_REPORT_FILE : JSON_REPORT_FILE);
    return { leg, folder, input: { ...input, ...(link !== undefined ? { link: link.split('\\').join('/') } : {}) } };
  });
  const merged = mergeLegs(planned.map((entry) => entry.input));
  const summary: MergedSummary = previous === undefined ? merged : { ...merged, changes: compareSummaries(previous, merged, threshold) };
  const page = await renderMergedPage(summary);
  // The copies first, then the merged files: a page never links to a report that is not there.
  await ensureDirectory(out);
  await rm(join(out, MERGED_FILES.legs), { recursive: true, force: true });
  const files: string[] = [];
  for (const { leg, folder } of planned) {
    if (leg.report === undefined) continue;
    await ensureDirectory(join(out, folder));
    for (const source of [join(leg.dir, JSON_REPORT_FILE), ...(leg.html !== undefined ? [leg.html] : [])]) {
      const target = join(out, folder, basename(source));
      await writeFileAtomic(target, await readFile(source));
      files.push(target);
    }
  }
  const outputs: [string, string][] = [
    [MERGED_FILES.summary, `${JSON.stringify(summary, null, 2)}\n`],
    [MERGED_FILES.junit, mergedJunit(summary)],
    [MERGED_FILES.markdown, mergedMarkdown(summary)],
    [MERGED_FILES.page, page],
  ];
  for (const [name, text] of outputs) {
    await writeFileAtomic(join(out, name), text);
    files.push(join(out, name));
  }
  return { summary, files };
}
