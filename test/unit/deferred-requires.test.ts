// Packages a dependency requires at its top level but calls only on demand (src/cli/deferred-requires.ts, issue 34):
// postman-collection's dynamic variables load none of faker until one is used, and then every one gives faker's own
// value (faker seeded alike in a process with the stand-in and one without); every package of the table is required
// by newman's tree where the table says, and none of it loads with the stand-ins; a members stand-in answers as its
// package does. Each side in a process of its own: the hook is installed once per process.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { membersStandIn } from '../../src/cli/deferred-requires.js';
import { tempDirSync } from '../helpers/temp.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DEFERRED = pathToFileURL(join(ROOT, 'dist', 'cli', 'deferred-requires.js')).href;
const VARIABLES = createRequire(join(ROOT, 'package.json')).resolve('postman-collection/lib/superstring/dynamic-variables.js');

interface Outcome {
  fakerFilesAtLoad: number;
  stats: { deferred: number; loaded: number } | null;
  types: Record<string, string>;
  /** The variables whose value two passes seeded alike agree on (faker's and the fixed clock's; not uuid's). */
  seeded: Record<string, unknown>;
}

/** Loads the dynamic variables (with the stand-in when `defer`), then calls every generator in two passes of a seeded faker. */
function outcome(defer: boolean): Outcome {
  const script = `
    // One clock and one Math.random for both processes (faker's dates and postman-collection's timestamps read the
    // clock; $randomInt reads Math.random, not faker), reset at each pass like faker's seed.
    let state = 34;
    Math.random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
    const FIXED = Date.parse('2026-11-26T07:00:00.000Z');
    globalThis.Date = class extends Date {
      constructor(...args) {
        if (args.length === 0) super(FIXED);
        else super(...args);
      }
      static now() {
        return FIXED;
      }
    };
    const stats = ${defer} ? await import(${JSON.stringify(DEFERRED)}) : undefined;
    stats?.installDeferredRequires();
    const { createRequire } = await import('node:module');
    const require = createRequire(${JSON.stringify(VARIABLES)});
    const variables = require(${JSON.stringify(VARIABLES)});
    const fakerFilesAtLoad = Object.keys(require.cache).filter((file) => file.includes('@faker-js')).length;
    // faker itself, as a file beside the dynamic variables requires it (the stand-in answers only their own require).
    const faker = createRequire(${JSON.stringify(join(dirname(VARIABLES), 'probe.js'))})('@faker-js/faker/locale/en');
    const pass = () => {
      faker.seed(34);
      state = 34;
      return Object.fromEntries(Object.entries(variables).map(([name, variable]) => [name, variable.generator()]));
    };
    const [first, second] = [pass(), pass()];
    const seeded = Object.fromEntries(Object.entries(first).filter(([name, value]) => JSON.stringify(value) === JSON.stringify(second[name])));
    const types = Object.fromEntries(Object.entries(first).map(([name, value]) => [name, typeof value]));
    console.log(JSON.stringify({ fakerFilesAtLoad, stats: stats?.deferredRequireStats() ?? null, types, seeded }));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: dirname(VARIABLES) });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Outcome;
}

/** What `require('newman')` loads without the stand-ins and not with them: the table's packages and what they require. */
const NOT_LOADED_WITH_STAND_INS = [
  '@faker-js/faker',
  'http-signature',
  'sshpk',
  'stream-length',
  'bluebird',
  'har-validator',
  'node-forge',
  'jose',
  'handlebars',
  'postman-collection-transformer',
];

interface TreeOutcome {
  /** Per entry (`request` from `parent`): the parent loaded, and how many files of the package are in require's cache. */
  entries: { request: string; parent: string; parentLoaded: boolean; packageFiles: number }[];
  /** Files in require's cache per package of NOT_LOADED_WITH_STAND_INS. */
  packages: Record<string, number>;
  stats: { deferred: number; loaded: number } | null;
  /** postman-runtime's visualizer used after the measurement (Handlebars through its stand-in when deferred). */
  visualized: string;
  handlebarsFilesAfterUse: number;
}

/** Requires newman (with the stand-ins when `defer`) and looks at what loaded. */
function newmanTree(defer: boolean): TreeOutcome {
  const script = `
    const deferred = await import(${JSON.stringify(DEFERRED)});
    if (${defer}) deferred.installDeferredRequires();
    const { createRequire } = await import('node:module');
    const require = createRequire(${JSON.stringify(join(ROOT, 'package.json'))});
    require('newman');
    const files = Object.keys(require.cache);
    const filesOf = (name) => files.filter((file) => file.includes('/node_modules/' + name + '/')).length;
    const packages = Object.fromEntries(${JSON.stringify(NOT_LOADED_WITH_STAND_INS)}.map((name) => [name, filesOf(name)]));
    const entries = deferred.DEFERRED.map(({ request, parent }) => ({
      request,
      parent,
      parentLoaded: files.some((file) => file.endsWith('/node_modules/' + parent)),
      packageFiles: filesOf(request.split('/').slice(0, request.startsWith('@') ? 2 : 1).join('/')),
    }));
    const stats = ${defer} ? deferred.deferredRequireStats() : null;
    let visualized = '';
    require('postman-runtime/lib/visualizer').processTemplate('<b>{{name}}</b> {{#each pages}}[{{this}}]{{/each}}', { name: 'jo', pages: [1, 2] }, {}, (error, html) => {
      visualized = error ? String(error) : html;
    });
    const handlebarsFilesAfterUse = Object.keys(require.cache).filter((file) => file.includes('/node_modules/handlebars/')).length;
    console.log(JSON.stringify({ entries, packages, stats, visualized, handlebarsFilesAfterUse }));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: ROOT });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as TreeOutcome;
}

describe('deferred requires', () => {
  it("names packages newman's tree requires where the table says, and none of them loads with the stand-ins", () => {
    const plain = newmanTree(false);
    const deferred = newmanTree(true);
    for (const entry of plain.entries) {
      expect(entry.parentLoaded, `${entry.parent} is loaded by require('newman')`).toBe(true);
      expect(entry.packageFiles, `${entry.request} is loaded without the stand-ins`).toBeGreaterThan(0);
    }
    for (const entry of deferred.entries) {
      expect(entry.parentLoaded, `${entry.parent} is loaded by require('newman')`).toBe(true);
      expect(entry.packageFiles, `${entry.request} is not loaded with the stand-ins`).toBe(0);
    }
    for (const name of NOT_LOADED_WITH_STAND_INS) {
      expect(plain.packages[name], `${name} is loaded without the stand-ins`).toBeGreaterThan(0);
      expect(deferred.packages[name], `${name} is not loaded with the stand-ins`).toBe(0);
    }
    expect(deferred.stats?.loaded).toBe(0);
    expect(deferred.stats?.deferred).toBeGreaterThanOrEqual(deferred.entries.length);
    // A use loads the package then, through the file that required it, with the same answer.
    expect(plain.visualized).toBe('<b>jo</b> [1][2]');
    expect(deferred.visualized).toBe(plain.visualized);
    expect(deferred.handlebarsFilesAfterUse).toBeGreaterThan(0);
  });

  it('answers a members stand-in as its package: the same values, `in`, writes, calls with their receiver, `new`', () => {
    let loads = 0;
    class Key {
      constructor(readonly name: string) {}
    }
    const real = {
      Key,
      version: '1.0.0',
      sign(this: { version: string }, data: string) {
        return `${data} signed by ${this.version}`;
      },
    };
    const standIn = membersStandIn(() => {
      loads += 1;
      return real;
    }, false) as typeof real;
    expect(loads).toBe(0);
    expect(standIn.Key).toBe(Key);
    expect(loads).toBe(1);
    expect('sign' in standIn && !('verify' in standIn)).toBe(true);
    expect(standIn.sign('page')).toBe('page signed by 1.0.0');
    (standIn as { version: string }).version = '2.0.0';
    expect(real.version).toBe('2.0.0');
    expect(new standIn.Key('k')).toBeInstanceOf(Key);
    expect(loads).toBe(1);

    const length = Object.assign((body: string, options: object, done: (error: null, length: number) => void) => done(null, body.length), {
      unit: 'bytes',
    });
    const callable = membersStandIn(() => length, true) as typeof length;
    expect(typeof callable).toBe('function');
    let measured = -1;
    callable('four', {}, (_error, value) => (measured = value));
    expect(measured).toBe(4);
    expect(callable.unit).toBe('bytes');
    const made = new (membersStandIn(() => Key, true) as typeof Key)('made');
    expect(made).toBeInstanceOf(Key);
    expect(made.name).toBe('made');
  });

  it('leaves faker unloaded until a dynamic variable needs it, then gives every variable faker’s own value', () => {
    const plain = outcome(false);
    const deferred = outcome(true);
    expect(plain.fakerFilesAtLoad).toBeGreaterThan(100);
    expect(deferred.fakerFilesAtLoad).toBe(0);
    expect(deferred.stats).toEqual({ deferred: 1, loaded: 1 });
    expect(deferred.types).toEqual(plain.types);
    expect(Object.keys(plain.seeded).length).toBeGreaterThan(100);
    expect(deferred.seeded).toEqual(plain.seeded);
  });

  it("is installed by obflow's own start (main() with the process's environment), not by a program calling main()", () => {
    const script = `
      import { Writable } from 'node:stream';
      import { createRequire } from 'node:module';
      const { main } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'cli', 'main.js')).href)});
      const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
      const io = { stdout: sink, stderr: sink, cwd: process.cwd(), env: process.env };
      await main(['--help'], io, process.argv[1] === 'start' ? { processEnv: process.env } : {});
      createRequire(${JSON.stringify(VARIABLES)})('postman-collection');
      const { deferredRequireStats } = await import(${JSON.stringify(DEFERRED)});
      console.log(JSON.stringify(deferredRequireStats()));
    `;
    const stats = (how: string): unknown => {
      const env = { ...process.env, NODE_COMPILE_CACHE: tempDirSync('obflow-deferred-cache-') };
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, how], { encoding: 'utf8', env });
      expect(run.status, run.stderr).toBe(0);
      return JSON.parse(run.stdout);
    };
    expect(stats('start')).toEqual({ deferred: 1, loaded: 0 });
    expect(stats('program')).toEqual({ deferred: 0, loaded: 0 });
  });

  it('leaves a start working where the loader cannot be wrapped (faker then loads as it would)', () => {
    const script = `
      import Module from 'node:module';
      Object.defineProperty(Module, '_load', { value: Module._load, writable: false });
      const { installDeferredRequires, deferredRequireStats } = await import(${JSON.stringify(DEFERRED)});
      installDeferredRequires();
      const { createRequire } = await import('node:module');
      const require = createRequire(${JSON.stringify(VARIABLES)});
      require(${JSON.stringify(VARIABLES)});
      const faker = Object.keys(require.cache).filter((file) => file.includes('@faker-js')).length;
      console.log(JSON.stringify({ stats: deferredRequireStats(), faker: faker > 100 }));
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ stats: { deferred: 0, loaded: 0 }, faker: true });
  });
});
