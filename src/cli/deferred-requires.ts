// Packages a dependency requires at its top level but calls only on demand, given a stand-in that loads them at the
// first use (issue 34). The table below names each by the file that requires it; its shape says how that file reads it:
// - `namespaces`: postman-collection's dynamic variables (lib/superstring/dynamic-variables.js) require faker's English
//   locale (161 files, ~23 ms of every run's start) for `{{$randomCity}}`-style variables obflow's collections never
//   use (`{{$guid}}` does not touch faker), and read it only as `faker.<namespace>.<function>` (118 of them, e.g.
//   `generator: faker.address.city`, called later as `generator()`): the stand-in answers each `<namespace>.<function>`
//   with a function that loads faker and calls faker's own with the same arguments.
// - `members`: the file reads the package as `package.member` inside its functions (http-signature's `signRequest` for
//   a request with that option, postman-runtime's ASAP and JWT auths and its visualizer, newman's v1 collection
//   conversion): the first read, `in`, write, call or `new` loads the package and is answered by it (the member read
//   is the package's own value, the same function); `callable members` for a package that is a function
//   (stream-length). A member read at the file's top level loads the package there, as without the stand-in.
// Each loads through Node.js's own require from the same parent, so a use loads the package then, as it would have at
// the start. Installed on every Node.js by the command line's start (src/cli/main.ts), never by a program that imports
// obflow. test/unit/deferred-requires.test.ts holds each entry to the tree newman loads (the package is required there
// without the stand-in, and none of it loads with it) and every dynamic variable's value equal to faker's own.

import Module from 'node:module';
import { sep } from 'node:path';

/** How the requiring file reads the package: see above. `members` of a package that is itself a function (called). */
type Shape = 'namespaces' | 'members' | 'callable members';

/** A package (`request`) as one dependency's file (`parent`, a path under node_modules, any copy) requires it. */
export interface Deferral {
  request: string;
  parent: string;
  shape: Shape;
}

/** Measured in a demo (in-process, with the code caches): each is the package's whole load, its dependencies included. */
export const DEFERRED: readonly Deferral[] = [
  { request: '@faker-js/faker/locale/en', parent: 'postman-collection/lib/superstring/dynamic-variables.js', shape: 'namespaces' },
  // postman-request (both copies newman loads): HTTP Signature auth and sshpk (~20 ms), a stream body's length with
  // bluebird (~20 ms), the HAR option's validator with its ajv (~15 ms).
  { request: 'http-signature', parent: 'postman-request/request.js', shape: 'members' },
  { request: 'stream-length', parent: 'postman-request/request.js', shape: 'callable members' },
  { request: 'har-validator', parent: 'postman-request/lib/har.js', shape: 'members' },
  // postman-runtime's ASAP and JWT auths (node-forge ~18 ms, its own jose ~20 ms) and its visualizer's Handlebars.
  { request: 'node-forge', parent: 'postman-runtime/lib/authorizer/asap.js', shape: 'members' },
  { request: 'jose', parent: 'postman-runtime/lib/authorizer/asap.js', shape: 'members' },
  { request: 'jose', parent: 'postman-runtime/lib/authorizer/jwt.js', shape: 'members' },
  { request: 'handlebars', parent: 'postman-runtime/lib/visualizer/index.js', shape: 'members' },
  // newman's conversion of a v1 collection (obflow writes v2.1).
  { request: 'postman-collection-transformer', parent: 'newman/lib/run/options.js', shape: 'members' },
];

type Load = (request: string, parent: { filename?: string | null } | null | undefined, isMain: boolean) => unknown;

/** A package read as namespaces of functions. */
type Namespaces = Record<string, Record<string, (...args: unknown[]) => unknown>>;

export interface DeferredRequireStats {
  /** Requires answered with a stand-in. */
  deferred: number;
  /** Stand-ins that loaded their package (a first call). */
  loaded: number;
}

const stats: DeferredRequireStats = { deferred: 0, loaded: 0 };
let installed = false;

/** What this process's deferrals did so far (for tests). */
export function deferredRequireStats(): DeferredRequireStats {
  return { ...stats };
}

/** Answers the requires above with their stand-ins from now on. Installing twice is a no-op. */
export function installDeferredRequires(): void {
  if (installed) return;
  installed = true;
  const modules = Module as unknown as { _load: Load };
  const original = modules._load;
  if (typeof original !== 'function') return;
  // By request first: every require of the process passes here, and almost none names a deferred package.
  const byRequest = new Map<string, (Deferral & { suffix: string })[]>();
  for (const deferral of DEFERRED) {
    const suffix = `${sep}node_modules${sep}${deferral.parent.split('/').join(sep)}`;
    byRequest.set(deferral.request, [...(byRequest.get(deferral.request) ?? []), { ...deferral, suffix }]);
  }
  const load: Load = function load(this: unknown, request, parent, isMain) {
    const candidates = byRequest.get(request);
    const filename = parent?.filename;
    const deferral =
      candidates !== undefined && typeof filename === 'string' ? candidates.find((entry) => filename.endsWith(entry.suffix)) : undefined;
    if (deferral === undefined) return original.call(this, request, parent, isMain);
    stats.deferred += 1;
    // Each stand-in calls this once, at its first use.
    const loadPackage = (): unknown => {
      stats.loaded += 1;
      return original.call(this, request, parent, isMain);
    };
    return deferral.shape === 'namespaces'
      ? namespacesStandIn(loadPackage as () => Namespaces)
      : membersStandIn(loadPackage, deferral.shape === 'callable members');
  };
  try {
    modules._load = load;
  } catch {
    // A Node.js whose loader cannot be wrapped: every package loads at the start, as without obflow.
  }
}

/**
 * The package's members, loaded at the first touch: reads, `in`, writes and (`callable`) calls and `new` go to the
 * package itself. Nothing obflow defers enumerates the package it requires, so the stand-in lists no keys of its own.
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

/** `<namespace>.<name>` → a function calling the package's own (the same function for the same name). */
function namespacesStandIn(load: () => Namespaces): Namespaces {
  let loaded: Namespaces | undefined;
  const target = (): Namespaces => (loaded ??= load());
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
