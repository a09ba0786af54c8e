// Packages a dependency requires at its top level but calls only on demand (src/cli/deferred-requires.ts), through
// require's cache: postman-collection's dynamic variables load none of faker until one is used, and then every one
// gives faker's own value (faker seeded alike in a process with the stand-ins and one without), and the cache holds
// faker itself from then on; every package of the table is required by newman's tree where the table says, and none
// of it loads with the stand-ins (zod's locales neither); every require of a deferred file in the installed tree is a
// row of the same shape (the cache answers by file, whoever asks), and the shape fits what the module is; a file
// loaded before the install is left alone; obflow's start installs it when it runs a command, nothing else does; a
// stand-in answers as its package does. The cases that load newman's tree run in processes of their own (the stand-ins
// stay for a process's life) on this Node.js and on another one pinned in tools/runtimes.json when it is fetched
// (skipped with the reason otherwise; a failure under OBFLOW_REQUIRE_PREREQUISITES).
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { DEFERRED as TABLE, deferredFiles, functionsStandIn, membersStandIn, namespacesStandIn } from '../../src/cli/deferred-requires.js';
import { describeWith, REPO_ROOT } from '../helpers/prerequisites.js';
import { OTHER_NODE, otherRuntime } from '../helpers/runtimes.js';
import { tempDirSync } from '../helpers/temp.js';

const DEFERRED = pathToFileURL(join(REPO_ROOT, 'dist', 'cli', 'deferred-requires.js')).href;
const VARIABLES = createRequire(join(REPO_ROOT, 'package.json')).resolve('postman-collection/lib/superstring/dynamic-variables.js');

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
  /** After the first use: the cache's entry for faker's file is faker's own module, and a require of it is faker. */
  cachedAfterUse: { module: boolean; same: boolean } | null;
  types: Record<string, string>;
  /** The variables whose value two passes seeded alike agree on (faker's and the fixed clock's; not uuid's). */
  seeded: Record<string, unknown>;
}

/** Loads the dynamic variables (with the stand-ins when `defer`), then calls every generator in two passes of a seeded faker. */
function outcome(node: string, defer: boolean): Outcome {
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
    const installed = deferred?.installDeferredRequires({});
    const { default: Module, createRequire } = await import('node:module');
    const require = createRequire(${JSON.stringify(VARIABLES)});
    const variables = require(${JSON.stringify(VARIABLES)});
    const isModule = (file) => require.cache[file] instanceof Module;
    const fakerFilesAtLoad = Object.keys(require.cache).filter((file) => file.includes('@faker-js') && isModule(file)).length;
    // faker itself, as the dynamic variables require it (after they have: the first use is a variable's call below).
    const fakerFile = require.resolve('@faker-js/faker/locale/en');
    const pass = () => {
      require('@faker-js/faker/locale/en').seed(34);
      state = 34;
      return Object.fromEntries(Object.entries(variables).map(([name, variable]) => [name, variable.generator()]));
    };
    // A call of every generator first: the first that needs faker loads it through the stand-in, which takes its entry
    // out, so the passes' require above is answered by faker itself (the same in the process without the stand-ins).
    for (const variable of Object.values(variables)) variable.generator();
    const [first, second] = [pass(), pass()];
    const faker = require('@faker-js/faker/locale/en');
    const cachedAfterUse = deferred ? { module: isModule(fakerFile), same: require.cache[fakerFile].exports === faker } : null;
    const seeded = Object.fromEntries(Object.entries(first).filter(([name, value]) => JSON.stringify(value) === JSON.stringify(second[name])));
    const types = Object.fromEntries(Object.entries(first).map(([name, value]) => [name, typeof value]));
    console.log(JSON.stringify({ installed: installed ?? null, fakerFilesAtLoad, stats: deferred?.deferredRequireStats() ?? null, cachedAfterUse, types, seeded }));
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
  'aws4',
  '@postman/form-data',
  'oauth-sign',
  '@postman/tunnel-agent',
  'socks-proxy-agent',
  'socks',
  'ip-address',
  'node-forge',
  'jose',
  'httpntlm',
  'des.js',
  'node-oauth1',
  'handlebars',
  'postman-collection-transformer',
  'csv-parse',
  'chardet',
  'semver',
  'cli-table3',
  'colors',
  'cli-progress',
];

interface TreeOutcome {
  /** Per file of deferredFiles(): its parents loaded, and the file itself loaded (a module in require's cache). */
  files: { file: string; parentsLoaded: boolean; loaded: boolean }[];
  /** Files in require's cache (modules, not stand-ins) per package of NOT_LOADED_WITH_STAND_INS. */
  packages: Record<string, number>;
  stats: { deferred: number; loaded: number } | null;
  /** postman-runtime's visualizer used after the measurement (Handlebars through its stand-in when deferred). */
  visualized: string;
  handlebarsFilesAfterUse: number;
  /** zod's files in require's cache after `require('zod')`, a message, and its locales after a use of one. */
  zodFiles: number;
  zodMessage: string;
  zodLocale: { same: boolean; fr: string; files: number };
}

/** Requires newman (with the stand-ins when `defer`) and looks at what loaded. */
function newmanTree(node: string, defer: boolean): TreeOutcome {
  const script = `
    const deferred = await import(${JSON.stringify(DEFERRED)});
    if (${defer} && deferred.installDeferredRequires({}) !== 'require.cache') throw new Error('nothing installed');
    const { default: Module, createRequire } = await import('node:module');
    const require = createRequire(${JSON.stringify(join(REPO_ROOT, 'package.json'))});
    require('newman');
    const isModule = (file) => require.cache[file] instanceof Module;
    const modules = () => Object.keys(require.cache).filter(isModule);
    const filesOf = (name) => modules().filter((file) => file.includes('/node_modules/' + name + '/')).length;
    const packages = Object.fromEntries(${JSON.stringify(NOT_LOADED_WITH_STAND_INS)}.map((name) => [name, filesOf(name)]));
    const files = deferred.deferredFiles().map(({ file, parents }) => ({ file, parentsLoaded: parents.some(isModule), loaded: isModule(file) }));
    const stats = ${defer} ? deferred.deferredRequireStats() : null;
    let visualized = '';
    require('postman-runtime/lib/visualizer').processTemplate('<b>{{name}}</b> {{#each pages}}[{{this}}]{{/each}}', { name: 'jo', pages: [1, 2] }, {}, (error, html) => {
      visualized = error ? String(error) : html;
    });
    const handlebarsFilesAfterUse = filesOf('handlebars');
    // obflow's zod (src/config/zod.ts): its English messages without the locales, which load when one is asked for.
    const { z } = require('zod');
    const zodFiles = filesOf('zod');
    const zodMessage = z.string().safeParse(3).error.issues[0].message;
    const zodLocale = { same: z.core.locales === z.locales, fr: typeof z.locales.fr().localeError, files: filesOf('zod') - zodFiles };
    console.log(JSON.stringify({ files, packages, stats, visualized, handlebarsFilesAfterUse, zodFiles, zodMessage, zodLocale }));
  `;
  return runScript(node, script) as TreeOutcome;
}

/** The cases that load newman's tree, in processes of their own on `node`. */
function treeCases(node: string): void {
  it("defers files newman's tree requires where the table says: none of their packages loads with the stand-ins, and a use loads one then", () => {
    const plain = newmanTree(node, false);
    const deferred = newmanTree(node, true);
    // Every file some parent loaded by require('newman') asks for: loaded without the stand-ins, not with them.
    const asked = plain.files.filter((entry) => entry.parentsLoaded);
    expect(asked.length).toBeGreaterThanOrEqual(new Set(TABLE.map((row) => row.request)).size);
    for (const entry of asked) expect(entry.loaded, `${entry.file} loads without the stand-ins`).toBe(true);
    for (const entry of deferred.files) expect(entry.loaded, `${entry.file} does not load with the stand-ins`).toBe(false);
    for (const name of NOT_LOADED_WITH_STAND_INS) {
      expect(plain.packages[name], `${name} is loaded without the stand-ins`).toBeGreaterThan(0);
      expect(deferred.packages[name], `${name} is not loaded with the stand-ins`).toBe(0);
    }
    expect(deferred.stats).toEqual({ deferred: deferred.files.length, loaded: 0 });
    // A use loads the package then, the file the parent's require resolves to, with the same answer.
    expect(plain.visualized).toBe('<b>jo</b> [1][2]');
    expect(deferred.visualized).toBe(plain.visualized);
    expect(deferred.handlebarsFilesAfterUse).toBeGreaterThan(0);
    // zod without its 63 locales (obflow's config reads zod's English), each there when asked for.
    expect(plain.zodFiles - deferred.zodFiles).toBeGreaterThanOrEqual(60);
    expect(deferred.zodMessage).toBe(plain.zodMessage);
    expect(plain.zodLocale).toEqual({ same: true, fr: 'function', files: 0 });
    expect(deferred.zodLocale).toEqual({ same: true, fr: 'function', files: plain.zodFiles - deferred.zodFiles });
  });

  it('leaves faker unloaded until a dynamic variable needs it, then gives every variable faker’s own value and caches faker itself', () => {
    const plain = outcome(node, false);
    const deferred = outcome(node, true);
    expect(plain.fakerFilesAtLoad).toBeGreaterThan(100);
    expect(deferred.installed).toBe('require.cache');
    expect(deferred.fakerFilesAtLoad).toBe(0);
    expect(deferred.stats?.loaded).toBe(1);
    // The stand-in took its entry out at the first use: the cache holds faker's module, and require answers faker.
    expect(deferred.cachedAfterUse).toEqual({ module: true, same: true });
    expect(deferred.types).toEqual(plain.types);
    expect(Object.keys(plain.seeded).length).toBeGreaterThan(100);
    expect(deferred.seeded).toEqual(plain.seeded);
  });

  it('leaves a file loaded before the install as it is: its requires keep the one module', () => {
    const script = `
      const { default: Module, createRequire } = await import('node:module');
      const require = createRequire(${JSON.stringify(VARIABLES)});
      const faker = require('@faker-js/faker/locale/en');
      const deferred = await import(${JSON.stringify(DEFERRED)});
      deferred.installDeferredRequires({});
      const file = require.resolve('@faker-js/faker/locale/en');
      console.log(JSON.stringify({ same: require('@faker-js/faker/locale/en') === faker, module: require.cache[file] instanceof Module, ...deferred.deferredRequireStats() }));
    `;
    const answer = runScript(node, script, { cwd: dirname(VARIABLES) }) as {
      same: boolean;
      module: boolean;
      deferred: number;
      loaded: number;
    };
    expect(answer).toEqual({ same: true, module: true, deferred: deferredFiles().length - 1, loaded: 0 });
  });

  it("is installed by obflow's own start when it runs a command, not by a program calling main(), nor with OBFLOW_DEFER_REQUIRES=0, nor for help", () => {
    const script = `
      import { Writable } from 'node:stream';
      import Module, { createRequire } from 'node:module';
      const { main } = await import(${JSON.stringify(pathToFileURL(join(REPO_ROOT, 'dist', 'cli', 'main.js')).href)});
      const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
      const io = { stdout: sink, stderr: sink, cwd: process.cwd(), env: process.env };
      const code = await main(JSON.parse(process.argv[2]), io, process.argv[1] === 'start' ? { processEnv: process.env } : {});
      const require = createRequire(${JSON.stringify(VARIABLES)});
      require('postman-collection');
      const faker = Object.keys(require.cache).filter((file) => file.includes('@faker-js') && require.cache[file] instanceof Module).length > 0;
      const { deferredRequireStats } = await import(${JSON.stringify(DEFERRED)});
      const { deferred, loaded } = deferredRequireStats();
      console.log(JSON.stringify({ code, deferred: deferred > 0, loaded, faker }));
    `;
    const stats = (how: string, argv: string[], env: NodeJS.ProcessEnv = {}): unknown =>
      runScript(node, script, {
        args: [how, JSON.stringify(argv)],
        env: { ...process.env, NODE_COMPILE_CACHE: tempDirSync('obflow-deferred-cache-'), ...env },
      });
    // config-schema: a command that loads obflow's config schema (zod) and nothing of newman's.
    const command = ['config-schema'];
    expect(stats('start', command)).toEqual({ code: 0, deferred: true, loaded: 0, faker: false });
    expect(stats('start', command, { OBFLOW_DEFER_REQUIRES: '1' })).toEqual({ code: 0, deferred: true, loaded: 0, faker: false });
    expect(stats('start', command, { OBFLOW_DEFER_REQUIRES: '0' })).toEqual({ code: 0, deferred: false, loaded: 0, faker: true });
    expect(stats('program', command)).toEqual({ code: 0, deferred: false, loaded: 0, faker: true });
    // Help and the version run no command: nothing to defer, nothing put in the cache.
    for (const argv of [['--help'], ['demo', '--help'], ['demo', '-h'], ['--version'], []]) {
      expect(stats('start', argv), argv.join(' ')).toEqual({ code: argv.length === 0 ? 2 : 0, deferred: false, loaded: 0, faker: true });
    }
  });
}

describe(`deferred requires on this Node.js (${process.version})`, () => treeCases(process.execPath));

describeWith(otherRuntime, `deferred requires on another Node.js (${OTHER_NODE || 'none fetched'})`, () => treeCases(OTHER_NODE));

/** Every `.js`/`.cjs` file under `folder` (nested node_modules included; links and obflow's caches not followed). */
function scriptsUnder(folder: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory() && entry.name !== '.bin' && entry.name !== '.cache') found.push(...scriptsUnder(path));
    else if (entry.isFile() && /\.c?js$|(?<!\.d)\.ts$/.test(entry.name)) found.push(path);
  }
  return found;
}

/** The specifiers a file requires or imports (comments taken out first: a commented-out require loads nothing). */
function specifiersOf(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"\\])\/\/.*$/gm, '$1');
  return [...code.matchAll(/(?:\brequire\s*\(\s*|\bimport\s*\(\s*|\bfrom\s+)['"]([^'"]+)['"]/g)].map((match) => match[1] ?? '');
}

describe('deferred requires on any Node.js', () => {
  const plan = deferredFiles();

  it('resolves every row of the table to a file of the installed tree, in the row’s shape', () => {
    for (const row of TABLE) {
      const entry = plan.find(
        (file) =>
          file.parents.some((parent) => parent.endsWith(`/node_modules/${row.parent}`)) &&
          file.file ===
            createRequire(file.parents.find((parent) => parent.endsWith(`/node_modules/${row.parent}`)) ?? '').resolve(row.request),
      );
      expect(entry?.shape, `${row.request} from ${row.parent}`).toBe(row.shape);
    }
  });

  it('holds every require of a deferred file in the installed tree, obflow’s own code included, to a row of the same shape', () => {
    // The cache answers by file: whoever requires the file gets the stand-in, not only the table's parents. A file of
    // the deferred package itself (csv-parse's sync API, a test, a command-line script) loads only after the package
    // has, when nothing outside the package enters it by another file: then the stand-in's entry is gone.
    const byFile = new Map(plan.map((entry) => [entry.file, entry]));
    /** The folder of the package a file is in (after the last node_modules/), or the file for obflow's own. */
    const packageFolder = (file: string): string => {
      const at = file.lastIndexOf('/node_modules/');
      if (at < 0) return file;
      const inside = file.slice(at + '/node_modules/'.length).split('/');
      return file.slice(0, at + '/node_modules/'.length) + inside.slice(0, inside[0]?.startsWith('@') ? 2 : 1).join('/');
    };
    const packageName = (specifier: string): string =>
      specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/');
    const names = new Set(plan.map((entry) => packageName(packageFolder(entry.file).split('/node_modules/').at(-1) ?? '')));
    const stems = plan.map((entry) => entry.file.replace(/(\/index)?\.c?js$/, ''));
    const folders = new Set(plan.map((entry) => packageFolder(entry.file)));
    /** Requires of a deferred file: [requiring file, specifier, the file]. */
    const found: [string, string, string][] = [];
    /** Deferred packages entered from outside by a file other than the deferred one. */
    const enteredElsewhere = new Set<string>();
    // By their real paths, as require names files (a worktree's node_modules may be a link).
    const sources = [...scriptsUnder(realpathSync(join(REPO_ROOT, 'node_modules'))), ...scriptsUnder(join(REPO_ROOT, 'src'))];
    for (const source of sources) {
      for (const specifier of specifiersOf(readFileSync(source, 'utf8'))) {
        const candidate = specifier.startsWith('.')
          ? stems.some((stem) => resolve(dirname(source), specifier).replace(/(\/index)?\.c?js$/, '') === stem)
          : names.has(packageName(specifier));
        if (!candidate) continue;
        let file: string;
        try {
          file = createRequire(source).resolve(specifier);
        } catch {
          continue;
        }
        const folder = packageFolder(file);
        if (byFile.has(file)) found.push([source, specifier, file]);
        else if (folders.has(folder) && packageFolder(source) !== folder) enteredElsewhere.add(folder);
      }
    }
    const requirers = new Set<string>();
    for (const [source, specifier, file] of found) {
      const folder = packageFolder(file);
      if (packageFolder(source) === folder && !enteredElsewhere.has(folder)) continue;
      const parent = source.includes('/node_modules/') ? source.split('/node_modules/').at(-1) : `obflow: ${relative(REPO_ROOT, source)}`;
      const row = TABLE.find((candidateRow) => candidateRow.request === specifier && candidateRow.parent === parent);
      expect(row?.shape, `${relative(REPO_ROOT, source)} requires ${specifier} (${byFile.get(file)?.shape} stand-in)`).toBe(
        byFile.get(file)?.shape,
      );
      requirers.add(`${parent} ${specifier}`);
    }
    expect(requirers).toEqual(new Set(TABLE.map((row) => `${row.parent} ${row.request}`)));
  });

  it("gives each file the stand-in of what its module is: a function for callable members, an ES module's __esModule, namespaces of functions", () => {
    // Loaded here without stand-ins (none are installed in the test's process), each by its path.
    const kinds = plan.map(({ file, shape }) => {
      const real = createRequire(file)(file) as unknown;
      const members = typeof real === 'object' && real !== null ? Object.values(real as Record<string, unknown>) : [];
      const fitting =
        typeof real === 'function'
          ? ['callable members']
          : [
              'members',
              ...((real as { __esModule?: unknown }).__esModule === true ? ['es module'] : []),
              ...(members.some((member) => typeof member === 'function') ? ['functions'] : []),
              ...(members.some(
                (member) =>
                  typeof member === 'object' && member !== null && Object.values(member).some((value) => typeof value === 'function'),
              )
                ? ['namespaces']
                : []),
            ];
      return { file: relative(REPO_ROOT, file), shape, fits: fitting.includes(shape) };
    });
    expect(kinds.filter((entry) => !entry.fits)).toEqual([]);
  });

  it('leaves out a file two rows read in different shapes, and a row whose parent or package is not installed', () => {
    const from = pathToFileURL(join(REPO_ROOT, 'src', 'cli', 'deferred-requires.ts'));
    const stream = { request: 'stream-length', parent: 'postman-request/request.js' };
    const agreeing = deferredFiles(from, [
      { ...stream, shape: 'callable members' },
      { request: 'csv-parse', parent: 'newman/lib/run/options.js', shape: 'callable members' },
    ]);
    expect(
      agreeing.map((entry) =>
        relative(REPO_ROOT, entry.file)
          .split(/(?:^|\/)node_modules\//)
          .at(-1),
      ),
    ).toEqual(['stream-length/index.js', 'csv-parse/lib/index.js']);
    // Both copies of postman-request require the one stream-length: one file, both parents.
    expect(agreeing[0]?.parents.length).toBe(2);
    const disagreeing = deferredFiles(from, [
      { ...stream, shape: 'callable members' },
      { request: 'stream-length', parent: 'postman-runtime/node_modules/postman-request/request.js', shape: 'members' },
      { request: 'csv-parse', parent: 'newman/lib/run/options.js', shape: 'callable members' },
    ]);
    expect(disagreeing.map((entry) => entry.shape)).toEqual(['callable members']);
    expect(
      deferredFiles(from, [
        { request: 'stream-length', parent: 'postman-request/no-such-file.js', shape: 'members' },
        { request: 'no-such-package', parent: 'newman/lib/run/options.js', shape: 'members' },
        { request: 'stream-length', parent: 'no-such-parent/request.js', shape: 'members' },
      ]),
    ).toEqual([]);
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

  it("answers an es module stand-in's __esModule without loading it, and lists the module's keys by loading it", () => {
    let loads = 0;
    const real = Object.defineProperty({ fr: () => 'fr' }, '__esModule', { value: true });
    Object.defineProperty(real, 'en', { enumerable: true, get: () => () => 'en' });
    const standIn = membersStandIn(
      () => {
        loads += 1;
        return real;
      },
      false,
      true,
    ) as Record<string, unknown>;
    // TypeScript's __importStar: a module with __esModule is taken as it is.
    expect(standIn.__esModule).toBe(true);
    expect(loads).toBe(0);
    // __exportStar: every enumerable key, each read from the module.
    const copied: Record<string, unknown> = {};
    for (const key in standIn) copied[key] = standIn[key];
    expect(Object.keys(copied)).toEqual(['fr', 'en']);
    expect(loads).toBe(1);
    // Without `esModule` the read goes to the module.
    expect((membersStandIn(() => ({}), false) as Record<string, unknown>).__esModule).toBeUndefined();
  });

  it("answers a functions stand-in's member as the package's own: calls, `new` and reads, loaded at the first use", () => {
    let loads = 0;
    class Agent {
      constructor(readonly proxy: string) {}
      static kind = 'socks';
    }
    const real = { Agent, version: () => '8.0.0' };
    const standIn = functionsStandIn(() => {
      loads += 1;
      return real;
    }) as typeof real;
    const { Agent: Deferred, version } = standIn;
    expect(standIn.Agent).toBe(Deferred);
    expect(loads).toBe(0);
    const made = new Deferred('socks5://proxy');
    expect(made).toBeInstanceOf(Agent);
    expect(made.proxy).toBe('socks5://proxy');
    expect(Deferred.kind).toBe('socks');
    expect(version()).toBe('8.0.0');
    expect(loads).toBe(1);
  });
});
