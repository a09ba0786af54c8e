// The one error family of obflow: a closed set of stable codes, each with the exit class the CLI maps it to.
// Tests assert `code`, never the message. docs/errors.md documents every code (checked by test/unit/errors.test.ts).

/** Exit classes: `checks` → 1 (something was verified and failed), `usage` → 2 (the user's input or config is wrong),
 *  `remote` → 3 (a remote party refused or could not be reached). */
export type ExitClass = 'checks' | 'usage' | 'remote';

export const ERROR_CODES = {
  // usage and configuration
  ERR_USAGE: 'usage',
  ERR_CONFIG_INVALID: 'usage',
  ERR_CONFIG_NOT_FOUND: 'usage',
  ERR_FILE_MISSING: 'usage',
  ERR_FILE_UNREADABLE: 'usage',
  ERR_WRITE_FAILED: 'usage',
  ERR_IDENTITY_MISSING: 'usage',
  ERR_NOT_REGISTERED: 'usage',
  ERR_STEP_UNKNOWN: 'usage',
  ERR_ENVIRONMENT_STALE: 'usage',
  ERR_BROWSER_MISSING: 'usage',
  ERR_BROWSER_NO_DISPLAY: 'usage',
  ERR_CONSENT_SCRIPT: 'usage',
  ERR_PSU_CREDENTIALS: 'usage',
  ERR_SANDBOX_DATA: 'usage',
  ERR_NATIVE_MODULE: 'usage',
  ERR_WORKSPACE_EXISTS: 'usage',
  ERR_REPORT_INVALID: 'usage',
  ERR_REPORT_NONE: 'usage',
  ERR_AUTH_METHOD_UNSUPPORTED: 'usage',
  ERR_PAR_UNAVAILABLE: 'usage',
  ERR_DISCOVERY_MISMATCH: 'usage',
  ERR_ENVIRONMENT_INCOMPLETE: 'usage',
  ERR_IDENTITY_EXISTS: 'usage',
  ERR_CLIENT_STORED: 'usage',
  ERR_STEP_PREREQUISITE: 'usage',
  // prerequisites and local material (doctor, register preflight, run preflight)
  ERR_SSA_MISSING: 'checks',
  ERR_SSA_INVALID: 'checks',
  ERR_SSA_SIGNATURE: 'checks',
  ERR_SSA_EXPIRED: 'checks',
  ERR_CERT_MISSING: 'checks',
  ERR_CERT_INVALID: 'checks',
  ERR_CERT_EXPIRED: 'checks',
  ERR_CERT_NOT_YET_VALID: 'checks',
  ERR_CERT_KEY_MISMATCH: 'checks',
  ERR_CERT_UNTRUSTED: 'checks',
  ERR_CERT_NO_CLIENT_AUTH: 'checks',
  ERR_CERT_NOT_FOR_SSA: 'checks',
  ERR_CERT_PORT_UNMATCHED: 'checks',
  ERR_PFX_PASSPHRASE: 'checks',
  ERR_KEY_INVALID: 'checks',
  ERR_SIGNING_KEY_MISMATCH: 'checks',
  ERR_REDIRECT_URI_MISSING: 'checks',
  ERR_REDIRECT_URI_NOT_IN_SSA: 'checks',
  ERR_DIRECTORY_CERTS_MISSING: 'checks',
  ERR_REGISTRATION_INVALID: 'checks',
  ERR_COLLECTION_INVALID: 'checks',
  ERR_RUN_FAILED: 'checks',
  ERR_VERSIONS_DIFFER: 'checks',
  ERR_RUN_SKIPPED: 'checks',
  ERR_LEGS_FAILED: 'checks',
  ERR_DOCTOR_PROBLEMS: 'checks',
  // remote parties
  ERR_REMOTE_UNREACHABLE: 'remote',
  ERR_REMOTE_TLS: 'remote',
  ERR_REMOTE_RESPONSE: 'remote',
  ERR_DISCOVERY_INVALID: 'remote',
  ERR_REGISTRATION_REJECTED: 'remote',
  ERR_ENVIRONMENT_DOWNLOAD: 'remote',
  ERR_CONSENT_REJECTED: 'remote',
  ERR_CONSENT_TIMEOUT: 'remote',
  ERR_SANDBOX_START: 'remote',
  // a bug in obflow (never thrown on purpose; the CLI prints it for unexpected exceptions)
  ERR_UNEXPECTED: 'checks',
} as const satisfies Record<string, ExitClass>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ObflowErrorOptions {
  /** What to do about it, one line. */
  hint: string;
  cause?: unknown;
}

/** The only error type obflow throws for expected failures. Programmer misuse throws TypeError instead. */
export class ObflowError extends Error {
  override readonly name = 'ObflowError';
  readonly code: ErrorCode;
  readonly hint: string;

  constructor(code: ErrorCode, message: string, options: ObflowErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.hint = options.hint;
  }

  get exitClass(): ExitClass {
    return ERROR_CODES[this.code];
  }
}

export function isObflowError(value: unknown): value is ObflowError {
  return value instanceof ObflowError;
}

export const EXIT_CODES: Record<ExitClass | 'ok', number> = { ok: 0, checks: 1, usage: 2, remote: 3 };
