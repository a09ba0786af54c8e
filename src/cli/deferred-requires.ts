// Packages a dependency requires at its top level but calls only on demand, answered by a stand-in that loads them at
// their first use — through require's cache, a public API on every Node.js obflow runs on (Node.js's modules docs,
// `require.cache`: "Adding or replacing entries is also possible"): the cache holds, keyed by the file each package's
// require resolves to (`require.resolve` from the requiring file), an entry whose `exports` is the stand-in, so the
// CommonJS loader answers every require of that file with it and loads nothing. At the first use the stand-in takes
// its entry out and requires the file by its path: the same file, so the same module instance from then on, as the
// parent's require would have loaded at the start. Nothing of Node.js's private loader is touched (docs/notes.md, "the
// start without the loader patches"), and unlike module hooks it costs the modules that are not deferred nothing
// (docs/notes.md, "Deferred requires through require.cache").
//
// The table below names each package by the file that requires it; its shape says how that file reads it:
// - `namespaces`: postman-collection's dynamic variables (lib/superstring/dynamic-variables.js) require faker's English
//   locale (161 files) for `{{$randomCity}}`-style variables obflow's collections never use (`{{$guid}}` does not
//   touch faker), and read it only as `faker.<namespace>.<function>` (e.g. `generator: faker.address.city`, called
//   later as `generator()`): the stand-in answers each `<namespace>.<function>` with a function that loads faker and
//   calls faker's own with the same arguments.
// - `members`: the file reads the package as `package.member` inside its functions (http-signature's `signRequest` for
//   a request with that option, the auths' libraries, newman's v1 collection conversion): the first read, `in`,
//   write, call or `new` loads the package and is answered by it (the member read is the package's own value, the
//   same function); `callable members` for a package that is a function or a class (stream-length, form-data,
//   csv-parse, newman's CLI and progress reporters).
// - `functions`: the file takes a member at its top level (`var { SocksProxyAgent } = require(…)`) and calls or
//   `new`s it later: each member read is answered by a stand-in of that member, which loads the package at its use.
// - `namespaces` also serves `require('httpntlm').ntlm`, read later as `ntlm.<function>(…)`.
// - `es module`: `members` of a compiled ES module that TypeScript's interop takes whole at the require
//   (`__importStar(require(…))` reads `__esModule`, answered without loading; listing its keys loads it): zod's
//   locales.
// Keyed by file, the entry answers every file that requires that file, not only the table's parents: the test holds
// every require of a deferred file in the installed tree (obflow's own code included) to a row of the same shape.
// Installed by the command line's start only (src/cli/main.ts), never by a program that imports obflow;
// OBFLOW_DEFER_REQUIRES=0 leaves it out (for measuring it). test/unit/deferred-requires.test.ts holds each entry to
// the tree newman loads and every dynamic variable's value equal to faker's own.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ObflowError } from '../errors.js';

/** How the requiring file reads the package: see above. `members` of a package that is itself a function (called). */
type Shape = 'namespaces' | 'functions' | 'members' | 'callable members' | 'es module';

/** A package (`request`) as one dependency's file (`parent`, a path under node_modules, any copy) requires it. */
export interface Deferral {
  request: string;
  parent: string;
  shape: Shape;
}

/** Measured in a demo (docs/notes.md): each is the package's whole load, its dependencies included. */
export const DEFERRED: readonly Deferral[] = [
  { request: '@faker-js/faker/locale/en', parent: 'postman-collection/lib/superstring/dynamic-variables.js', shape: 'namespaces' },
  // postman-request (both copies newman loads): HTTP Signature auth and sshpk, a stream body's length with bluebird,
  // the HAR option's validator with its ajv, multipart bodies (form-data, its MIME database), AWS and OAuth 1.0
  // signing, proxies (the tunnel agent; SOCKS with socks, ip-address and debug).
  { request: 'http-signature', parent: 'postman-request/request.js', shape: 'members' },
  { request: 'stream-length', parent: 'postman-request/request.js', shape: 'callable members' },
  { request: 'aws4', parent: 'postman-request/request.js', shape: 'members' },
  { request: '@postman/form-data', parent: 'postman-request/request.js', shape: 'callable members' },
  { request: 'har-validator', parent: 'postman-request/lib/har.js', shape: 'members' },
  { request: 'oauth-sign', parent: 'postman-request/lib/oauth.js', shape: 'members' },
  { request: '@postman/tunnel-agent', parent: 'postman-request/lib/tunnel.js', shape: 'members' },
  { request: 'socks-proxy-agent', parent: 'postman-request/lib/socks.js', shape: 'functions' },
  // postman-runtime's ASAP and JWT auths (node-forge, its own jose), its NTLM, OAuth 1.0 and AWS Signature auths, and
  // its visualizer's Handlebars.
  { request: 'node-forge', parent: 'postman-runtime/lib/authorizer/asap.js', shape: 'members' },
  { request: 'jose', parent: 'postman-runtime/lib/authorizer/asap.js', shape: 'members' },
  { request: 'jose', parent: 'postman-runtime/lib/authorizer/jwt.js', shape: 'members' },
  { request: 'httpntlm', parent: 'postman-runtime/lib/authorizer/ntlm.js', shape: 'namespaces' },
  { request: 'node-oauth1', parent: 'postman-runtime/lib/authorizer/oauth1.js', shape: 'members' },
  { request: 'aws4', parent: 'postman-runtime/lib/authorizer/aws4.js', shape: 'members' },
  { request: 'handlebars', parent: 'postman-runtime/lib/visualizer/index.js', shape: 'members' },
  // newman's conversion of a v1 collection (obflow writes v2.1), iteration data from CSV and a file's encoding
  // (obflow passes neither), and the built-in reporters obflow never names (it reports through its own,
  // src/run/reporters/; newman's JUnit is the one it uses): the CLI's tables and colours, the progress bar.
  { request: 'postman-collection-transformer', parent: 'newman/lib/run/options.js', shape: 'members' },
  { request: 'csv-parse', parent: 'newman/lib/run/options.js', shape: 'callable members' },
  { request: 'chardet', parent: 'newman/lib/util.js', shape: 'members' },
  // postman-collection's collection versions (semver's 44 files; obflow's collections carry none).
  { request: 'semver', parent: 'postman-collection/lib/collection/version.js', shape: 'members' },
  // zod's translations of its messages (63 locales; `z.locales.<name>()`, which obflow never calls: its messages are
  // zod's English, which zod loads by itself, src/config/zod.ts). Every file of zod that requires them, loaded or not.
  { request: '../locales/index.cjs', parent: 'zod/v4/classic/external.cjs', shape: 'es module' },
  { request: '../locales/index.cjs', parent: 'zod/v4/core/index.cjs', shape: 'es module' },
  { request: '../locales/index.cjs', parent: 'zod/v4/mini/external.cjs', shape: 'es module' },
  { request: '../v4/locales/index.cjs', parent: 'zod/locales/index.cjs', shape: 'es module' },
  { request: '../reporters/cli', parent: 'newman/lib/run/index.js', shape: 'callable members' },
  { request: '../reporters/progress', parent: 'newman/lib/run/index.js', shape: 'callable members' },
];

/**
 * Where the table's parents are: obflow's own dependencies and newman's tree, each package of a chain resolved from the
 * one before it (obflow's own folder first). postman-runtime keeps copies of its own of postman-request, jose,
 * node-forge, http-signature and handlebars, so a parent is looked up from each: one row can name two copies
 * (postman-request/request.js).
 */
const TREE: readonly (readonly string[])[] = [[], ['newman'], ['newman', 'postman-runtime']];

/** The folder of the package a resolved file is in: up to its name after the last node_modules/ (undefined outside one). */
function packageFolder(file: string): string | undefined {
  const at = file.lastIndexOf(`${sep}node_modules${sep}`);
  if (at < 0) return undefined;
  const start = at + `${sep}node_modules${sep}`.length;
  const [first = '', second = ''] = file.slice(start).split(sep);
  return join(file.slice(0, start), first.startsWith('@') ? join(first, second) : first);
}

/** One file a stand-in answers for: the file the parents' require resolves to, how they read it, and who they are. */
export interface DeferredFile {
  file: string;
  shape: Shape;
  parents: string[];
}

/**
 * The files the table's requires resolve to in the tree obflow is installed in (`from`: a file of obflow's), through
 * `require.resolve` only (`table`: another table, for tests). A parent or package that is not installed is left out (nothing to defer); a file two rows
 * read in different shapes is left out too (loaded at the start): the test holds the table to neither happening.
 */
export function deferredFiles(from: string | URL = import.meta.url, table: readonly Deferral[] = DEFERRED): DeferredFile[] {
  const owners: string[] = [];
  for (const chain of TREE) {
    let owner = fileURLToPath(from);
    try {
      for (const name of chain) owner = createRequire(owner).resolve(`${name}/package.json`);
      owners.push(owner);
    } catch {
      // Not installed as expected: its rows find no parent from here.
    }
  }
  // A parent by its package's folder (the package's main resolved from the owner), then its path inside: a package's
  // `exports` may not list the parent file (zod's do not).
  const folders = new Map<string, string | undefined>();
  const folderOf = (owner: string, name: string): string | undefined => {
    const key = `${owner}\0${name}`;
    if (!folders.has(key)) {
      try {
        folders.set(key, packageFolder(createRequire(owner).resolve(name)));
      } catch {
        folders.set(key, undefined);
      }
    }
    return folders.get(key);
  };
  const files = new Map<string, DeferredFile | null>();
  for (const { request, parent, shape } of table) {
    const parts = parent.split('/');
    const name = parts.splice(0, parent.startsWith('@') ? 2 : 1).join('/');
    const parents = new Set<string>();
    for (const owner of owners) {
      const folder = folderOf(owner, name);
      const file = folder === undefined ? undefined : join(folder, ...parts);
      // This owner's tree has no such parent when it is not there.
      if (file !== undefined && existsSync(file)) parents.add(file);
    }
    for (const parentFile of parents) {
      let file: string;
      try {
        file = createRequire(parentFile).resolve(request);
      } catch {
        continue;
      }
      const known = files.get(file);
      if (known === undefined) files.set(file, { file, shape, parents: [parentFile] });
      else if (known !== null && known.shape === shape) known.parents.push(parentFile);
      else files.set(file, null);
    }
  }
  return [...files.values()].filter((entry): entry is DeferredFile => entry !== null);
}

/** What a start did: stand-ins in require's cache, or none (turned off). */
export type DeferredRequiresKind = 'require.cache' | 'none';

export interface DeferredRequireStats {
  /** Files whose entry in require's cache is a stand-in. */
  deferred: number;
  /** Stand-ins that loaded their file since (a first use). */
  loaded: number;
}

const stats: DeferredRequireStats = { deferred: 0, loaded: 0 };
let installed: DeferredRequiresKind | undefined;

/** What this process's deferrals did so far (for tests). */
export function deferredRequireStats(): DeferredRequireStats {
  return { ...stats };
}

/** OBFLOW_DEFER_REQUIRES: `1` (or unset) defers, `0` does not; anything else is refused. */
export function defersRequires(env: NodeJS.ProcessEnv): boolean {
  const wanted = env.OBFLOW_DEFER_REQUIRES;
  if (wanted === undefined || wanted === '1') return true;
  if (wanted === '0') return false;
  throw new ObflowError('ERR_CONFIG_INVALID', `OBFLOW_DEFER_REQUIRES=${wanted} is neither 0 nor 1`, {
    hint: 'Set OBFLOW_DEFER_REQUIRES=0 to load every package at the start, or unset it (1: packages used on demand load then).',
  });
}

/** An entry of require's cache as the CommonJS loader reads it: a loaded module's `exports`. */
interface CacheEntry {
  id: string;
  filename: string;
  loaded: boolean;
  exports: unknown;
  children: unknown[];
  paths: string[];
}

/** The stand-in of each shape, given the loader of its file. */
const STAND_INS: Record<Shape, (load: () => unknown) => unknown> = {
  namespaces: (load) => namespacesStandIn(load),
  functions: (load) => functionsStandIn(load),
  members: (load) => membersStandIn(load, false),
  'callable members': (load) => membersStandIn(load, true),
  'es module': (load) => membersStandIn(load, false, true),
};

/**
 * Puts a stand-in into require's cache for each file of the table (Node.js's modules docs, `require.cache`: "Adding
 * or replacing entries is also possible"), so every require of it returns the stand-in until its first use. At that
 * use the stand-in takes its entry out and requires the file: the real module, cached for every later require.
 * `runsCommand` false (a start that prints help or the version only): nothing is put there — none of the packages
 * loads then, and finding the files (~50 resolutions) would be all it did. OBFLOW_DEFER_REQUIRES is checked either
 * way. Installing twice is a no-op (the first answer is kept).
 */
export function installDeferredRequires(env: NodeJS.ProcessEnv = process.env, runsCommand = true): DeferredRequiresKind {
  if (installed !== undefined) return installed;
  if (!defersRequires(env) || !runsCommand) return (installed = 'none');
  const cache = createRequire(import.meta.url).cache as Record<string, CacheEntry | undefined>;
  for (const { file, shape } of deferredFiles()) {
    // Loaded already (by whoever imported obflow's start): nothing left to defer.
    if (cache[file] !== undefined) continue;
    const entry: CacheEntry = { id: file, filename: file, loaded: true, exports: undefined, children: [], paths: [] };
    const load = (): unknown => {
      if (cache[file] === entry) delete cache[file];
      stats.loaded += 1;
      return createRequire(file)(file);
    };
    entry.exports = STAND_INS[shape](load);
    cache[file] = entry;
    stats.deferred += 1;
  }
  return (installed = 'require.cache');
}

/**
 * The package's members, loaded at the first touch: reads, `in`, writes, listing its keys (a plain object's) and
 * (`callable`) calls and `new` go to the package itself. `esModule`: the package is a compiled ES module, and
 * TypeScript's interop reads its `__esModule` at the require (`__importStar`): answered `true` without loading it.
 */
export function membersStandIn(load: () => unknown, callable: boolean, esModule = false): object {
  let loaded: object | undefined;
  const target = (): object => (loaded ??= load() as object);
  const handler: ProxyHandler<object> = {
    get: (_target, key) => (esModule && key === '__esModule' ? true : Reflect.get(target(), key)),
    has: (_target, key) => Reflect.has(target(), key),
    set: (_target, key, value) => Reflect.set(target(), key, value),
    ...(callable
      ? {
          apply: (_target, self, args: unknown[]) => Reflect.apply(target() as (...args: unknown[]) => unknown, self, args),
          construct: (_target, args: unknown[]) => Reflect.construct(target() as new (...args: unknown[]) => object, args),
        }
      : {
          // A proxy may list keys its (empty, extensible) target lacks only as configurable ones.
          ownKeys: () => Reflect.ownKeys(target()),
          getOwnPropertyDescriptor: (_target, key) => {
            const found = Reflect.getOwnPropertyDescriptor(target(), key);
            return found === undefined ? undefined : { ...found, configurable: true };
          },
        }),
  };
  // A function target for a package that is one (so typeof and calls match), else a plain object.
  return new Proxy(callable ? function deferred() {} : {}, handler);
}

/** A package read as namespaces of functions. */
type Namespaces = Record<string, Record<string, (...args: unknown[]) => unknown>>;

/**
 * `<namespace>.<name>` → a function calling the package's own (the same function for the same name).
 */
export function namespacesStandIn(load: () => unknown): Namespaces {
  let loaded: Namespaces | undefined;
  const target = (): Namespaces => (loaded ??= load() as Namespaces);
  const namespaces = new Map<string, Record<string, (...args: unknown[]) => unknown>>();
  const namespaceOf = (namespace: string) => {
    const functions = new Map<string, (...args: unknown[]) => unknown>();
    return new Proxy(Object.create(null) as Record<string, (...args: unknown[]) => unknown>, {
      get: (_target, name) => {
        if (typeof name !== 'string') return undefined;
        let call = functions.get(name);
        if (call === undefined) {
          call = (...args: unknown[]) => target()[namespace]![name]!(...args);
          functions.set(name, call);
        }
        return call;
      },
    });
  };
  return new Proxy(Object.create(null) as Namespaces, {
    get: (_target, namespace) => {
      if (typeof namespace !== 'string') return undefined;
      let functions = namespaces.get(namespace);
      if (functions === undefined) {
        functions = namespaceOf(namespace);
        namespaces.set(namespace, functions);
      }
      return functions;
    },
  });
}

/**
 * `<name>` → a function standing in for the package's own `<name>` (a class or a function): calls, `new` and member
 * reads load the package and go to it (the same stand-in for the same name).
 */
export function functionsStandIn(load: () => unknown): Record<string, unknown> {
  let loaded: Record<string, unknown> | undefined;
  const target = (): Record<string, unknown> => (loaded ??= load() as Record<string, unknown>);
  const functions = new Map<string, object>();
  return new Proxy(Object.create(null) as Record<string, unknown>, {
    get: (_target, name) => {
      if (typeof name !== 'string') return undefined;
      let standIn = functions.get(name);
      if (standIn === undefined) {
        standIn = membersStandIn(() => target()[name], true);
        functions.set(name, standIn);
      }
      return standIn;
    },
  });
}
