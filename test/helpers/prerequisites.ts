// What some tests need from outside the repository, in one place: the official specification files (OBFLOW_SPECS_DIR,
// default <repo>/../shared/specs), Debian's Chromium, and the openssl and unzip commands. Where one is missing, the tests that need it are reported as
// skipped with the reason (test/reporters/skip-reasons.ts prints them grouped at the end of the run); every other test
// still runs. OBFLOW_REQUIRE_PREREQUISITES=1 (set by .ci/run) turns a missing prerequisite into a failure instead, so
// CI cannot go green with tests silently skipped. See README, "Two commands", and docs/ci.md.

import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, onTestFinished, TestRunner, type SuiteFactory } from 'vitest';

declare module 'vitest' {
  interface TaskMeta {
    /** Why a test was skipped: the missing prerequisite (read by test/reporters/skip-reasons.ts and the JSON report). */
    skipReason?: string;
    /** The id of that prerequisite (tools/check-skipped.js lets CI allow some by id). */
    skipPrerequisite?: string;
  }
}

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Set by CI: a missing prerequisite fails the tests that need it instead of skipping them. `1` or `all` (.ci/run)
 * requires every prerequisite; a comma-separated list of ids (`chromium`, `specs`) only those.
 */
export const REQUIRE_ENV = 'OBFLOW_REQUIRE_PREREQUISITES';

export function required(prerequisite: Prerequisite): boolean {
  const value = (process.env[REQUIRE_ENV] ?? '').trim();
  if (value === '1' || value === 'all') return true;
  return value
    .split(',')
    .map((id) => id.trim())
    .includes(prerequisite.id);
}

export interface Prerequisite {
  /** What OBFLOW_REQUIRE_PREREQUISITES names it by (`runtime`: test/helpers/runtimes.ts). */
  readonly id: 'specs' | 'chromium' | 'openssl' | 'unzip' | 'runtime';
  /** What is needed, e.g. "the OBIE specification files". */
  readonly what: string;
  /** Undefined when present; otherwise why it is missing and how to provide it (the skip reason). */
  readonly missing: string | undefined;
}

/** The one-line skip reason of a missing prerequisite (also the error message under OBFLOW_REQUIRE_PREREQUISITES). */
export function reasonOf(prerequisite: Prerequisite): string {
  return `needs ${prerequisite.what}: ${prerequisite.missing ?? 'present'}`;
}

function refuse(prerequisite: Prerequisite): never {
  throw new Error(`${reasonOf(prerequisite)} (${REQUIRE_ENV}=${process.env[REQUIRE_ENV] ?? ''}: CI runs these tests)`);
}

/**
 * A describe block whose tests all need `prerequisite`: collected as usual, skipped with the reason when it is missing
 * (its hooks do not run then). Under OBFLOW_REQUIRE_PREREQUISITES=1 a missing prerequisite fails instead.
 */
export function describeWith(prerequisite: Prerequisite, name: string, factory: SuiteFactory): void {
  const { missing } = prerequisite;
  if (missing !== undefined && required(prerequisite)) refuse(prerequisite); // fails the file at collection, with the reason
  describe(
    name,
    {
      skip: missing !== undefined,
      meta: missing === undefined ? {} : { skipReason: reasonOf(prerequisite), skipPrerequisite: prerequisite.id },
    },
    factory,
  );
}

/**
 * Inside a running test: stop here and report the test as skipped with the reason when `prerequisite` is missing
 * (a failure under OBFLOW_REQUIRE_PREREQUISITES=1). Called by helpers such as obie-schemas.ts at the first point a
 * test needs the files, so everything the test checked before still ran.
 */
export function needs(prerequisite: Prerequisite): void {
  if (prerequisite.missing === undefined) return;
  if (required(prerequisite)) refuse(prerequisite);
  const test = TestRunner.getCurrentTest();
  if (!test?.context) throw new Error(`${reasonOf(prerequisite)} (called outside a running test)`);
  // In the task's meta too, so the JSON report (CI's skip gate, tools/check-skipped.js) sees the reason.
  test.meta.skipReason = reasonOf(prerequisite);
  test.meta.skipPrerequisite = prerequisite.id;
  test.context.skip(reasonOf(prerequisite));
}

const deferred = new WeakSet<object>();

/**
 * Inside a running test, for a check that is one part of it (a schema validation among a strict rule's assertions):
 * true when `prerequisite` is present. Missing, the test goes on — its other assertions still run — and when it ends
 * without failing it is reported as skipped with the reason and the number of assertions that did run (a failure
 * under OBFLOW_REQUIRE_PREREQUISITES=1, as with needs()).
 */
export function presentOrSkipAtTheEnd(prerequisite: Prerequisite): boolean {
  if (prerequisite.missing === undefined) return true;
  if (required(prerequisite)) refuse(prerequisite);
  const test = TestRunner.getCurrentTest();
  if (!test?.context) throw new Error(`${reasonOf(prerequisite)} (called outside a running test)`);
  if (!deferred.has(test)) {
    deferred.add(test);
    onTestFinished((context) => {
      if (context.task.result?.state === 'fail') return; // a failure stays a failure
      const reason = `${reasonOf(prerequisite)}; the test ran to its end (${expect.getState().assertionCalls} expect calls passed)`;
      context.task.meta.skipReason = reason;
      context.task.meta.skipPrerequisite = prerequisite.id;
      context.skip(reason);
    });
  }
  return false;
}

// ---- the specification files ---------------------------------------------------------------------------------------

/** The folder of official specification files: OBFLOW_SPECS_DIR, else ../shared/specs beside the repository. */
export const SPECS_DIR = resolve(process.env.OBFLOW_SPECS_DIR ?? join(REPO_ROOT, '..', 'shared', 'specs'));

/** The files the tests read from it (relative paths), as the sources list of that folder names them. */
export const SPEC_FILES = {
  obie311: 'obie-account-info-v3.1.1.yaml',
  obie3111: 'obie-account-info-v3.1.11.yaml',
  postman: 'postman-collection-v2.1.0.schema.json',
  /** OBL Read/Write v4.0 Account and Transaction API and its code sets. */
  obie40: 'obie-account-info-v4.0.yaml',
  codesetInternal: 'obl-internal-codeset.csv',
  codesetIso: 'obl-iso-external-codeset.csv',
  /** The official model-bank AIS collection (test/integration/official-sequence.test.ts runs it). */
  oblModelBank: 'obl/obl-modelbank-ais-v3.1.x.postman_collection.json',
  /** Payment Initiation and Confirmation of Funds, v3.1.11 and v4.0 (the emulator's payments and funds families). */
  pisp3111: 'obie-payment-initiation-v3.1.11.yaml',
  pisp40: 'obie-payment-initiation-v4.0.yaml',
  cbpii3111: 'obie-confirmation-funds-v3.1.11.yaml',
  cbpii40: 'obie-confirmation-funds-v4.0.yaml',
  /** Domestic VRP, v3.1.11 and v4.0, and the OBL commercial VRP (cVRP) v4.0 file (the emulator's vrp family). */
  vrp3111: 'obie-vrp-v3.1.11.yaml',
  vrp40: 'obie-vrp-v4.0.yaml',
  cvrp40: 'obl-cvrp-v4.0.yaml',
  /** The OBL v4.0 VRP pages (their endpoint tables name each operation's grant). */
  vrpConsentsPage: 'obl-docs-v4.0/vrp--domestic-vrp-consents.md',
  vrpPaymentsPage: 'obl-docs-v4.0/vrp--domestic-vrps.md',
  /** The official model bank's payment, VRP and CBPII sequences (extract under obl/). */
  oblModelBankPayments: 'obl/obl-modelbank-payments.postman_collection.json',
} as const;

/** A prerequisite on files under SPECS_DIR (`what` names them for people): missing when any of them is absent. */
export function specFiles(what: string, ...files: readonly string[]): Prerequisite {
  const absent = files.filter((file) => !existsSync(join(SPECS_DIR, file)));
  return {
    id: 'specs',
    what,
    missing: absent.length === 0 ? undefined : `no ${absent.join(', ')} in ${SPECS_DIR} (set OBFLOW_SPECS_DIR to the folder holding them)`,
  };
}

/** The path of a file under SPECS_DIR. */
export function specPath(file: string): string {
  return join(SPECS_DIR, file);
}

/** The two OBIE Account and Transaction API files (v3.1.1 and v3.1.11). */
export const obieSpecs: Prerequisite = specFiles('the OBIE Account Information OpenAPI files', SPEC_FILES.obie311, SPEC_FILES.obie3111);

/** The v4.0 Account and Transaction API file and the OB Internal and ISO External code sets it names. */
export const obieV4Specs: Prerequisite = specFiles(
  'the OBL v4.0 Account Information OpenAPI file and code sets',
  SPEC_FILES.obie40,
  SPEC_FILES.codesetInternal,
  SPEC_FILES.codesetIso,
);

/** The Payment Initiation and Confirmation of Funds files of both versions, and the v4.0 code sets their errors use. */
export const obiePaymentSpecs: Prerequisite = specFiles(
  'the OBIE Payment Initiation and Confirmation of Funds OpenAPI files (v3.1.11, v4.0) and the v4.0 code sets',
  SPEC_FILES.pisp3111,
  SPEC_FILES.pisp40,
  SPEC_FILES.cbpii3111,
  SPEC_FILES.cbpii40,
  SPEC_FILES.codesetInternal,
);

/** The VRP files of both versions, the cVRP file, the v4.0 VRP pages and the code set their v4.0 errors use. */
export const obieVrpSpecs: Prerequisite = specFiles(
  'the OBIE VRP OpenAPI files (v3.1.11, v4.0), the OBL cVRP v4.0 file, the v4.0 VRP pages and the v4.0 code set',
  SPEC_FILES.vrp3111,
  SPEC_FILES.vrp40,
  SPEC_FILES.cvrp40,
  SPEC_FILES.vrpConsentsPage,
  SPEC_FILES.vrpPaymentsPage,
  SPEC_FILES.codesetInternal,
);

/** The official model bank's AIS collection (the extract under obl/ of the specs folder). */
export const oblModelBank: Prerequisite = specFiles("the official model bank's AIS collection", SPEC_FILES.oblModelBank);

/** The official Postman collection v2.1.0 JSON schema. */
export const postmanSchema: Prerequisite = specFiles('the Postman collection v2.1.0 schema', SPEC_FILES.postman);

// ---- Chromium ------------------------------------------------------------------------------------------------------

/** Debian's Chromium (what the browser consent driver launches); OBFLOW_TEST_CHROMIUM points the tests elsewhere. */
export const CHROMIUM_PATH = process.env.OBFLOW_TEST_CHROMIUM ?? '/usr/bin/chromium';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export const chromium: Prerequisite = {
  id: 'chromium',
  what: 'Chromium',
  missing: executable(CHROMIUM_PATH)
    ? undefined
    : `no executable at ${CHROMIUM_PATH} (apt-get install -y chromium; OBFLOW_TEST_CHROMIUM names another path)`,
};

// ---- command-line tools --------------------------------------------------------------------------------------------

/** A command on PATH that answers `args` (e.g. `openssl version`) with exit code 0. */
function command(id: 'openssl' | 'unzip', what: string, args: readonly string[], install: string): Prerequisite {
  const result = spawnSync(id, args, { stdio: 'ignore' });
  return {
    id,
    what,
    missing: result.error === undefined && result.status === 0 ? undefined : `no \`${id}\` on PATH (${install})`,
  };
}

/** OpenSSL's command line: an independent verifier of the certificates obflow issues, and the maker of legacy PFX files. */
export const openssl: Prerequisite = command('openssl', 'OpenSSL', ['version'], 'apt-get install -y openssl');

/** Info-ZIP's unzip: an independent reader of the workspace archive. */
export const unzip: Prerequisite = command('unzip', 'Info-ZIP unzip', ['-v'], 'apt-get install -y unzip');
