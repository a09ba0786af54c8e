// Packages a dependency requires at its top level but calls only on demand (src/cli/deferred-requires.ts), through
// `module.registerHooks`: postman-collection's dynamic variables load none of faker until one is used, and then every
// one gives faker's own value (faker seeded alike in a process with the stand-in and one without); every package of
// the table is required by newman's tree where the table says, and none of it loads with the stand-ins; a stand-in
// answers as its package does. The hooks' cases run on a Node.js that has the API: this one when it does, else a
// pinned runtime fetched by tools/runtime.js (skipped with the reason when none is; a failure under
// OBFLOW_REQUIRE_PREREQUISITES). Where the running Node.js has no such API (Node.js 20) the documented behaviour is
// held instead: nothing installed, faker loaded at the start. Each side in a process of its own: hooks stay installed
// for a process's life.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { DEFERRED as TABLE, membersStandIn, namespacesStandIn, standInSource } from '../../src/cli/deferred-requires.js';
import { describeWith, REPO_ROOT, type Prerequisite } from '../helpers/prerequisites.js';
import { tempDirSync } from '../helpers/temp.js';

const DEFERRED = pathToFileURL(join(REPO_ROOT, 'dist', 'cli', 'deferred-requires.js')).href;
const VARIABLES = createRequire(join(REPO_ROOT, 'package.json')).resolve('postman-collection/lib/superstring/dynamic-variables.js');

const hasHooks = (node: string): boolean =>
  spawnSync(node, ['-p', "typeof require('node:module').registerHooks"], { encoding: 'utf8' }).stdout.trim() === 'function';

/** This Node.js when it has `module.registerHooks`, else a pinned runtime already fetched that has it. */
function findHooksNode(): string | undefined {
  if (typeof (module as unknown as { registerHooks?: unknown }).registerHooks === 'function') return process.execPath;
  for (const line of ['24', '26']) {
    const cached = spawnSync(process.execPath, [join(REPO_ROOT, 'tools', 'runtime.js'), line, '--cached'], { encoding: 'utf8' });
    const node = join(cached.stdout.trim(), 'node');
    if (cached.status === 0 && hasHooks(node)) return node;
  }
  return undefined;
}

const HOOKS_NODE = findHooksNode();
const hooksRuntime: Prerequisite = {
  id: 'runtime',
  what: 'a Node.js with module.registerHooks (≥ 22.15)',
  missing: HOOKS_NODE === undefined ? 'none fetched: run `node tools/runtime.js 24` (tools/runtimes.json)' : undefined,
};

/** Runs an ES module script on `node` (its last stdout line is JSON) and returns what it printed. */
function runScript(node: string, script: string, options: { cwd?: string; env?: NodeJS.ProcessEnv; args?: string[] } = {}): unknown {
  const run = spawnSync(node, ['--input-type=module', '-e', script, ...(options.args ?? [])], {
    encoding: 'utf8',
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env ?? process.env,
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '');
}

interface Outcome {
  installed: string | null;
  fakerFilesAtLoad: number;
  stats: { deferred: number; loaded: number } | null;
  types: Record<string, string>;
  /** The variables whose value two passes seeded alike agree on (faker's and the fixed clock's; not uuid's). */
  seeded: Record<string, unknown>;
}

/**
 * Loads the dynamic variables (with the hooks when `defer`; `registerHooks: 'absent'` as on a Node.js without them),
 * then calls every generator in two passes of a seeded faker.
 */
function outcome(node: string, defer: boolean, registerHooks: 'present' | 'absent' = 'present'): Outcome {
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
    const deferred = ${defer} ? await import(${JSON.stringify(DEFERRED)}) : undefined;
    const installed = ${registerHooks === 'absent'} ? deferred?.installDeferredRequires({}, null) : deferred?.installDeferredRequires({});
    const { createRequire } = await import('node:module');
    const require = createRequire(${JSON.stringify(VARIABLES)});
    const variables = require(${JSON.stringify(VARIABLES)});
    const fakerFilesAtLoad = Object.keys(require.cache).filter((file) => file.includes('@faker-js')).length;
    // faker itself, as a file of postman-collection requires it: one folder up, as the CommonJS loader keeps a
    // resolution per folder of the requiring file (a file beside the dynamic variables gets their stand-in).
    const faker = createRequire(${JSON.stringify(join(dirname(dirname(VARIABLES)), 'probe.js'))})('@faker-js/faker/locale/en');
    const pass = () => {
      faker.seed(34);
      state = 34;
      return Object.fromEntries(Object.entries(variables).map(([name, variable]) => [name, variable.generator()]));
    };
    const [first, second] = [pass(), pass()];
    const seeded = Object.fromEntries(Object.entries(first).filter(([name, value]) => JSON.stringify(value) === JSON.stringify(second[name])));
    const types = Object.fromEntries(Object.entries(first).map(([name, value]) => [name, typeof value]));
    console.log(JSON.stringify({ installed: installed ?? null, fakerFilesAtLoad, stats: deferred?.deferredRequireStats() ?? null, types, seeded }));
  `;
  return runScript(node, script, { cwd: dirname(VARIABLES) }) as Outcome;
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
function newmanTree(node: string, defer: boolean): TreeOutcome {
  const script = `
    const deferred = await import(${JSON.stringify(DEFERRED)});
    if (${defer} && deferred.installDeferredRequires({}) !== 'hooks') throw new Error('no hooks installed');
    const { createRequire } = await import('node:module');
    const require = createRequire(${JSON.stringify(join(REPO_ROOT, 'package.json'))});
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
  return runScript(node, script) as TreeOutcome;
}

describeWith(hooksRuntime, `deferred requires through module.registerHooks (${HOOKS_NODE ?? 'no such Node.js'})`, () => {
  const node = HOOKS_NODE ?? '';

  it("names packages newman's tree requires where the table says, and none of them loads with the stand-ins", () => {
    const plain = newmanTree(node, false);
    const deferred = newmanTree(node, true);
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
    // A use loads the package then, the file the parent's require resolves to, with the same answer.
    expect(plain.visualized).toBe('<b>jo</b> [1][2]');
    expect(deferred.visualized).toBe(plain.visualized);
    expect(deferred.handlebarsFilesAfterUse).toBeGreaterThan(0);
  });

  it('leaves faker unloaded until a dynamic variable needs it, then gives every variable faker’s own value', () => {
    const plain = outcome(node, false);
    const deferred = outcome(node, true);
    expect(plain.fakerFilesAtLoad).toBeGreaterThan(100);
    expect(deferred.installed).toBe('hooks');
    expect(deferred.fakerFilesAtLoad).toBe(0);
    expect(deferred.stats).toEqual({ deferred: 1, loaded: 1 });
    expect(deferred.types).toEqual(plain.types);
    expect(Object.keys(plain.seeded).length).toBeGreaterThan(100);
    expect(deferred.seeded).toEqual(plain.seeded);
  });

  it("is installed by obflow's own start (main() with the process's environment), not by a program calling main(), nor with OBFLOW_DEFER_REQUIRES=0", () => {
    const script = `
      import { Writable } from 'node:stream';
      import { createRequire } from 'node:module';
      const { main } = await import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist', 'cli', 'main.js')).href)});
      const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
      const io = { stdout: sink, stderr: sink, cwd: process.cwd(), env: process.env };
      const code = await main(['--help'], io, process.argv[1] === 'start' ? { processEnv: process.env } : {});
      createRequire(${JSON.stringify(VARIABLES)})('postman-collection');
      const { deferredRequireStats } = await import(${JSON.stringify(DEFERRED)});
      console.log(JSON.stringify({ code, ...deferredRequireStats() }));
    `;
    const stats = (how: string, env: NodeJS.ProcessEnv = {}): unknown =>
      runScript(node, script, {
        args: [how],
        env: { ...process.env, NODE_COMPILE_CACHE: tempDirSync('obflow-deferred-cache-'), ...env },
      });
    expect(stats('start')).toEqual({ code: 0, deferred: 1, loaded: 0 });
    expect(stats('start', { OBFLOW_DEFER_REQUIRES: '1' })).toEqual({ code: 0, deferred: 1, loaded: 0 });
    expect(stats('start', { OBFLOW_DEFER_REQUIRES: '0' })).toEqual({ code: 0, deferred: 0, loaded: 0 });
    expect(stats('program')).toEqual({ code: 0, deferred: 0, loaded: 0 });
  });
});

describe('deferred requires on any Node.js', () => {
  it(`on this Node.js (${process.version}): installed where module.registerHooks exists, and nothing otherwise (faker loads at the start)`, () => {
    const offered = typeof (module as unknown as { registerHooks?: unknown }).registerHooks === 'function';
    const here = outcome(process.execPath, true);
    expect(here.installed).toBe(offered ? 'hooks' : 'none');
    if (offered) expect(here.fakerFilesAtLoad).toBe(0);
    else
      expect({ fakerFilesAtLoad: here.fakerFilesAtLoad > 100, stats: here.stats }).toEqual({
        fakerFilesAtLoad: true,
        stats: { deferred: 0, loaded: 0 },
      });
  });

  it('installs nothing where the runtime has no module.registerHooks: every package loads at the start, values as before', () => {
    const absent = outcome(process.execPath, true, 'absent');
    const plain = outcome(process.execPath, false);
    expect(absent.installed).toBe('none');
    expect(absent.stats).toEqual({ deferred: 0, loaded: 0 });
    expect(absent.fakerFilesAtLoad).toBe(plain.fakerFilesAtLoad);
    expect(absent.seeded).toEqual(plain.seeded);
  });

  it('refuses an OBFLOW_DEFER_REQUIRES other than 0 or 1 (one coded line, exit 2), before any command runs', () => {
    const run = spawnSync(process.execPath, [join(REPO_ROOT, 'dist', 'cli', 'main.js'), '--help'], {
      encoding: 'utf8',
      env: { ...process.env, OBFLOW_DEFER_REQUIRES: 'no' },
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^error: ERR_CONFIG_INVALID OBFLOW_DEFER_REQUIRES=no is neither 0 nor 1\nhint: .*OBFLOW_DEFER_REQUIRES=0/);
  });

  it('holds the table to the folders it defers in: a file beside a parent that requires the package is a parent of the same shape', () => {
    // Node.js's CommonJS loader keeps a resolution per (folder of the requiring file, request): a file beside a parent
    // gets the parent's stand-in without the hooks being asked, so it must read the package the same way.
    const modules = join(REPO_ROOT, 'node_modules');
    const packages = readdirSync(modules).flatMap((name) =>
      name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name],
    );
    const copiesOf = (parent: string): string[] => {
      const nested = packages.map((owner) => join(modules, owner, 'node_modules', parent));
      return [join(modules, parent), ...nested].filter((file) => existsSync(file));
    };
    const checked: string[] = [];
    for (const { request, parent, shape } of TABLE) {
      const copies = copiesOf(parent);
      expect(copies.length, `${parent} is installed`).toBeGreaterThan(0);
      for (const copy of copies) {
        const folder = dirname(copy);
        for (const file of readdirSync(folder).filter((name) => name.endsWith('.js'))) {
          const text = readFileSync(join(folder, file), 'utf8');
          if (!text.includes(`require('${request}')`) && !text.includes(`require("${request}")`)) continue;
          const path = relative(modules, join(folder, file)).split('/node_modules/').at(-1);
          const row = TABLE.find((entry) => entry.request === request && entry.parent === path);
          expect(row?.shape, `${relative(modules, join(folder, file))} requires ${request} beside ${parent}`).toBe(shape);
          checked.push(path ?? '');
        }
      }
    }
    expect(new Set(checked)).toEqual(new Set(TABLE.map((entry) => entry.parent)));
  });

  it('is not a config key: a config read with OBFLOW_DEFER_REQUIRES set is not refused as an unknown variable', () => {
    const cwd = tempDirSync('obflow-deferred-config-');
    for (const value of ['0', '1']) {
      expect(() => loadConfig({ cwd, env: { OBFLOW_DEFER_REQUIRES: value }, checkFiles: false })).not.toThrow();
    }
    expect(() => loadConfig({ cwd, env: { OBFLOW_DEFER_REQUIRE: '0' }, checkFiles: false })).toThrow(/OBFLOW_DEFER_REQUIRE\b/);
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

  it("answers a namespaces stand-in with the package's own functions, loaded at the first call", () => {
    let loads = 0;
    const real = { address: { city: (prefix: string) => `${prefix} Burnsville` } };
    const standIn = namespacesStandIn(() => {
      loads += 1;
      return real;
    });
    const city = standIn.address!.city!;
    expect(standIn.address!.city).toBe(city);
    expect(loads).toBe(0);
    expect(city('in')).toBe('in Burnsville');
    expect(loads).toBe(1);
  });

  it('writes each stand-in as a CommonJS module that requires the resolved file by its path, at the first use only', () => {
    const file = join(REPO_ROOT, 'node_modules', 'handlebars', 'lib', 'index.js');
    const required: string[] = [];
    const evaluate = (source: string) => {
      const stub = { module: { exports: undefined as unknown } };
      const require = (path: string) => {
        required.push(path);
        return Object.assign((text: string) => text.length, { compile: () => 'compiled', lorem: { word: () => 'faker word' } });
      };
      new Function('module', 'require', source)(stub.module, require);
      return stub.module.exports as Record<string, unknown>;
    };
    const members = evaluate(standInSource('members', file)) as { compile: () => string };
    const callable = evaluate(standInSource('callable members', file)) as unknown as (text: string) => number;
    const namespaces = evaluate(standInSource('namespaces', file)) as { lorem: { word: () => string } };
    expect(required).toEqual([]);
    expect(members.compile()).toBe('compiled');
    expect(callable('four')).toBe(4);
    expect(namespaces.lorem.word()).toBe('faker word');
    expect(required).toEqual([file, file, file]);
  });
});
