// Handlebars templates kept compiled between runs (src/run/reporters/template-cache.ts): the same text as
// Handlebars' own compile, from the kept file at the next compile (which then compiles nothing), anew for another
// source or partial, and anew over a damaged file; nothing kept without a folder. The run report's page through it
// is the page compiled from source.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Handlebars from 'handlebars';
import { afterEach, describe, expect, it } from 'vitest';
import { reportModuleDir } from '../../src/run/reporters/page.js';
import {
  compileTemplate,
  keepCompiledTemplates,
  templateCacheStats,
  type HandlebarsInstance,
} from '../../src/run/reporters/template-cache.js';
import { tempDirSync } from '../helpers/temp.js';

const PAGE = '<h1>{{title}}</h1>{{#each rows}}<p class="{{kind}}">{{> row this}}</p>{{/each}}{{> footer}}';
const VIEW = {
  title: 'Run <1>',
  rows: [
    { kind: 'a', name: 'x & y' },
    { kind: 'b', name: 'z' },
  ],
};

/** A fresh instance with the two partials; `row`'s text as given. */
function instance(row = '{{name}}!'): HandlebarsInstance {
  const handlebars = Handlebars.create();
  handlebars.registerPartial('row', row);
  handlebars.registerPartial('footer', '<footer>{{title}}</footer>');
  return handlebars as unknown as HandlebarsInstance;
}

/** An instance whose compiler refuses: a template from it came from the kept file. */
function instanceThatCannotCompile(): HandlebarsInstance {
  const handlebars = instance();
  handlebars.compile = () => {
    throw new Error('compiled from source');
  };
  handlebars.precompile = () => {
    throw new Error('compiled from source');
  };
  return handlebars;
}

/** A run report's model: one failed step. */
const MODEL = {
  bank: 'b',
  profile: 'p',
  obflowVersion: '0',
  ranAt: '2026-11-26T07:00:00Z',
  runner: 'obflow',
  passed: false,
  steps: [{ name: 'accounts', passed: false, status: 'failed', ms: 12, requests: [], skipped: [] }],
  accounts: [],
  totals: { steps: 1, requests: 0, assertions: 0, localChecks: 0, failed: 1, skipped: 0 },
};

const keptFiles = (dir: string) => readdirSync(dir).filter((name) => /^handlebars-[0-9a-f]{40}\.json$/.test(name));

afterEach(() => keepCompiledTemplates(undefined));

describe('compileTemplate', () => {
  it('compiles from source and keeps nothing without a folder', () => {
    const before = templateCacheStats();
    expect(compileTemplate(instance(), PAGE, { strict: false })(VIEW)).toBe(instance().compile(PAGE, { strict: false })(VIEW));
    expect(templateCacheStats()).toEqual(before);
  });

  it('keeps the compiled template and its partials, and the next compile takes them from the file', () => {
    const dir = tempDirSync('obflow-templates-');
    keepCompiledTemplates(dir);
    const expected = instance().compile(PAGE, { strict: false })(VIEW);
    const before = templateCacheStats();
    expect(compileTemplate(instance(), PAGE, { strict: false })(VIEW)).toBe(expected);
    expect(keptFiles(dir)).toHaveLength(1);
    expect(Object.keys(JSON.parse(readFileSync(join(dir, keptFiles(dir)[0]!), 'utf8')).partials as object)).toEqual(['footer', 'row']);
    expect(compileTemplate(instanceThatCannotCompile(), PAGE, { strict: false })(VIEW)).toBe(expected);
    expect(templateCacheStats()).toEqual({ hits: before.hits + 1, misses: before.misses + 1 });
  });

  it('compiles anew for another partial, other options or another source', () => {
    const dir = tempDirSync('obflow-templates-');
    keepCompiledTemplates(dir);
    compileTemplate(instance(), PAGE, { strict: false });
    expect(compileTemplate(instance('[{{name}}]'), PAGE, { strict: false })(VIEW)).toContain('[x &amp; y]');
    compileTemplate(instance(), PAGE, { strict: true });
    compileTemplate(instance(), `${PAGE}.`, { strict: false });
    expect(keptFiles(dir)).toHaveLength(4);
  });

  it('compiles anew over a kept file that is not templates, and replaces it', () => {
    const dir = tempDirSync('obflow-templates-');
    keepCompiledTemplates(dir);
    const expected = compileTemplate(instance(), PAGE, { strict: false })(VIEW);
    const file = join(dir, keptFiles(dir)[0]!);
    for (const damaged of ['{"template":"(","partials":{"footer":"1","row":"2"}}', '{"template":"{}","partials":{}}', 'not json']) {
      writeFileSync(file, damaged);
      const before = templateCacheStats();
      expect(compileTemplate(instance(), PAGE, { strict: false })(VIEW)).toBe(expected);
      expect(templateCacheStats().misses).toBe(before.misses + 1);
      expect(compileTemplate(instanceThatCannotCompile(), PAGE, { strict: false })(VIEW)).toBe(expected);
    }
  });

  it('is what obflow’s run report page and the merged page compile through (page.ts, timing.ts; a process of its own)', () => {
    const dir = tempDirSync('obflow-templates-');
    const dist = join(import.meta.dirname, '..', '..', 'dist', 'run', 'reporters');
    const script = [
      `const t = await import(${JSON.stringify(pathToFileURL(join(dist, 'template-cache.js')).href)});`,
      `const page = await import(${JSON.stringify(pathToFileURL(join(dist, 'page.js')).href)});`,
      `t.keepCompiledTemplates(${JSON.stringify(dir)});`,
      `await page.renderHtmlReport(${JSON.stringify(MODEL)});`,
      `const timing = await import(${JSON.stringify(pathToFileURL(join(dist, '..', '..', 'report', 'timing.js')).href)});`,
      "await timing.compileWithTiming('<style>{{> timingCss}}</style>');",
      'console.log(JSON.stringify(t.templateCacheStats()));',
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ hits: 0, misses: 2 });
    expect(keptFiles(dir)).toHaveLength(2);
  });

  it('gives the run report’s page the text its compile from source gives', async () => {
    const model = MODEL;
    // report.mjs keeps its template once made: a module instance of its own for each way.
    const fresh = async (tag: string) =>
      (await import(/* @vite-ignore */ `${pathToFileURL(join(reportModuleDir(), 'report.mjs')).href}?${tag}=${Date.now()}`)) as {
        renderReport(model: unknown, compile?: typeof compileTemplate): string;
      };
    const fromSource = (await fresh('source')).renderReport(model);
    expect(fromSource).toContain('accounts');
    const dir = tempDirSync('obflow-templates-');
    keepCompiledTemplates(dir);
    expect((await fresh('compiled')).renderReport(model, compileTemplate)).toBe(fromSource);
    const before = templateCacheStats();
    expect((await fresh('kept')).renderReport(model, compileTemplate)).toBe(fromSource);
    expect(templateCacheStats()).toEqual({ hits: before.hits + 1, misses: before.misses });
    expect(keptFiles(dir)).toHaveLength(1);
  });
});
