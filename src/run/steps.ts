// What a run is given (src/run/runner.ts): its steps — collections newman runs, or local actions between them (browser
// consent, the id_token checks) that return environment updates and the checks they made — and its options.

import type { PostmanEnvironment } from '../environment/merge.js';
import type { TransportMaterial } from '../pki/load.js';
import type { SslClientCert } from './certificates.js';
import type { RunSubscriber, RunTargetInfo, VersionPage } from './events.js';
import type { ReporterName } from './reporters/names.js';

/** One rule a local step checked (e.g. an id_token claim): an assertion of the step's result. */
export interface LocalCheck {
  rule: string;
  passed: boolean;
  /** Why it failed ('' when it passed); never a secret. */
  message: string;
}

/** What a local step returns: environment updates, or updates plus the checks it made — or, when it had nothing to
 *  check (no id_token with response_type code), why it was skipped. */
export type LocalOutcome =
  Readonly<Record<string, string>> | { values: Readonly<Record<string, string>>; checks: readonly LocalCheck[]; skipped?: string };

/** A step is a collection newman runs, or a local action (e.g. browser consent, id_token verification) that returns
 *  environment updates and, optionally, the checks it made. */
export type RunStep =
  | { name: string; collection: object }
  | {
      name: string;
      local: (environment: PostmanEnvironment) => Promise<LocalOutcome>;
      /** Reads the environment and writes nothing (the id_token checks): after a collection step it runs inside the
       *  same newman run — the run pauses where it stands, the step checks the environment the scripts left, and the
       *  run resumes, or stops when a check failed and the run bails (src/run/runner.ts). */
      observe?: boolean;
    };

export function splitOutcome(outcome: LocalOutcome): {
  values: Readonly<Record<string, string>>;
  checks: readonly LocalCheck[];
  skipped?: string;
} {
  return 'checks' in outcome && Array.isArray(outcome.checks) && typeof outcome.values === 'object'
    ? (outcome as { values: Readonly<Record<string, string>>; checks: readonly LocalCheck[]; skipped?: string })
    : { values: outcome as Readonly<Record<string, string>>, checks: [] };
}

export interface RunStepsInput {
  steps: readonly RunStep[];
  environment: PostmanEnvironment;
  /** Pinned working directory: newman reads `./.newmanrc` from the process cwd, so obflow runs from here. */
  cwd: string;
  sslClientCertList: readonly SslClientCert[];
  /** PEM file of the target's CA: the bank's server certificate is verified against it (newman `sslExtraCaCerts`). */
  sslExtraCaCerts?: string;
  /** Skip server certificate verification (the spec allows it for the bank's self-signed sandbox, §5.1). */
  insecure?: boolean;
  /** Reporters by name (src/run/reporters/index.ts); default cli + junit. */
  reporters?: readonly ReporterName[];
  /** Subscribers that get each event before the named reporters: a terminal's live line (src/run/subscribers/
   *  live-line.ts) erases itself before the cli reporter prints the step's line. */
  first?: readonly RunSubscriber[];
  /** More subscribers to the run's events, after the named reporters (a test's, an embedding tool's). */
  subscribers?: readonly RunSubscriber[];
  /** Where report files go (junit: one per batch of steps; json: one per run); default `<cwd>/reports`. */
  reportDir?: string;
  /** Keys that are secrets by contract (kept typed `secret` through the chain and redacted from reports). */
  secretKeys?: ReadonlySet<string> | readonly string[];
  /** Stop after the first failing step (later steps read its state). Default true. */
  bail?: boolean;
  /** Where the cli reporter's lines go; default process.stdout. */
  log?: (line: string) => void;
  /** The cli reporter prints every request and check, not only a line per step. */
  verbose?: boolean;
  /** Per-request timeout (ms); default 30 000 so a silent server cannot hang a run forever. */
  timeoutRequest?: number;
  /** Check the certificate files and that every bank URL the collections name gets a certificate, before any
   *  request (default true; only tests that prove newman's silent behaviour turn it off). */
  preflight?: boolean;
  /** The transport material the caller already holds (the session's): the preflight uses it for the entries that
   *  name its files instead of reading them again. */
  transportMaterial?: TransportMaterial;
  /** Who the run talks to, for the `start` event (reports name it). */
  target?: RunTargetInfo;
  /** Clock of the events' timestamps. */
  now?: () => Date;
  /** Keep the parsed bodies of the transaction pages (RunResult.executions): a run over two API versions adds up
   *  each account's transactions to compare them (src/run/reporters/compare-versions.ts). Off by default: a transaction
   *  page is then neither parsed twice nor held for the run. */
  keepTransactionBodies?: boolean;
  /** A leg of a run over several API versions: what its page says of the comparison (ReporterContext.versionPage). */
  versionPage?: VersionPage;
}
