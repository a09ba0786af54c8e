// The id_token checks a FAPI client makes before it uses the code (FAPI 1 Advanced §5.2.2.1 — the id_token as a
// detached signature of the authorisation response — and §5.2.3.1 for the client; OIDC Core §3.3.2.12 → §3.1.3.7):
// the PS256 signature with the key the bank's jwks_uri names by kid, iss, aud, exp/iat, nonce, c_hash, s_hash,
// openbanking_intent_id and the essential acr. A local run step (jose), between the consent and the code exchange and
// again after it when the token response carries an id_token; each rule is one assertion of the step's result.

import { createHash } from 'node:crypto';
import { decodeProtectedHeader } from 'jose/decode/protected_header';
import { createLocalJWKSet } from 'jose/jwks/local';
import { compactVerify } from 'jose/jws/compact/verify';
import { decodeJwt } from 'jose/jwt/decode';
import type { JSONWebKeySet } from 'jose';
import type { Dispatcher } from 'undici';
import { getJson } from '../bank/http.js';
import { ObflowError } from '../errors.js';
import type { PostmanEnvironment } from '../environment/merge.js';
import type { LocalCheck, RunStep } from './steps.js';

/** Clock skew allowed on exp and iat (OIDC Core §3.1.3.7 items 9–10 leave it to the client; FAPI 1 Baseline §5.2.4 is silent). */
export const ID_TOKEN_SKEW_SECONDS = 60;

/** The acr values the consent URL asks for as essential (templates/scripts/psu-consent.prerequest.js; OB Security Profile). */
export const ESSENTIAL_ACR_VALUES: readonly string[] = ['urn:openbanking:psd2:sca', 'urn:openbanking:psd2:ca'];

/** Where the id_token came from: the authorisation response (hybrid flow, front channel) or the token response. */
export type IdTokenSource = 'authorization' | 'token';

export interface IdTokenExpectations {
  source: IdTokenSource;
  issuer: string;
  clientId: string;
  nonce: string;
  consentId: string;
  /** Authorisation response: the code and state it came with (c_hash, s_hash). */
  code?: string;
  state?: string;
  /** The essential acr values the request asked for; empty: acr not checked. */
  acrValues: readonly string[];
  now: Date;
  skewSeconds?: number;
}

/** OIDC Core §3.3.2.11: base64url of the left half of the SHA-256 (PS256's hash) of the ASCII value. */
export function halfHash(value: string): string {
  const digest = createHash('sha256').update(value, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

function check(rule: string, passed: boolean, message: string): LocalCheck {
  return { rule, passed, message: passed ? '' : message };
}

/** Pure apart from the signature check: every rule as one check (none throws), so the report lists each. */
export async function verifyIdToken(jwt: string, jwks: JSONWebKeySet, expect: IdTokenExpectations): Promise<LocalCheck[]> {
  const checks: LocalCheck[] = [];
  let header: ReturnType<typeof decodeProtectedHeader>;
  let claims: ReturnType<typeof decodeJwt>;
  try {
    header = decodeProtectedHeader(jwt);
    claims = decodeJwt(jwt);
  } catch (error) {
    return [check('id_token is a compact JWS (OIDC Core §2)', false, `the id_token does not decode: ${(error as Error).message}`)];
  }
  // FAPI 1 Advanced §8.6: PS256 (or ES256); the registration asked for id_token_signed_response_alg PS256.
  checks.push(
    check(
      'id_token alg is PS256 (FAPI 1 Advanced §8.6, registered id_token_signed_response_alg)',
      header.alg === 'PS256',
      `alg is ${String(header.alg)}`,
    ),
  );
  let signatureProblem = '';
  // OIDC Core §10.1.1: a kid may be left out only when the JWK Set holds one key (the collection's lib-pss answers the
  // same); jose then picks that key. Key size: jose refuses RSA under 2048 bits (RFC 7518 §3.5), as lib-pss does.
  if (header.kid === undefined && jwks.keys.length !== 1) {
    signatureProblem = `the id_token has no kid, and jwks_uri has ${jwks.keys.length} keys (OIDC Core §10.1.1)`;
  } else {
    try {
      await compactVerify(jwt, createLocalJWKSet(jwks), { algorithms: ['PS256'] });
    } catch (error) {
      const kid = typeof header.kid === 'string' ? header.kid : '(none)';
      signatureProblem =
        (error as { code?: string }).code === 'ERR_JWKS_NO_MATCHING_KEY'
          ? `jwks_uri has no PS256 key with kid ${kid}`
          : `the signature does not verify with kid ${kid} from jwks_uri (${(error as Error).message})`;
    }
  }
  checks.push(
    check(
      'id_token signature verifies with the jwks_uri key named by kid (OIDC Core §3.1.3.7 item 6, FAPI 1 Advanced §5.2.2.1)',
      signatureProblem === '',
      signatureProblem,
    ),
  );
  checks.push(
    check(
      'id_token iss is the discovery issuer (OIDC Core §3.1.3.7 item 2)',
      claims.iss === expect.issuer,
      `iss is ${String(claims.iss)}, the issuer is ${expect.issuer}`,
    ),
  );
  const audiences = Array.isArray(claims.aud) ? claims.aud : claims.aud === undefined ? [] : [claims.aud];
  const audOk = audiences.includes(expect.clientId) && (audiences.length === 1 || claims.azp === expect.clientId);
  checks.push(
    check(
      'id_token aud is the client id (OIDC Core §3.1.3.7 items 3–5)',
      audOk,
      `aud is ${JSON.stringify(claims.aud)}, the client id is ${expect.clientId}`,
    ),
  );
  const now = Math.floor(expect.now.getTime() / 1000);
  const skew = expect.skewSeconds ?? ID_TOKEN_SKEW_SECONDS;
  checks.push(
    check(
      'id_token exp is in the future (OIDC Core §3.1.3.7 item 9)',
      typeof claims.exp === 'number' && claims.exp + skew > now,
      `exp is ${String(claims.exp)}, now is ${now}`,
    ),
  );
  checks.push(
    check(
      'id_token iat is not in the future (OIDC Core §3.1.3.7 item 10)',
      typeof claims.iat === 'number' && claims.iat - skew <= now,
      `iat is ${String(claims.iat)}, now is ${now}`,
    ),
  );
  checks.push(
    check(
      "id_token nonce is the consent URL's (OIDC Core §3.1.3.7 item 11)",
      claims.nonce === expect.nonce,
      'nonce differs from the one the consent URL sent',
    ),
  );
  if (expect.source === 'authorization') {
    checks.push(
      check(
        'id_token c_hash matches the code (OIDC Core §3.3.2.11, §3.3.2.12)',
        expect.code !== undefined && claims.c_hash === halfHash(expect.code),
        'c_hash is not the left half of SHA-256 of the code',
      ),
    );
    checks.push(
      check(
        'id_token s_hash matches the state (FAPI 1 Advanced §5.2.2.1, §5.2.3.1 item 4)',
        expect.state !== undefined && claims.s_hash === halfHash(expect.state),
        's_hash is not the left half of SHA-256 of the state',
      ),
    );
  }
  checks.push(
    check(
      'id_token openbanking_intent_id is the consent id (OB Security Profile: essential claim of the request)',
      claims.openbanking_intent_id === expect.consentId,
      `openbanking_intent_id is ${String(claims.openbanking_intent_id)}, the consent is ${expect.consentId}`,
    ),
  );
  if (expect.acrValues.length > 0) {
    checks.push(
      check(
        'id_token acr is one of the essential values asked (OIDC Core §5.5.1.1, §3.1.3.7 item 12)',
        typeof claims.acr === 'string' && expect.acrValues.includes(claims.acr),
        `acr is ${String(claims.acr)}, asked for ${expect.acrValues.join(' or ')}`,
      ),
    );
  }
  return checks;
}

/** Fetches a JWKS once per URL for the run (keys cached per run); a kid not in it triggers one fresh fetch (rotation). */
export function jwksCache(fetchJson: (url: string) => Promise<unknown>): (url: string, kid: string | undefined) => Promise<JSONWebKeySet> {
  const cache = new Map<string, JSONWebKeySet>();
  const load = async (url: string): Promise<JSONWebKeySet> => {
    const body = await fetchJson(url);
    const keys = typeof body === 'object' && body !== null ? (body as { keys?: unknown }).keys : undefined;
    if (!Array.isArray(keys)) {
      throw new ObflowError('ERR_REMOTE_RESPONSE', `jwks_uri ${url} answered without a keys array`, {
        hint: "Check the bank's discovery document names its JWKS (jwks_uri).",
      });
    }
    const set = { keys } as JSONWebKeySet;
    cache.set(url, set);
    return set;
  };
  return async (url, kid) => {
    const cached = cache.get(url);
    if (cached !== undefined && (kid === undefined || cached.keys.some((key) => key.kid === kid))) return cached;
    return load(url);
  };
}

/** GET a JSON document through the session's mutual-TLS dispatcher (the bank's CA verifies its server certificate). */
export function jsonOver(dispatcher: Dispatcher): (url: string) => Promise<unknown> {
  return async (url) => {
    const { status, body } = await getJson(url, dispatcher, "the bank's keys (jwks_uri)");
    if (status !== 200 || body === undefined) {
      throw new ObflowError('ERR_REMOTE_RESPONSE', `${new URL(url).pathname} answered ${status}${status === 200 ? ' without JSON' : ''}`, {
        hint: "Check the bank's jwks_uri in its discovery document.",
      });
    }
    return body;
  };
}

/** bank_jwks (templates/scripts/jwks.test.js: a JSON array of RSA {kid, n, e}) as a JWK Set; undefined if unusable. */
export function bankJwksOf(text: string): JSONWebKeySet | undefined {
  try {
    const keys = JSON.parse(text) as unknown;
    if (!Array.isArray(keys)) return undefined;
    const usable = keys.filter(
      (key): key is { kid: string; n: string; e: string } =>
        typeof key === 'object' && key !== null && typeof key.kid === 'string' && typeof key.n === 'string' && typeof key.e === 'string',
    );
    return usable.length === 0 ? undefined : { keys: usable.map((key) => ({ kty: 'RSA', kid: key.kid, n: key.n, e: key.e })) };
  } catch {
    return undefined;
  }
}

/** The rule a redirect breaks when `code id_token` was asked for and no id_token came back. */
export const ID_TOKEN_PRESENT_RULE =
  'id_token is present in the authorisation response (response_type code id_token: OIDC Core §3.3.2.5, FAPI 1 Advanced §5.2.2.1)';

/** No id_token: nothing to check for response_type `code` (or a token response without one); for `code id_token` (the
 *  default of the psu-consent request, generate/variables.ts) the response's detached signature is missing — whichever
 *  consent mode read the redirect (headless collection, browser, manual paste). */
export function missingIdTokenChecks(source: IdTokenSource, responseType: string): LocalCheck[] {
  if (source !== 'authorization' || responseType.trim() === 'code') return [];
  return [check(ID_TOKEN_PRESENT_RULE, false, 'the redirect carries a code but no id_token')];
}

/** Why the step had nothing to check: no id_token where the flow does not require one (a skip, not a pass). */
export function noIdTokenReason(source: IdTokenSource): string {
  return source === 'authorization'
    ? 'response_type code: the authorization response carries no id_token (only code id_token sends one, OIDC Core §3.3.2.5); flow.responseType "code id_token" checks it'
    : 'the token response carried no id_token, so there was none to check';
}

export interface IdTokenStepOptions {
  /** Which id_token: `authorization` reads id_token (+ auth_code, state), `token` reads token_id_token. */
  source: IdTokenSource;
  keys: ReturnType<typeof jwksCache>;
  now?: () => Date;
}

/** The run step: reads the environment, verifies, and reports each rule; writes nothing. No id_token: no assertions
 *  for response_type `code` or a token response without one, a failed one for `code id_token` (missingIdTokenChecks). */
export function idTokenStep(
  options: IdTokenStepOptions,
  name = options.source === 'authorization' ? 'id-token' : 'id-token-token',
): RunStep {
  return {
    name,
    // It writes nothing: inside the newman run, between the step that set the id_token and the next (src/run/steps.ts).
    observe: true,
    local: async (environment: PostmanEnvironment) => {
      const value = (key: string): string => environment.values.find((entry) => entry.key === key)?.value ?? '';
      const jwt = value(options.source === 'authorization' ? 'id_token' : 'token_id_token');
      if (jwt === '') {
        const checks = missingIdTokenChecks(options.source, value('response_type'));
        return checks.length > 0 ? { values: {}, checks } : { values: {}, checks, skipped: noIdTokenReason(options.source) };
      }
      const jwksUri = value('jwksUri');
      if (jwksUri === '') {
        throw new ObflowError('ERR_DISCOVERY_INVALID', 'the environment names no jwksUri, so the id_token signature cannot be verified', {
          hint: "The bank's discovery document must publish jwks_uri; run `obflow environment` again.",
        });
      }
      let kid: string | undefined;
      try {
        const header = decodeProtectedHeader(jwt);
        kid = typeof header.kid === 'string' ? header.kid : undefined;
      } catch {
        kid = undefined; // verifyIdToken reports the undecodable token
      }
      // This run's copy of jwks_uri: the psu-consent step's first request read it into bank_jwks (so the bank sees one
      // JWKS request a run, as with plain newman); fetched here when absent or without the token's kid (rotation).
      const seeded = bankJwksOf(value('bank_jwks'));
      const jwks =
        seeded !== undefined && kid !== undefined && seeded.keys.some((key) => key.kid === kid) ? seeded : await options.keys(jwksUri, kid);
      const checks = await verifyIdToken(jwt, jwks, {
        source: options.source,
        issuer: value('issuer'),
        clientId: value('_clientId'),
        nonce: value('nonce'),
        consentId: value('consent_id'),
        ...(options.source === 'authorization' ? { code: value('auth_code'), state: value('state') } : {}),
        acrValues: ESSENTIAL_ACR_VALUES,
        now: (options.now ?? (() => new Date()))(),
      });
      return { values: {}, checks };
    },
  };
}
