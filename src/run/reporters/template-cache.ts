// Handlebars templates compiled once per installation: the run report's page (page.ts) and the merged page
// (src/report/merge-render.ts). Every `obflow run` and demo compiled the report's page and its timing partials from
// source (~35 ms: Handlebars parses them and generates JavaScript, V8 compiles that). The command line's start
// (src/cli/compile-cache.ts, beside its compile caches) names a folder here; a template compiled through compileTemplate
// then keeps Handlebars' precompiled output (the page's and each string partial's) in `handlebars-<SHA-1>.json`, the
// hash over everything that goes into it: Handlebars' version, the options, the source and every partial's name and
// source. A later run evaluates the kept JavaScript instead of compiling. No folder (a program importing obflow,
// NODE_DISABLE_COMPILE_CACHE=1), a file that cannot be read, or one that does not evaluate to templates: compiled from
// source, as before, and kept anew where there is a folder.

import { hash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInThisContext } from 'node:vm';
import { writeCacheFile } from '../../fs.js';

/** A compiled template: view in, text out. */
export type CompiledTemplate = (view: unknown) => string;

/** What of a Handlebars instance (`Handlebars.create()`, partials registered) the cache uses. */
export interface HandlebarsInstance {
  VERSION: string;
  partials: Record<string, unknown>;
  compile(source: string, options?: object): CompiledTemplate;
  precompile(source: string, options?: object): string;
  template(spec: unknown): CompiledTemplate;
  registerPartial(name: string, partial: CompiledTemplate): void;
}

/** Handlebars' output for a template and its partials, as JavaScript source (the file's content). */
interface KeptSpecs {
  template: string;
  partials: Record<string, string>;
}

export interface TemplateCacheStats {
  /** Templates evaluated from a kept file. */
  hits: number;
  /** Templates compiled from source and kept. */
  misses: number;
}

let folder: string | undefined;
const stats: TemplateCacheStats = { hits: 0, misses: 0 };

/** Keeps compiled templates in `dir` from now on (undefined: compile from source). */
export function keepCompiledTemplates(dir: string | undefined): void {
  folder = dir;
}

/** What this process's template cache did so far (for tests). */
export function templateCacheStats(): TemplateCacheStats {
  return { ...stats };
}

/**
 * `handlebars.compile(source, options)`, from the kept file when there is one. Every string partial of the instance is
 * compiled (or evaluated) with the template, used or not, and registered on the instance as a compiled one, which
 * Handlebars does for a used one at its first use; the callers pass an instance made for the template
 * (report.mjs handlebarsWithTiming).
 */
export function compileTemplate(handlebars: HandlebarsInstance, source: string, options: object = {}): CompiledTemplate {
  if (folder === undefined) return handlebars.compile(source, options);
  const partialSources = Object.entries(handlebars.partials)
    .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const key = hash('sha1', JSON.stringify([handlebars.VERSION, options, source, partialSources]), 'hex');
  const file = join(folder, `handlebars-${key}.json`);
  const kept = readKept(file, partialSources);
  if (kept !== undefined) {
    try {
      const template = instantiate(handlebars, kept, file);
      stats.hits += 1;
      return template;
    } catch {
      // Not templates (a damaged file): compiled from source below, and replaced.
    }
  }
  // Handlebars' precompile sets defaults on the options it is given (compile works on a copy): a copy each.
  const specs: KeptSpecs = {
    template: handlebars.precompile(source, { ...options }),
    partials: Object.fromEntries(partialSources.map(([name, text]) => [name, handlebars.precompile(text, { ...options })])),
  };
  const template = instantiate(handlebars, specs, file);
  stats.misses += 1;
  writeCacheFile(file, JSON.stringify(specs));
  return template;
}

/** The kept specs, when the file holds one for the template and for exactly these partials. */
function readKept(file: string, partialSources: readonly [string, string][]): KeptSpecs | undefined {
  let kept: unknown;
  try {
    kept = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (typeof kept !== 'object' || kept === null) return undefined;
  const { template, partials } = kept as Partial<KeptSpecs>;
  if (typeof template !== 'string' || typeof partials !== 'object' || partials === null) return undefined;
  const names = Object.keys(partials).sort();
  const wanted = partialSources.map(([name]) => name);
  if (names.length !== wanted.length || names.some((name, index) => name !== wanted[index])) return undefined;
  return Object.values(partials).every((spec) => typeof spec === 'string') ? { template, partials } : undefined;
}

/** Handlebars' templates from their specs; the partials are registered only once every spec evaluated. */
function instantiate(handlebars: HandlebarsInstance, specs: KeptSpecs, file: string): CompiledTemplate {
  const evaluate = (spec: string): CompiledTemplate => handlebars.template(runInThisContext(`(${spec})`, { filename: file }));
  const partials = Object.entries(specs.partials).map(([name, spec]) => [name, evaluate(spec)] as const);
  const template = evaluate(specs.template);
  for (const [name, partial] of partials) handlebars.registerPartial(name, partial);
  return template;
}
