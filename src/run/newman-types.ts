// newman's untyped surface as obflow uses it, written once (STYLE.md: untyped dependencies get one typed adapter):
// the options obflow sets on `newman.run`, the summary it reads, and the emitter events it listens to. Only
// src/run/newman-adapter.ts reads these; the rest of the runner speaks src/run/events.ts.

import type { Agent } from 'node:https';
import type { SslClientCert } from './certificates.js';

/** The subset of newman.run's options obflow sets (the published types lack sslClientCertList/sslExtraCaCerts). */
export interface NewmanOptions {
  collection: object;
  environment: object;
  globals: object;
  workingDir: string;
  insecureFileRead: boolean;
  reporters: string[];
  reporter: Record<string, unknown>;
  insecure: boolean;
  sslClientCertList: SslClientCert[];
  sslClientCert: string;
  sslClientKey: string;
  sslClientPassphrase: string;
  sslExtraCaCerts?: string;
  requestAgents?: { https: Agent };
  ignoreRedirects: boolean;
  bail: boolean;
  delayRequest: number;
  timeoutRequest: number;
  suppressExitCode: boolean;
  color: 'on' | 'off' | 'auto';
  iterationCount: number;
}

/** One entry of a VariableScope's JSON (`summary.environment.toJSON().values`). */
export interface NewmanVariableJson {
  key?: unknown;
  value?: unknown;
  type?: unknown;
  disabled?: unknown;
}

export interface NewmanSummary {
  environment: { toJSON(): { values?: NewmanVariableJson[] } };
  run: {
    stats: { requests: { total?: number }; assertions: { total?: number; failed?: number } };
    failures: { error?: { message?: string; test?: string; name?: string }; source?: { name?: string } }[];
  };
}

/** An item as the events hand it out (the `request` event gives a copy without its parent). */
export type NewmanItem = { name?: string; parent?: () => { name?: string } | undefined } | undefined;

/** A variable of a script's environment as postman-runtime hands it: an sdk Variable (or its JSON). */
export interface NewmanScopeVariable {
  key?: unknown;
  value?: unknown;
}

interface NewmanUrl {
  toString(): string;
}

/** postman-runtime's run as newman's `start` event hands it out (control.command.js: pause, resume, abort). */
export interface NewmanRuntimeRun {
  /** Pauses before the next instruction; the callback runs once the run is paused. */
  pause(callback: () => void): void;
  resume(): void;
  abort(): void;
}

/** The `(error, args)` pairs of the emitter events obflow listens to. */
export interface NewmanEventArgs {
  start: [error: unknown, args: { run?: NewmanRuntimeRun } | undefined];
  beforeItem: [error: unknown, args: { item?: NewmanItem }];
  item: [error: unknown, args: { item?: NewmanItem }];
  beforeRequest: [error: unknown, args: { request?: { url?: NewmanUrl } }];
  request: [
    error: { message?: string; code?: unknown; cause?: unknown } | null | undefined,
    args: {
      item?: NewmanItem;
      request?: { method?: string; url?: NewmanUrl };
      response?: { code?: number; status?: string; responseTime?: number; responseSize?: number; stream?: Buffer };
    },
  ];
  assertion: [error: { message?: string } | null | undefined, args: { item?: NewmanItem; assertion?: string; skipped?: boolean }];
  script: [error: { message?: string; name?: string } | null | undefined, args: { item?: NewmanItem; event?: { listen?: string } }];
  prerequest: [error: unknown, args: { executions?: { result?: { environment?: unknown } }[] }];
  test: [error: unknown, args: { executions?: { result?: { environment?: unknown } }[] }];
  console: [error: unknown, args: { level?: string; messages?: unknown[] }];
}

export interface NewmanEmitter {
  on<E extends keyof NewmanEventArgs>(event: E, listener: (...args: NewmanEventArgs[E]) => void): this;
  /** newman's run summary, set before the run starts; its environment is the run's, updated in place. */
  summary?: NewmanSummary;
}

export type NewmanRun = (options: NewmanOptions, callback: (error: Error | null, summary: NewmanSummary) => void) => NewmanEmitter;

/** newman's SecureFS: postman-runtime reads certificate files through its prototype's readFile (node:fs's). */
export interface NewmanFileResolver {
  prototype: { readFile(this: unknown, path: unknown, ...rest: unknown[]): void };
}
