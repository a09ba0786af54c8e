// One pair of attempts per row of src/sandbox/policy.ts: what a strict profile refuses and a permissive one accepts
// because of that row, and nothing else. test/integration/sandbox-policy.test.ts runs each attempt against both
// profiles, then again with the row flipped (strict tolerating it, permissive not), expecting the answers to swap:
// an attempt refused for another reason (a certificate check answering before the rule) fails there.
// test/unit/sandbox-policy.test.ts holds the table to the rows.

import { randomUUID, X509Certificate } from 'node:crypto';

import type { ToleranceName } from '../../src/sandbox/policy.js';
import type { TestIdentity } from './identity.js';
import { paymentConsentRequest } from './payments-client.js';
import type { SendOptions, PaymentsTpp } from './payments-client.js';
import { BANK_FINANCIAL_ID, mtlsAgent, SandboxTpp, type AuthorizeOptions, type WireResponse } from './sandbox-client.js';

/** The answer to one attempt: accepted or not, and what the bank said (for the failure message). */
export interface Answer {
  accepted: boolean;
  said: string;
}

/** What an attempt may use: a registered client of the profile, and identities besides the client's own. */
export interface AttemptContext {
  tpp: SandboxTpp;
  /** A certificate of the same directory for the client's own software statement (same CN and OU, another key). */
  sibling: TestIdentity;
  /** Another TPP of the same directory (another software statement). */
  second: TestIdentity;
  /** A registered client of the profile at a sandbox started with `fapi: '1-advanced'` (rows that only hold there). */
  advanced: SandboxTpp;
  /** A registered client of the profile whose statement has the PISP and CBPII roles (payments and funds rows). */
  payer: PaymentsTpp;
}

export type Attempt = (context: AttemptContext) => Promise<Answer>;

const answered = (response: WireResponse, accepted: number): Answer => ({
  accepted: response.status === accepted,
  said: `${response.status} ${response.text.slice(0, 200)}`,
});

/** One headless authorisation (consent created first): accepted when the redirect carries a code. */
function authorising(options: Omit<AuthorizeOptions, 'consentId'>, register?: Record<string, unknown>): Attempt {
  return async ({ tpp }) => {
    let client = tpp;
    if (register !== undefined) {
      client = new SandboxTpp(tpp.urls, tpp.identity, tpp.profile, tpp.agent);
      await client.register(register);
    }
    const result = await client.authorize({ ...options, consentId: await client.createConsent() });
    const code = result.params.get('code');
    return {
      accepted: code !== null && code !== '',
      said: `${result.status} ${result.params.get('error') ?? ''} ${result.params.get('error_description') ?? result.response.text.slice(0, 120)}`,
    };
  };
}

/** GET /accounts with a fresh authorisation-code token; `headers` replace the usual ones (undefined: left out). */
function readingAccounts(headers: Record<string, string | undefined>, presentWith?: 'sibling'): Attempt {
  return async ({ tpp, sibling }) => {
    const flow = await tpp.headlessFlow();
    const all: Record<string, string | undefined> = {
      authorization: `Bearer ${flow.accessToken}`,
      accept: 'application/json',
      'x-fapi-financial-id': BANK_FINANCIAL_ID,
      ...headers,
    };
    const sent = Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
    const client = presentWith === 'sibling' ? tpp.withIdentity(sibling) : tpp;
    try {
      return answered(await client.fetch('GET', `${tpp.urls.aisp_base_url}/accounts`, { headers: sent }), 200);
    } finally {
      if (client !== tpp) await client.close();
    }
  };
}

/** POST /account-access-consents with `data` as Data: accepted with 201. */
function creatingConsent(data: Record<string, unknown>): Attempt {
  return async ({ tpp }) => {
    const token = await tpp.clientCredentials();
    const response = await tpp.fetch('POST', `${tpp.urls.aisp_base_url}/account-access-consents`, {
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'x-fapi-financial-id': BANK_FINANCIAL_ID,
      },
      body: JSON.stringify({
        Data: { Permissions: ['ReadAccountsBasic', 'ReadTransactionsBasic', 'ReadTransactionsCredits'], ...data },
        Risk: {},
      }),
    });
    return answered(response, 201);
  };
}

const PKCE_VERIFIER = `${randomUUID()}-${randomUUID()}`;

/** A client registered for tls_client_auth (RFC 8705 §2.1.2) with its transport certificate's subject DN written as
 *  `dn` makes (from the RFC 4514 string, most specific first), then client credentials with only client_id in the
 *  body: accepted with 200. */
function tlsClientAuthWithDn(dn: (rfc4514: string) => string): Attempt {
  return async ({ tpp }) => {
    const subject = new X509Certificate(tpp.identity.pem.transportCert).subject.split('\n').reverse().join(',');
    const client = new SandboxTpp(tpp.urls, tpp.identity, tpp.profile, tpp.agent);
    const registered = await client.register({
      token_endpoint_auth_method: 'tls_client_auth',
      token_endpoint_auth_signing_alg: undefined,
      tls_client_auth_subject_dn: dn(subject),
    });
    const response = await client.token(
      { grant_type: 'client_credentials', scope: 'accounts', client_id: registered.client_id },
      { authorization: null },
    );
    return answered(response, 200);
  };
}

/** POST /domestic-payment-consents (v4.0) with the request `change` makes, sent as `options` say: accepted with 201. */
function creatingPaymentConsent(change: (request: Record<string, unknown>) => void, options: SendOptions = {}): Attempt {
  return async ({ payer }) => {
    const token = await payer.clientCredentials('payments');
    const request = paymentConsentRequest('4.0');
    change(request);
    return answered(await payer.post(`${payer.pisp('4.0')}/domestic-payment-consents`, token, request, options), 201);
  };
}

/** Every row, by name; more than one attempt where the row covers more than one rule. */
export const POLICY_PAIRS: Record<ToleranceName, readonly Attempt[]> = {
  // RFC 8705 §2.1.2 / RFC 4514 §2: the registered DN in another RDN order, or in OpenSSL's /C=GB/O=… form.
  'tls-client-auth-dn-form': [
    tlsClientAuthWithDn((dn) => dn.split(',').reverse().join(',')),
    tlsClientAuthWithDn((dn) => `/${dn.split(',').reverse().join('/')}`),
  ],
  'request-object-optional': [authorising({ responseType: 'code', requestObject: false })],
  // FAPI 1 Advanced §5.2.2-10: response_type only in the query beside a request object.
  'query-parameters': [authorising({ objectClaims: { response_type: undefined } })],
  // OIDC Core §6.1: no copies of client_id's companions (response_type, scope) in the query.
  'query-copies-optional': [authorising({ queryParams: false })],
  'request-object-exp': [authorising({ objectClaims: { exp: undefined } })],
  'request-object-nbf': [authorising({ objectClaims: { nbf: undefined } })],
  // §5.2.2-15 (aud) and RFC 9101 §4 (iss is the client): both under the one row.
  'request-object-aud': [authorising({ objectClaims: { aud: undefined } }), authorising({ objectClaims: { iss: 'another-client' } })],
  // FAPI 1 Baseline §5.2.2-9: a client that registered exactly one redirect URI sends none.
  'redirect-uri-default': [
    async (context) =>
      authorising({ redirectUri: null }, { redirect_uris: [context.tpp.identity.manifest.redirect_uris[0] ?? ''] })(context),
  ],
  'scope-extra-spaces': [authorising({ scope: 'openid  accounts ' })],
  'scope-without-openid': [authorising({ responseType: 'code', scope: 'accounts' })],
  // FAPI 1 Baseline §5.2.2.3: state is required only when the scope lacks openid, so the attempt lacks it too (with
  // scope-without-openid tolerated throughout: POLICY_ALONGSIDE).
  'state-optional': [authorising({ responseType: 'code', state: null, scope: 'accounts' })],
  'nonce-optional': [authorising({ responseType: 'code', nonce: null })],
  'intent-id-not-essential': [authorising({ essential: false })],
  'pkce-plain': [authorising({ objectClaims: { code_challenge: PKCE_VERIFIER, code_challenge_method: 'plain' } })],
  // FAPI 2.0 / RFC 7636 §4.4.1: a pushed request without code_challenge (the sandbox of this test offers PAR).
  'par-pkce-optional': [
    async ({ tpp }) => answered((await tpp.push({ responseType: 'code', consentId: await tpp.createConsent() })).response, 201),
  ],
  // FAPI 1 Advanced Part 2 §5.2.2-2: plain code (no response_mode jwt), at the sandbox of this test run as 1-advanced.
  'code-without-jarm': [async (context) => authorising({ responseType: 'code' })({ ...context, tpp: context.advanced })],
  // RFC 6749 §2.3.1: the secret in the body, no Authorization header.
  'client-secret-post': [
    async ({ tpp }) => {
      const client = tpp.client;
      if (client === undefined) throw new TypeError('a registered client');
      const response = await tpp.token(
        { grant_type: 'client_credentials', scope: 'accounts', client_id: client.client_id, client_secret: client.client_secret },
        { authorization: null },
      );
      return answered(response, 200);
    },
  ],
  // Another statement's directory certificate, at registration and at the token endpoint.
  'foreign-transport-certificate': [
    async ({ tpp, second }) => {
      const over = new SandboxTpp(tpp.urls, tpp.identity, tpp.profile, mtlsAgent(second));
      try {
        return answered(await over.registerRaw(await over.signRegistration(over.registrationClaims())), 201);
      } finally {
        await over.close();
      }
    },
    async ({ tpp, second }) => {
      const moved = tpp.withIdentity(second);
      try {
        return answered(await moved.token({ grant_type: 'client_credentials', scope: 'accounts' }), 200);
      } finally {
        await moved.close();
      }
    },
  ],
  // RFC 8705 §4: the refresh token presented with another certificate of the same statement (so the token endpoint's
  // certificate check, foreign-transport-certificate, is satisfied and only the binding can refuse).
  'refresh-token-unbound': [
    async ({ tpp, sibling }) => {
      const flow = await tpp.headlessFlow();
      const moved = tpp.withIdentity(sibling);
      try {
        return answered(await moved.token({ grant_type: 'refresh_token', refresh_token: flow.refreshToken ?? '' }), 200);
      } finally {
        await moved.close();
      }
    },
  ],
  'registration-defaults': [
    async ({ tpp }) =>
      answered(
        await tpp.registerRaw(
          await tpp.signRegistration(
            tpp.registrationClaims({ token_endpoint_auth_method: undefined, subject_type: undefined, scope: undefined }),
          ),
        ),
        201,
      ),
  ],
  'access-token-unbound': [readingAccounts({}, 'sibling')],
  'financial-id-optional': [
    readingAccounts({ 'x-fapi-financial-id': undefined }),
    readingAccounts({ 'x-fapi-financial-id': 'another-bank' }),
  ],
  // AIS v3.1.1: x-fapi-customer-last-logged-time is an RFC 7231 date.
  'last-logged-time-format': [readingAccounts({ 'x-fapi-customer-last-logged-time': '2025-01-02T10:00:00Z' })],
  'consent-unknown-fields': [creatingConsent({ Colour: 'blue' })],
  'consent-local-time': [creatingConsent({ TransactionFromDateTime: '2025-01-02T00:00:00' })],
  // PISP OBWriteDomesticConsent4 (v4.0, closed objects): a member the version does not define.
  'payment-unknown-fields': [
    creatingPaymentConsent((request) => Object.assign((request.Data as { Initiation: object }).Initiation, { Colour: 'blue' })),
  ],
  // OB R/W Data API Profile v4.0 "Idempotency" and the file's x-idempotency-key (required): none sent.
  'idempotency-key-optional': [creatingPaymentConsent(() => undefined, { key: null })],
  // "Message Signing": iat in the past; this one is 30 seconds ahead of the bank's clock.
  'signature-iat-skew': [
    creatingPaymentConsent(() => undefined, { signature: { 'http://openbanking.org.uk/iat': Math.floor(Date.now() / 1000) + 30 } }),
  ],
  // OBL Operational Guidelines v4.0 (Backward and Forward Compatibility): a consent created on v4.0 read on v3.1.
  'consent-newer-version': [
    async ({ tpp }) => {
      const flow = await tpp.headlessFlow({}, '4.0');
      const headers = { authorization: `Bearer ${flow.accessToken}`, accept: 'application/json', 'x-fapi-financial-id': BANK_FINANCIAL_ID };
      return answered(await tpp.fetch('GET', `${tpp.aisBase('3.1')}/accounts`, { headers }), 200);
    },
  ],
};

/** Rows a row's attempts need tolerated in every profile while they run, because the row only shows behind them. */
export const POLICY_ALONGSIDE: Partial<Record<ToleranceName, readonly ToleranceName[]>> = {
  'state-optional': ['scope-without-openid'],
};
