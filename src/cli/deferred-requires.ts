// Packages a dependency requires at its top level but calls only on demand, given a stand-in that loads them at the
// first call (issue 34). postman-collection (newman's) requires faker's English locale at the top of its dynamic
// variables (lib/superstring/dynamic-variables.js): 161 files, ~23 ms of every run's start, for `{{$randomCity}}`-style
// variables that obflow's collections never use (`{{$guid}}` does not touch faker). That module reads faker only as
// `faker.<namespace>.<function>` (118 of them, e.g. `generator: faker.address.city`, then called as `generator()`), so
// its stand-in answers each `<namespace>.<function>` with a function that loads faker (Node.js's own require, from the
// same parent) and calls faker's own with the same arguments. A collection that uses one loads faker then, at its first
// use, as it would have at the start. Installed on every Node.js by the command line's start (src/cli/main.ts), never by
// a program that imports obflow; test/unit/deferred-requires.test.ts holds every dynamic variable's value equal to
// faker's own, so a postman-collection that reads faker another way fails there, not in a run.

import Module from 'node:module';
import { sep } from 'node:path';

/** A package (`request`) as one dependency's file (`parent`, a path under node_modules) requires it. */
interface Deferral {
  request: string;
  parent: string;
}

const DEFERRED: readonly Deferral[] = [
  { request: '@faker-js/faker/locale/en', parent: 'postman-collection/lib/superstring/dynamic-variables.js' },
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
  const suffixes = DEFERRED.map((deferral) => ({ ...deferral, suffix: `${sep}node_modules${sep}${deferral.parent.split('/').join(sep)}` }));
  const load: Load = function load(this: unknown, request, parent, isMain) {
    const filename = parent?.filename;
    const deferral =
      typeof filename === 'string' ? suffixes.find((entry) => entry.request === request && filename.endsWith(entry.suffix)) : undefined;
    if (deferral === undefined) return original.call(this, request, parent, isMain);
    stats.deferred += 1;
    let loaded: Namespaces | undefined;
    return standIn(() => {
      if (loaded === undefined) {
        loaded = original.call(this, request, parent, isMain) as Namespaces;
        stats.loaded += 1;
      }
      return loaded;
    });
  };
  try {
    modules._load = load;
  } catch {
    // A Node.js whose loader cannot be wrapped: faker loads at the start, as without obflow.
  }
}

/** `<namespace>.<name>` → a function calling the package's own (the same function for the same name). */
function standIn(load: () => Namespaces): Namespaces {
  const namespaces = new Map<string, Record<string, (...args: unknown[]) => unknown>>();
  const namespaceOf = (namespace: string) => {
    const functions = new Map<string, (...args: unknown[]) => unknown>();
    return new Proxy(Object.create(null) as Record<string, (...args: unknown[]) => unknown>, {
      get: (_target, name) => {
        if (typeof name !== 'string') return undefined;
        let call = functions.get(name);
        if (call === undefined) {
          call = (...args: unknown[]) => load()[namespace]![name]!(...args);
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
