// The client profiles' tolerances as one table: each row a named rule of the standard that some profiles relax, which
// profiles relax it, the clause it relaxes, and what is accepted instead. Handlers ask `tolerates(profile, name)`;
// nothing else in the emulator tells the profiles apart by their rules. docs/sandbox.md carries the same table
// ("Tolerances"), checked against this one by test/unit/sandbox-policy.test.ts. Unsafe things (an unregistered
// redirect URI, another client's consent, a bad signature) are refused by every profile and have no row.

import type { ProfileName } from './contracts.js';

/** The permissive profiles: they tolerate what real clients often get wrong, never what is unsafe. */
const PERMISSIVE = ['permissive-headless', 'permissive-interactive'] as const satisfies readonly ProfileName[];

export interface Tolerance {
  /** The name the handlers ask for and docs/sandbox.md lists. */
  name: string;
  /** The profiles that tolerate it; every other profile enforces the rule. */
  profiles: readonly ProfileName[];
  /** The clause of the standard the tolerance relaxes. */
  relaxes: string;
  /** What a profile with the tolerance accepts. */
  accepts: string;
}

export const TOLERANCES = [
  // ---- Authorization endpoint --------------------------------------------------------------------------------
  {
    name: 'request-object-optional',
    profiles: PERMISSIVE,
    relaxes: 'FAPI 1 Advanced Part 2 §5.2.2-1',
    accepts: 'an authorisation request without a request object (parameters in the query)',
  },
  {
    name: 'query-parameters',
    profiles: PERMISSIVE,
    relaxes: 'FAPI 1 Advanced Part 2 §5.2.2-10',
    accepts: 'parameters only in the query when a request object is sent (the request object wins where both have one)',
  },
  {
    name: 'query-copies-optional',
    profiles: PERMISSIVE,
    relaxes: 'OIDC Core §6.1',
    accepts: 'client_id, response_type, scope missing from the query beside a request object, or a query scope that differs',
  },
  {
    name: 'request-object-exp',
    profiles: PERMISSIVE,
    relaxes: 'FAPI 1 Advanced Part 2 §5.2.2-13',
    accepts: 'a request object without exp, or living longer than 60 minutes after its nbf',
  },
  {
    name: 'request-object-nbf',
    profiles: PERMISSIVE,
    relaxes: 'FAPI 1 Advanced Part 2 §5.2.2-17',
    accepts: 'a request object without nbf, or with one more than 60 minutes in the past',
  },
  {
    name: 'request-object-aud',
    profiles: PERMISSIVE,
    relaxes: 'FAPI 1 Advanced Part 2 §5.2.2-15; RFC 9101 §4',
    accepts: 'a request object without aud (one with aud must still name this issuer), with any iss',
  },
  {
    name: 'redirect-uri-default',
    profiles: PERMISSIVE,
    relaxes: 'FAPI 1 Baseline Part 1 §5.2.2-9',
    accepts: 'no redirect_uri when the client registered exactly one',
  },
  { name: 'scope-extra-spaces', profiles: PERMISSIVE, relaxes: 'RFC 6749 §3.3', accepts: 'scope values separated by more than one space' },
  {
    name: 'scope-without-openid',
    profiles: PERMISSIVE,
    relaxes: 'FAPI 1 Advanced Part 2 §5.2.2-2',
    accepts: 'a code request whose scope lacks openid (code id_token still needs it, OIDC Core §3.3.2.1)',
  },
  {
    name: 'state-optional',
    profiles: PERMISSIVE,
    relaxes: 'FAPI 1 Baseline Part 1 §5.2.2.3',
    accepts: 'an authorisation request without state whose scope lacks openid (with openid, state is optional everywhere)',
  },
  {
    name: 'nonce-optional',
    profiles: PERMISSIVE,
    relaxes: 'FAPI 1 Advanced Part 2 §5.2.2.2',
    accepts: 'a code request without nonce (code id_token still needs it, OIDC Core §3.3.2.11)',
  },
  {
    name: 'intent-id-not-essential',
    profiles: PERMISSIVE,
    relaxes: 'OB Security Profile, openbanking_intent_id; OIDC Core §5.5.1',
    accepts: 'openbanking_intent_id requested without essential: true',
  },
  {
    name: 'pkce-plain',
    profiles: PERMISSIVE,
    relaxes: 'FAPI 1 Baseline Part 1 §5.2.2-7',
    accepts: 'code_challenge_method plain (or none given: plain, RFC 7636 §4.3)',
  },
  {
    name: 'par-pkce-optional',
    profiles: PERMISSIVE,
    relaxes: 'FAPI 2.0 Security Profile §5.3.2.2 (PKCE with S256); RFC 7636 §4.4.1',
    accepts: 'a pushed authorization request without code_challenge',
  },
  {
    name: 'code-without-jarm',
    profiles: PERMISSIVE,
    relaxes: 'FAPI 1 Advanced Part 2 §5.2.2-2',
    accepts: 'response_type code without response_mode jwt under `--fapi 1-advanced` (the interface and 2.0 take plain code everywhere)',
  },
  // ---- Token endpoint, registration, certificates ------------------------------------------------------------
  {
    name: 'client-secret-post',
    profiles: PERMISSIVE,
    relaxes: 'RFC 6749 §2.3.1; DCR v3.2 token_endpoint_auth_method',
    accepts: 'client_secret_post besides client_secret_basic (also published in discovery)',
  },
  {
    name: 'tls-client-auth-dn-form',
    profiles: PERMISSIVE,
    relaxes: 'RFC 8705 §2.1.2; RFC 4514 §2 (tls_client_auth_subject_dn)',
    accepts: 'a registered subject DN with its RDNs in another order, or in the OpenSSL form /C=GB/O=…/CN=…',
  },
  {
    name: 'foreign-transport-certificate',
    profiles: PERMISSIVE,
    relaxes: 'RFC 8705 §2.1; OB transport certificate (CN = software_id)',
    accepts: 'a directory certificate of another software statement at registration and the token endpoint',
  },
  {
    name: 'refresh-token-unbound',
    profiles: PERMISSIVE,
    relaxes: 'RFC 8705 §4',
    accepts: 'a refresh token presented with another certificate than the one it was issued to',
  },
  {
    name: 'registration-defaults',
    profiles: PERMISSIVE,
    relaxes: 'DCR v3.2 OBRegistrationProperties1 (required claims)',
    accepts: 'a registration without a required claim whose value is fixed (filled with it), grant_types, response_types or scope',
  },
  // ---- Resource server (AIS) -----------------------------------------------------------------------------------
  {
    name: 'access-token-unbound',
    profiles: PERMISSIVE,
    relaxes: 'RFC 8705 §3; FAPI 1 Advanced Part 2 §6.2.1-1',
    accepts: 'an access token presented with another certificate than the one it was issued to',
  },
  {
    name: 'financial-id-optional',
    profiles: PERMISSIVE,
    relaxes: 'AIS v3.1.1 x-fapi-financial-id (required)',
    accepts: 'a missing x-fapi-financial-id, or one naming another ASPSP',
  },
  {
    name: 'last-logged-time-format',
    profiles: PERMISSIVE,
    relaxes: 'AIS v3.1.1 x-fapi-customer-last-logged-time (RFC 7231 date)',
    accepts: 'an x-fapi-customer-last-logged-time that is not an RFC 7231 date',
  },
  {
    name: 'consent-unknown-fields',
    profiles: PERMISSIVE,
    relaxes: 'AIS v3.1 OBReadConsent1 (no further properties)',
    accepts: 'unknown members in a consent request (ignored)',
  },
  {
    name: 'consent-newer-version',
    profiles: PERMISSIVE,
    relaxes: 'OB Operational Guidelines v4.0, Implementation of a new Open Banking Standard (Backward and Forward Compatibility)',
    accepts: 'a consent created on v4.0 used on v3.1 (read, read through, deleted), as banks that keep one consent store do',
  },
  {
    name: 'consent-local-time',
    profiles: PERMISSIVE,
    relaxes: 'AIS v3.1 ISODateTime; RFC 3339 §5.6',
    accepts: 'consent date-times without a time-zone offset (read as UTC)',
  },
  // ---- Payments and funds confirmation (docs/sandbox-payments.md) -----------------------------------------------
  {
    name: 'payment-unknown-fields',
    profiles: PERMISSIVE,
    relaxes:
      'OBIE PISP v3.1.11 / v4.0 OBWriteDomesticConsent4, OBWriteDomestic2; CBPII OBFundsConfirmationConsent1, OBFundsConfirmation1; ' +
      'VRP OBDomesticVRPConsentRequest, OBDomesticVRPRequest, OBVRPFundsConfirmationRequest (no further properties)',
    accepts: 'unknown members in a payment, VRP or funds-confirmation request (dropped: neither kept, compared nor echoed)',
  },
  {
    name: 'idempotency-key-optional',
    profiles: PERMISSIVE,
    relaxes: 'OB R/W Data API Profile v4.0 Idempotency; PISP and VRP x-idempotency-key (required)',
    accepts: 'a payment or VRP consent, or payment, POST without x-idempotency-key (each such POST creates a resource)',
  },
  {
    name: 'signature-iat-skew',
    profiles: PERMISSIVE,
    relaxes: 'OB R/W Data API Profile v4.0 Message Signing, Process for Verifying a Signature (iat in the past)',
    accepts: "a request signature whose http://openbanking.org.uk/iat is up to 60 seconds ahead of the bank's clock",
  },
] as const satisfies readonly Tolerance[];

export type ToleranceName = (typeof TOLERANCES)[number]['name'];

const BY_NAME = new Map<string, Tolerance>(TOLERANCES.map((row) => [row.name, row]));

/** Whether `profile` tolerates what the rule `name` forbids. */
export function tolerates(profile: ProfileName, name: ToleranceName): boolean {
  const row = BY_NAME.get(name);
  if (!row) throw new TypeError(`unknown tolerance ${name}`);
  return row.profiles.includes(profile);
}
