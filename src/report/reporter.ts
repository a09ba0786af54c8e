// The html and json reporters of a run: one collector subscribed to the runner's events, one redacted report model,
// written as report.html (self-contained) and/or report.json when the run ends.

import type { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { PostmanEnvironment } from '../environment/merge.js';
import { ObflowError } from '../errors.js';
import { writeFileAtomic } from '../fs.js';
import type { ExecutionRecord, RunResult } from '../run/newman.js';
import { buildRunSummary } from '../run/summary.js';
import { createCollector, renderHtmlReport, type ReportMeta, type ReportModel } from './html.js';

export type PeopleReporter = 'html' | 'json';

const REPORTERS = ['cli', 'junit', 'html', 'json'] as const;
export type ReporterChoice = (typeof REPORTERS)[number];

/** `--reporters cli,junit,html`: each name once, in the order given; undefined → cli + junit. */
export function parseReporters(text: string | undefined): ReporterChoice[] {
  if (text === undefined) return ['cli', 'junit'];
  const names = text.split(',').map((name) => name.trim()).filter((name) => name !== '');
  const unknown = names.filter((name) => !(REPORTERS as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    throw new ObflowError('ERR_USAGE', `unknown reporter ${unknown.length > 0 ? unknown.join(', ') : '(none given)'}`, { hint: `Use a comma-separated list of ${REPORTERS.join(', ')}.` });
  }
  return [...new Set(names)] as ReporterChoice[];
}

export const REPORT_FILE_NAMES: Readonly<Record<PeopleReporter, string>> = { html: 'report.html', json: 'report.json' };

export interface RunReport {
  /** Hand to the runner (RunStepsInput.subscribe). */
  subscribe: (emitter: EventEmitter, stepOf: (item: string) => string) => void;
  /** Builds the model from what the collector saw and the result, writes the files; returns their paths. */
  finish(result: RunResult): Promise<{ model: ReportModel; paths: string[] }>;
}

export async function startRunReport(input: {
  reporters: readonly PeopleReporter[];
  environment: PostmanEnvironment;
  secretKeys: Iterable<string>;
  meta: ReportMeta;
  reportDir: string;
  /** Steps the run was asked for (a shorter result means it stopped early). */
  planned: readonly string[];
}): Promise<RunReport> {
  const collector = await createCollector(input.environment, input.secretKeys);
  const { attachNewman } = await import('./html.js').then((module) => module.loadReportModule());
  return {
    subscribe: (emitter, stepOf) => attachNewman(emitter, collector, stepOf),
    async finish(result) {
      // Secrets issued during the run that the scripts' scopes did not show (e.g. written by a local step).
      for (const entry of result.environment.values) if (entry.type === 'secret') collector.secret(entry.value);
      for (const step of result.steps) collector.step({ name: step.name, passed: step.passed, ...(step.requests === 0 && step.reports.length === 0 && step.passed ? { local: true } : {}) });
      const summary = buildRunSummary({ environment: result.environment, steps: result.steps, executions: result.executions as ExecutionRecord[] });
      const complete = input.planned.every((name) => result.steps.some((step) => step.name === name));
      const model = collector.model({ ...input.meta, complete, order: input.planned }, summary.accounts);
      const paths: string[] = [];
      for (const reporter of input.reporters) {
        const path = join(input.reportDir, REPORT_FILE_NAMES[reporter]);
        await writeFileAtomic(path, reporter === 'html' ? await renderHtmlReport(model) : `${JSON.stringify(model, null, 2)}\n`);
        paths.push(path);
      }
      return { model, paths };
    },
  };
}
