// The typed adapter over the per-step timing picture (templates/workspace/timing.mjs, its one home: the run report
// that every workspace ships draws it too) and the Handlebars instance that holds its partials (report.mjs).

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { reportModuleDir } from '../run/reporters/page.js';
import { compileTemplate, type CompiledTemplate, type HandlebarsInstance } from '../run/reporters/template-cache.js';

export type TimingStatus = 'passed' | 'failed' | 'skipped' | 'not-reached';

export interface TimingRowInput {
  label: string;
  segments: { step: string; ms: number; status: TimingStatus }[];
}

/** The picture's geometry (timing.mjs documents each field); timing.svg.hbs draws it. */
export interface TimingPicture {
  width: number;
  height: number;
  rows: { label: string; total: string; segments: { x: number; width: number; fill: string; status: TimingStatus; title: string }[] }[];
  legend: { number: number; name: string; fill: string; status?: string }[];
}

interface TimingModule {
  timingPicture(rows: readonly TimingRowInput[], options: { steps: readonly string[]; labelWidth?: number; title?: string }): TimingPicture;
  formatMs(ms: number): string;
}

interface ReportTemplatesModule {
  handlebarsWithTiming(): HandlebarsInstance;
}

let timing: Promise<TimingModule> | undefined;
let templates: Promise<ReportTemplatesModule> | undefined;

export function loadTiming(): Promise<TimingModule> {
  timing ??= import(pathToFileURL(join(reportModuleDir(), 'timing.mjs')).href) as Promise<TimingModule>;
  return timing;
}

/** Compiles a page template with the timing partials (`{{> timing picture}}`, `{{> timingCss}}`) registered. */
export async function compileWithTiming(source: string): Promise<CompiledTemplate> {
  templates ??= import(pathToFileURL(join(reportModuleDir(), 'report.mjs')).href) as Promise<ReportTemplatesModule>;
  return compileTemplate((await templates).handlebarsWithTiming(), source, { strict: false });
}
