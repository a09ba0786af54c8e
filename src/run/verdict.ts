// Which side broke which rule when a run failed (issue 22): the bank's answer against the standard, obflow's request
// refused by the bank, or a setting that is missing. Pure: read from a finished run's failing checks and the statuses
// of its requests. The CLI prints one line per failing request and ends with the first one's hint (src/cli/report.ts).

import type { RunResult, StepFailure, TransportFailure } from './result.js';

/** `answer`: the bank's answer broke a rule of the standard. `refused`: the bank refused obflow's request with an
 *  error answer (the standard lets it: the fault is on obflow's side, its request, registration or settings).
 *  `setting`: the request went out with a variable no setting filled. */
export type FailureSide = 'answer' | 'refused' | 'setting';

export interface FailingRequest {
  step: string;
  item: string;
  /** The status of the request's last answer, when it got one. */
  status?: number;
  /** The request's first failing check, and how many more of its checks failed. */
  first: StepFailure;
  more: number;
  side: FailureSide;
  /** What the bank's error answer says (`invalid_client (…)`, `UK.OBIE.Field.Missing (…)`), when it refused. */
  bankError?: string;
  /** The variables the request went out without (`{{name}}` left in its URL), when a setting is missing. */
  missing?: string[];
}

/** The status check's message when the answer has another status (templates/scripts/check-status.test.js with
 *  lib-error-answer.js): `the bank answered 401 invalid_client (…), not 200`. */
const REFUSAL = /^the bank answered (\d{3})(?: (.*))?, not \d{3}$/s;

/** The authorization endpoint's error redirect (RFC 6749 §4.1.2.1) as templates/scripts/psu-consent.test.js reports
 *  it: the bank refusing obflow's request in a 302/303, not in a 4xx (issue 30 item 6). */
const ERROR_REDIRECT_TEST = 'no error in the redirect';
const ERROR_REDIRECT = /^(.*?): expected '[^']*' to equal undefined$/s;

/** `{{name}}` that newman left in a URL: no variable of that name had a value. */
const UNRESOLVED = /\{\{([^{}]+)\}\}/g;

function sideOf(
  first: StepFailure,
  status: number | undefined,
  url: string | undefined,
): Omit<FailingRequest, 'step' | 'item' | 'first' | 'more'> {
  const missing = [...new Set([...(url ?? '').matchAll(UNRESOLVED)].map((match) => match[1] ?? ''))];
  const withStatus = status !== undefined ? { status } : {};
  if (missing.length > 0) return { ...withStatus, side: 'setting', missing };
  if (first.test === ERROR_REDIRECT_TEST) {
    const bankError = ERROR_REDIRECT.exec(first.message)?.[1]?.trim();
    return { ...withStatus, side: 'refused', ...(bankError !== undefined && bankError !== '' ? { bankError } : {}) };
  }
  const refusal = REFUSAL.exec(first.message);
  const answered = refusal !== null ? Number(refusal[1]) : status;
  // 4xx: the standard's way to refuse a request (RFC 9110 §15.5); a 5xx or an unexpected 2xx/3xx is the bank's own.
  if (answered !== undefined && answered >= 400 && answered < 500) {
    const bankError = refusal?.[2]?.trim();
    return { status: answered, side: 'refused', ...(bankError !== undefined && bankError !== '' ? { bankError } : {}) };
  }
  return { ...withStatus, side: 'answer' };
}

/** One entry per request with a failing check, in the order the checks failed. */
export function failingRequests(result: RunResult): FailingRequest[] {
  const requests: FailingRequest[] = [];
  for (const step of result.steps) {
    const byItem = new Map<string, StepFailure[]>();
    for (const failure of step.failures) byItem.set(failure.item, [...(byItem.get(failure.item) ?? []), failure]);
    for (const [item, failures] of byItem) {
      const first = failures[0] as StepFailure;
      const execution = result.executions.findLast((candidate) => candidate.step === step.name && candidate.item === item);
      requests.push({ step: step.name, item, first, more: failures.length - 1, ...sideOf(first, execution?.status, execution?.url) });
    }
  }
  return requests;
}

/** What a refusal's error code says obflow should look at (RFC 6749 §5.2, RFC 6750 §3.1, OBIE error codes). */
const REFUSAL_HINTS: readonly { error: RegExp; hint: string }[] = [
  {
    error: /^invalid_client\b/,
    hint:
      'the bank did not accept the client authentication obflow sent as registered (client_secret_basic: the id and secret; private_key_jwt: ' +
      "the assertion signed with the statement's signing key and kid; tls_client_auth: the transport certificate's subject DN): " +
      'register again (`obflow register --force`) and run `obflow environment`',
  },
  {
    error: /^invalid_grant\b/,
    hint: 'the code or refresh token was refused (expired, used once already, or issued for another redirect URI or client): run the flow again from the consent',
  },
  {
    error: /^(unauthorized_client|invalid_scope|unsupported_grant_type|unsupported_response_type)\b/,
    hint: "the client is not registered for this grant, scope or response type: compare the registration with the bank's discovery document",
  },
  // Issue 30 item 6: the standard's answers to what obflow sent, each naming the setting to change.
  {
    error: /response_mode/,
    hint:
      'the bank allows flow.responseType "code" only with JARM (FAPI 1 Advanced §5.2.2-2): set flow.jarm to true and run ' +
      '`obflow generate` again, or set flow.responseType to "code id_token"',
  },
  {
    error: /code.?challenge|code_verifier|PKCE/i,
    hint: 'the bank requires PKCE (RFC 7636; FAPI 2.0 asks S256): obflow sends it with pushed authorization requests, so set flow.par to "always" and run `obflow generate` again',
  },
  {
    error: /Pushed Authorization Request|pushed authorization request|require_pushed_authorization_requests/i,
    hint: 'the bank requires pushed authorization requests (RFC 9126): set flow.par to "always" and run `obflow generate` again',
  },
  {
    error: /invalid_token\b/,
    hint: 'the access token was refused (expired, or bound to another client or certificate): run the steps before this one again',
  },
  {
    error: /^UK\.OBIE\./,
    hint: "the bank names the field or header it refused (OBIE error codes): fix obflow's request or the setting behind it",
  },
];

/** The hint of a failed run, naming the side of its first failing request. */
export function failureHint(request: FailingRequest | undefined, report: string): string {
  if (request === undefined) return `Read ${report}.`;
  if (request.side === 'setting')
    return `A setting is missing: the request went out with ${(request.missing ?? []).map((name) => `{{${name}}}`).join(', ')} unresolved; set it in the environment (or the config) and run again.`;
  if (request.side === 'refused') {
    const specific = REFUSAL_HINTS.find((row) => row.error.test(request.bankError ?? ''))?.hint;
    return (
      `The bank refused obflow's request${request.bankError !== undefined ? ` (${request.bankError})` : ''}, as the standard lets it: ` +
      `the fault is on obflow's side (its request, the registration or a setting)${specific !== undefined ? `; ${specific}` : ''}. ` +
      `Details: ${report}.`
    );
  }
  return `The bank's answer broke a rule of the standard (${request.first.test}): the fault is on the bank's side. Details: ${report}.`;
}

/** One line for a failing request: where, the first failing check, how many more. */
export function failureLine(request: FailingRequest): string {
  const more = request.more > 0 ? ` (+${request.more} more failing check${request.more === 1 ? '' : 's'})` : '';
  return `✗ ${request.step} › ${request.item}: ${request.first.test}${request.first.message !== '' ? ` — ${request.first.message}` : ''}${more}`;
}

/** What to do when no answer came (ERR_REMOTE_TLS / ERR_REMOTE_UNREACHABLE): the CLI's hint and the report page's. */
export function transportHint(kind: TransportFailure['kind']): string {
  return kind === 'tls'
    ? "Check the bank's CA (bank.server_ca, or the sandbox's directory CAs) and that the transport certificate is the registered one; `obflow doctor` checks both."
    : 'Is the bank (or `obflow sandbox`) running at that address? If the sandbox restarted, run `obflow environment` again.';
}

/** A failed run for people (the report page's box): a plain first sentence — where it stopped, whose side — the same
 *  "what to do" as the CLI's hint, and the technical lines (the CLI's ✗ lines) to fold under it. */
export interface FailureSummary {
  step: string;
  sentence: string;
  hint: string;
  detail: string[];
}

export function failureSummary(result: RunResult, report: string): FailureSummary | undefined {
  const step = result.steps.find((candidate) => !candidate.passed);
  if (step === undefined) return undefined;
  const transport = result.transport ?? (step.transport !== undefined ? { step: step.name, ...step.transport } : undefined);
  if (transport !== undefined) {
    return {
      step: transport.step,
      sentence:
        transport.kind === 'tls'
          ? `The run stopped at step ${transport.step}: the secure (mutual TLS) connection to the bank at ${transport.origin} failed, so nothing was checked there.`
          : `The run stopped at step ${transport.step}: the bank at ${transport.origin} did not answer, so nothing was checked there.`,
      hint: transportHint(transport.kind),
      detail: [`${transport.item}: ${transport.code !== undefined ? `${transport.code}: ` : ''}${transport.message}`],
    };
  }
  const requests = failingRequests(result);
  const request = requests.find((candidate) => candidate.step === step.name);
  const where = request !== undefined ? `step ${step.name} (${request.item})` : `step ${step.name}`;
  const sentence =
    request === undefined
      ? `The run stopped at ${where}: a check failed.`
      : request.side === 'setting'
        ? `The run stopped at ${where}: a setting is missing, so the request went out incomplete.`
        : request.side === 'refused'
          ? `The run stopped at ${where}: the bank refused obflow's request${request.status !== undefined ? ` (HTTP ${request.status})` : ''}; the fault is on obflow's side.`
          : `The run stopped at ${where}: the bank's answer broke a rule of the standard; the fault is on the bank's side.`;
  const detail =
    requests.length > 0
      ? requests.map(failureLine)
      : step.failures.map((failure) => `✗ ${step.name} › ${failure.item}: ${failure.test} — ${failure.message}`);
  return { step: step.name, sentence, hint: failureHint(request, report), detail };
}
