// Packages a dependency requires at its top level but calls only on demand, answered by a stand-in that loads them at
// their first use — through Node.js's public module hooks, `module.registerHooks` (synchronous, in the loading thread;
// Node.js ≥ 22.15 and 23.5; Node.js's module docs, "Customization Hooks": stability 1.2, release candidate, in the
// Node.js 26 docs; no warning on the pinned 24.21 and 26.10). Where the runtime has no `module.registerHooks`
// (Node.js 20, past its end of life; 22.0–22.14) nothing is installed and every package loads at the start, as it
// would without obflow: obflow patches none of Node.js's private loader (docs/notes.md, "the start without the loader
// patches", and "Deferred requires through module.registerHooks").
//
// The table below names each package by the file that requires it; its shape says how that file reads it:
// - `namespaces`: postman-collection's dynamic variables (lib/superstring/dynamic-variables.js) require faker's English
//   locale (161 files) for `{{$randomCity}}`-style variables obflow's collections never use (`{{$guid}}` does not
//   touch faker), and read it only as `faker.<namespace>.<function>` (e.g. `generator: faker.address.city`, called
//   later as `generator()`): the stand-in answers each `<namespace>.<function>` with a function that loads faker and
//   calls faker's own with the same arguments.
// - `members`: the file reads the package as `package.member` inside its functions (http-signature's `signRequest` for
//   a request with that option, postman-runtime's ASAP and JWT auths and its visualizer, newman's v1 collection
//   conversion): the first read, `in`, write, call or `new` loads the package and is answered by it (the member read
//   is the package's own value, the same function); `callable members` for a package that is a function
//   (stream-length).
// How: the resolve hook resolves a deferred (request, parent) pair as Node.js would (the next hook), and answers a URL
// of its own naming that file; the load hook answers that URL with a small CommonJS module, the stand-in, which
// requires the resolved file by its path at the first use — the same file, so the same module instance, as the
// parent's require would have loaded at the start. Node.js's CommonJS loader keeps a resolution per (folder of the
// requiring file, request), so a file beside a parent that requires the same package gets the stand-in too: the test
// holds every such file in newman's tree to a row of the same shape.
// Installed by the command line's start only (src/cli/main.ts), never by a program that imports obflow;
// OBFLOW_DEFER_REQUIRES=0 leaves it out (for measuring it). test/unit/deferred-requires.test.ts holds each entry to
// the tree newman loads and every dynamic variable's value equal to faker's own.

import module from 'node:module';
import { fileURLToPath } from 'node:url';
import { ObflowError } from '../errors.js';

/** How the requiring file reads the package: see above. `members` of a package that is itself a function (called). */
type Shape = 'namespaces' | 'members' | 'callable members';

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
  // the HAR option's validator with its ajv.
  { request: 'http-signature', parent: 'postman-request/request.js', shape: 'members' },
  { request: 'stream-length', parent: 'postman-request/request.js', shape: 'callable members' },
  { request: 'har-validator', parent: 'postman-request/lib/har.js', shape: 'members' },
  // postman-runtime's ASAP and JWT auths (node-forge, its own jose) and its visualizer's Handlebars.
  { request: 'node-forge', parent: 'postman-runtime/lib/authorizer/asap.js', shape: 'members' },
  { request: 'jose', parent: 'postman-runtime/lib/authorizer/asap.js', shape: 'members' },
  { request: 'jose', parent: 'postman-runtime/lib/authorizer/jwt.js', shape: 'members' },
  { request: 'handlebars', parent: 'postman-runtime/lib/visualizer/index.js', shape: 'members' },
  // newman's conversion of a v1 collection (obflow writes v2.1).
  { request: 'postman-collection-transformer', parent: 'newman/lib/run/options.js', shape: 'members' },
];

/** The parts of `module.registerHooks` used here (Node.js's "Customization Hooks": resolve and load hooks). */
interface ResolveContext {
  parentURL?: string | undefined;
}
interface Resolved {
  url: string;
  format?: string | null | undefined;
  shortCircuit?: boolean;
}
interface Loaded {
  format?: string | null | undefined;
  source?: string | ArrayBuffer | NodeJS.TypedArray | null | undefined;
  shortCircuit?: boolean;
}
type ResolveHook = (
  specifier: string,
  context: ResolveContext,
  nextResolve: (specifier: string, context?: ResolveContext) => Resolved,
) => Resolved;
type LoadHook = (url: string, context: object, nextLoad: (url: string, context?: object) => Loaded) => Loaded;
type RegisterHooks = (hooks: { resolve: ResolveHook; load: LoadHook }) => { deregister(): void };

/** What a start did: hooks installed, or none (turned off, or a Node.js without `module.registerHooks`). */
export type DeferredRequiresKind = 'hooks' | 'none';

export interface DeferredRequireStats {
  /** Requires answered with a stand-in. */
  deferred: number;
  /** Deferred packages' files loaded since (a first use). */
  loaded: number;
}

/** The stand-ins' URLs: `obflow-deferred:stand-in?shape=…&url=<the file the parent's require resolves to>`. */
const STAND_IN_URL = 'obflow-deferred:stand-in';

const stats: DeferredRequireStats = { deferred: 0, loaded: 0 };
let installed: DeferredRequiresKind | undefined;

/** What this process's deferrals did so far (for tests). */
export function deferredRequireStats(): DeferredRequireStats {
  return { ...stats };
}

/** OBFLOW_DEFER_REQUIRES: `1` (or unset) defers where the runtime can, `0` does not; anything else is refused. */
export function defersRequires(env: NodeJS.ProcessEnv): boolean {
  const wanted = env.OBFLOW_DEFER_REQUIRES;
  if (wanted === undefined || wanted === '1') return true;
  if (wanted === '0') return false;
  throw new ObflowError('ERR_CONFIG_INVALID', `OBFLOW_DEFER_REQUIRES=${wanted} is neither 0 nor 1`, {
    hint: 'Set OBFLOW_DEFER_REQUIRES=0 to load every package at the start, or unset it (1: packages used on demand load then).',
  });
}

/**
 * Answers the requires of the table with their stand-ins from now on, where Node.js offers `module.registerHooks`.
 * Installing twice is a no-op (the first answer is kept).
 */
export function installDeferredRequires(
  env: NodeJS.ProcessEnv = process.env,
  // null: the runtime has none (tests pass it to play a Node.js without the API).
  registerHooks: RegisterHooks | null = (module as unknown as { registerHooks?: RegisterHooks }).registerHooks ?? null,
): DeferredRequiresKind {
  if (installed !== undefined) return installed;
  if (!defersRequires(env) || typeof registerHooks !== 'function') return (installed = 'none');
  // By request first: every resolution of the process passes here, and almost none names a deferred package.
  const byRequest = new Map<string, { suffix: string; shape: Shape }[]>();
  for (const { request, parent, shape } of DEFERRED) {
    byRequest.set(request, [...(byRequest.get(request) ?? []), { suffix: `/node_modules/${parent}`, shape }]);
  }
  /** The files stand-ins were given for, to count their loads. */
  const deferredFiles = new Set<string>();
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const candidates = byRequest.get(specifier);
      const parent = context.parentURL;
      const deferral =
        candidates !== undefined && parent !== undefined ? candidates.find((entry) => parent.endsWith(entry.suffix)) : undefined;
      if (deferral === undefined) return nextResolve(specifier, context);
      const resolved = nextResolve(specifier, context);
      if (!resolved.url.startsWith('file:')) return resolved;
      stats.deferred += 1;
      deferredFiles.add(resolved.url);
      const query = new URLSearchParams({ shape: deferral.shape, url: resolved.url });
      return { url: `${STAND_IN_URL}?${query.toString()}`, format: 'commonjs', shortCircuit: true };
    },
    load(url, context, nextLoad) {
      if (url.startsWith(`${STAND_IN_URL}?`)) {
        const query = new URLSearchParams(url.slice(STAND_IN_URL.length + 1));
        return {
          format: 'commonjs',
          source: standInSource(query.get('shape') as Shape, fileURLToPath(query.get('url') ?? '')),
          shortCircuit: true,
        };
      }
      if (deferredFiles.has(url)) stats.loaded += 1;
      return nextLoad(url, context);
    },
  });
  return (installed = 'hooks');
}

/**
 * The stand-in module's CommonJS source: the function below that makes it, by its own text (the load hook answers
 * source, not an object; each closes over nothing), given a loader that requires the resolved file by its path.
 */
export function standInSource(shape: Shape, file: string): string {
  const load = `() => require(${JSON.stringify(file)})`;
  return shape === 'namespaces'
    ? `module.exports = (${namespacesStandIn.toString()})(${load});\n`
    : `module.exports = (${membersStandIn.toString()})(${load}, ${shape === 'callable members'});\n`;
}

/**
 * The package's members, loaded at the first touch: reads, `in`, writes and (`callable`) calls and `new` go to the
 * package itself. Nothing obflow defers enumerates the package it requires, so the stand-in lists no keys of its own.
 * Closes over nothing: standInSource writes its text into the stand-in module.
 */
export function membersStandIn(load: () => unknown, callable: boolean): object {
  let loaded: object | undefined;
  const target = (): object => (loaded ??= load() as object);
  const handler: ProxyHandler<object> = {
    get: (_target, key) => Reflect.get(target(), key),
    has: (_target, key) => Reflect.has(target(), key),
    set: (_target, key, value) => Reflect.set(target(), key, value),
    ...(callable
      ? {
          apply: (_target, self, args: unknown[]) => Reflect.apply(target() as (...args: unknown[]) => unknown, self, args),
          construct: (_target, args: unknown[]) => Reflect.construct(target() as new (...args: unknown[]) => object, args),
        }
      : {}),
  };
  // A function target for a package that is one (so typeof and calls match), else a plain object.
  return new Proxy(callable ? function deferred() {} : {}, handler);
}

/** A package read as namespaces of functions. */
type Namespaces = Record<string, Record<string, (...args: unknown[]) => unknown>>;

/**
 * `<namespace>.<name>` → a function calling the package's own (the same function for the same name).
 * Closes over nothing: standInSource writes its text into the stand-in module.
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
