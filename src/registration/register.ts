// Sends the signed registration request (docs/bank-interface.md §4.1: POST application/jwt over mutual TLS) and reads the
// RFC 7591 §3.2 answer: 201 + client metadata, or 400 {error, error_description} → ERR_REGISTRATION_REJECTED.

import type { Dispatcher } from 'undici';
import { ObflowError } from '../errors.js';
import { obieErrorOf, oauthErrorOf } from '../bank/answers.js';
import { bankRequest } from '../bank/http.js';

/** The registration path under {sandbox_base_url} (§4.1, DCR v3.2). */
export const REGISTRATION_PATH = '/dynamic-client-registration/v3.2/register';

export function registrationEndpointOf(sandboxBaseUrl: string): string {
  return `${sandboxBaseUrl.replace(/\/+$/, '')}${REGISTRATION_PATH}`;
}

/** RFC 7591 §3.2.1 client information response; the fields obflow needs, the rest kept as sent. */
export interface RegistrationResponse {
  client_id: string;
  client_secret?: string;
  client_id_issued_at?: number;
  client_secret_expires_at?: number;
  [field: string]: unknown;
}

export interface PostRegistrationInput {
  registrationEndpoint: string;
  jwt: string;
  /** undici dispatcher presenting the transport certificate (src/pki createMtlsDispatcher). */
  dispatcher: Dispatcher;
  log?: (line: string) => void;
}

export async function postRegistration(input: PostRegistrationInput): Promise<RegistrationResponse> {
  const { status, text, body } = await bankRequest(
    input.registrationEndpoint,
    {
      method: 'POST',
      dispatcher: input.dispatcher,
      headers: { 'content-type': 'application/jwt', accept: 'application/json' },
      body: input.jwt,
    },
    'registration',
  );
  input.log?.(`POST ${input.registrationEndpoint} → ${status}`);
  if (status === 201 || status === 200) {
    if (typeof body !== 'object' || body === null || typeof (body as { client_id?: unknown }).client_id !== 'string') {
      throw new ObflowError('ERR_REMOTE_RESPONSE', `registration answered ${status} without a client_id`, {
        hint: 'The bank did not answer as DCR v3.2 says; report it to the bank with the interaction time.',
      });
    }
    return body as RegistrationResponse;
  }
  if (status >= 400 && status < 500) {
    const oauth = oauthErrorOf(body);
    const error = oauth.error ?? `HTTP ${status}`;
    // RFC 7591 §3.2.2 {error, error_description}; a refusal before DCR (e.g. no client certificate) may be OBIE-shaped.
    const obie = obieErrorOf(body);
    const description =
      oauth.description !== undefined
        ? `: ${oauth.description}`
        : obie !== undefined
          ? `: ${obie.code} ${obie.message}`.trimEnd()
          : text !== '' && body === undefined
            ? `: ${text.slice(0, 200)}`
            : '';
    throw new ObflowError('ERR_REGISTRATION_REJECTED', `the bank refused the registration (${status}) ${error}${description}`, {
      hint: hintFor(error),
    });
  }
  throw new ObflowError('ERR_REMOTE_RESPONSE', `registration answered HTTP ${status}`, {
    hint: 'The bank had a problem; try again later, or report it to the bank.',
  });
}

/** One hint per RFC 7591 §3.2.2 / DCR v3.2 error code. */
function hintFor(error: string): string {
  switch (error) {
    case 'invalid_redirect_uri':
      return 'Register only redirect URIs that are in the software statement (`obflow doctor` checks this).';
    case 'invalid_software_statement':
    case 'unapproved_software_statement':
      return 'Check the statement is current and signed by the directory, and that the signing key/kid is its own (`obflow doctor`).';
    case 'invalid_client_metadata':
      // RFC 7591 §3.2.2: a client metadata value (token_endpoint_auth_method, request_object_signing_alg, scope, …);
      // some banks (and the emulator) also use it for the JWT's own aud, exp or jti. The description names which.
      return (
        'The bank refused a value of the request, named in its words above (a metadata value such as ' +
        'token_endpoint_auth_method, request_object_signing_alg or scope, or the aud, exp or jti of the JWT); ' +
        'run `obflow register --dry-run` to inspect them.'
      );
    default:
      return 'Run `obflow register --dry-run` to inspect the request, then `obflow doctor` to check the identity.';
  }
}
