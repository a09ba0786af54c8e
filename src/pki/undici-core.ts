// The part of undici obflow's own requests use — an Agent (the mutual-TLS dispatcher, src/pki/tls.ts) and `request`
// (src/bank/http.ts) — loaded without undici's index. The index loads all of undici as one (fetch, WebSocket,
// EventSource, the cache and mock layers, the interceptors: ~110 files, ~60 ms of a start even from the code cache);
// these two need ~30 files (~20 ms). `npm start` makes a few requests of its own (registration, the
// environment helper, discovery) before newman makes the rest.
//
// The two modules are undici's own files (undici has no `exports` map: its files are reachable by path). A version
// that moves them falls back to the index, which has both; test/unit/undici-core.test.ts says which one this
// installation uses, so a move shows as a failed test, not as a slower start.

import { createRequire } from 'node:module';
import type * as Undici from 'undici';
import type { Dispatcher } from 'undici';

/** What obflow's own requests take: an Agent, and one request over a dispatcher (undici's `request(url, options)`). */
export interface UndiciCore {
  Agent: typeof Undici.Agent;
  request(url: string, options: RequestOptions): Promise<Dispatcher.ResponseData>;
  /** `core`: undici's two files; `index`: the whole package (the files were not where undici 7 keeps them). */
  loadedFrom: 'core' | 'index';
}

export interface RequestOptions {
  method: Dispatcher.HttpMethod;
  dispatcher: Dispatcher;
  headers: Record<string, string>;
  body?: string;
}

/** undici's request API: `request.call(dispatcher, { origin, path, method, … })` (lib/api/api-request.js). */
type DispatcherRequest = (this: Dispatcher, options: Dispatcher.RequestOptions) => Promise<Dispatcher.ResponseData>;

let loaded: UndiciCore | undefined;

/** undici's Agent and request, once per process, at the first call (a command that never calls the bank loads none). */
export function loadUndiciCore(): UndiciCore {
  loaded ??= fromCoreFiles() ?? fromIndex();
  return loaded;
}

function fromCoreFiles(): UndiciCore | undefined {
  const require = createRequire(import.meta.url);
  let Agent: typeof Undici.Agent;
  let dispatcherRequest: DispatcherRequest;
  try {
    Agent = require('undici/lib/dispatcher/agent.js') as typeof Undici.Agent;
    dispatcherRequest = (require('undici/lib/api/index.js') as { request: DispatcherRequest }).request;
  } catch {
    return undefined;
  }
  if (typeof Agent !== 'function' || typeof dispatcherRequest !== 'function') return undefined;
  return {
    Agent,
    // What undici's index does with a URL (index.js makeDispatcher): origin, and path with its query.
    request: (url, options) => {
      const target = new URL(url);
      const { dispatcher, ...rest } = options;
      return dispatcherRequest.call(dispatcher, {
        ...rest,
        origin: target.origin,
        path: target.search ? `${target.pathname}${target.search}` : target.pathname,
      });
    },
    loadedFrom: 'core',
  };
}

function fromIndex(): UndiciCore {
  const undici = createRequire(import.meta.url)('undici') as typeof Undici;
  return {
    Agent: undici.Agent,
    request: (url, options) => undici.request(url, options),
    loadedFrom: 'index',
  };
}
