// A TPP of the payments and funds-confirmation families for integration tests: a software statement with the AISP,
// PISP and CBPII roles, its requests signed with Node's crypto directly (RSA-PSS SHA-256, a detached JWS as OB R/W
// Data API Profile v4.0 "Message Signing" writes it; not the emulator's signer), the bank's signatures checked the
// same way against the key it publishes in the issuer's JWKS.

import { constants, createPrivateKey, createPublicKey, randomUUID, sign, verify } from 'node:crypto';
import type { JsonWebKey } from 'node:crypto';

import { issueVariantIdentity } from './identity.js';
import type { TestIdentity } from './identity.js';
import { BANK_FINANCIAL_ID, SandboxTpp } from './sandbox-client.js';
import type { SandboxFixture, WireResponse } from './sandbox-client.js';

export const OB_IAT = 'http://openbanking.org.uk/iat';
export const OB_ISS = 'http://openbanking.org.uk/iss';
export const OB_TAN = 'http://openbanking.org.uk/tan';
export const OB_CRIT = [OB_IAT, OB_ISS, OB_TAN];

export type Version = '3.1' | '4.0';
export const VERSIONS: readonly Version[] = ['3.1', '4.0'];

let identity: Promise<TestIdentity> | undefined;

/** A TPP of the default test directory whose statement has the AISP, PISP and CBPII roles (issued once per process). */
export function paymentsIdentity(): Promise<TestIdentity> {
  identity ??= issueVariantIdentity({ roles: ['AISP', 'PISP', 'CBPII'] });
  return identity;
}

const b64 = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

/**
 * A detached JWS of `body` signed with `identity`'s signing key: the OB header (alg PS256, kid, iat, iss =
 * {org_id}/{software_id}, tan, crit) with `header` members replacing or (undefined) removing its own.
 */
export function detachedSignature(
  body: string,
  signer: TestIdentity,
  header: Record<string, unknown> = {},
  options: { now?: number; key?: string } = {},
): string {
  const protectedHeader: Record<string, unknown> = {
    alg: 'PS256',
    kid: signer.manifest.kid,
    [OB_IAT]: Math.floor((options.now ?? Date.now()) / 1000) - 1,
    [OB_ISS]: `${signer.manifest.org_id}/${signer.manifest.software_id}`,
    [OB_TAN]: 'openbanking.org.uk',
    crit: OB_CRIT,
  };
  for (const [name, value] of Object.entries(header)) {
    if (value === undefined) delete protectedHeader[name];
    else protectedHeader[name] = value;
  }
  const encoded = b64(JSON.stringify(protectedHeader));
  const signature = sign('sha256', Buffer.from(`${encoded}.${b64(body)}`), {
    key: createPrivateKey(options.key ?? signer.pem.signingKey),
    padding: constants.RSA_PKCS1_PSS_PADDING,
    saltLength: 32,
  });
  return `${encoded}..${b64(signature)}`;
}

/** Verifies the bank's x-jws-signature over `body` with the key of `jwks` its kid names; returns its JOSE header, or
 *  throws saying what does not hold. */
export function verifyBankSignature(signature: string | undefined, body: string, jwks: { keys: JsonWebKey[] }): Record<string, unknown> {
  if (signature === undefined) throw new Error('no x-jws-signature');
  const [encoded = '', payload, sig = ''] = signature.split('.');
  if (payload !== '') throw new Error('not a detached JWS');
  const header = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Record<string, unknown>;
  const jwk = jwks.keys.find((key) => key.kid === header.kid);
  if (jwk === undefined) throw new Error(`kid ${String(header.kid)} is not in the JWKS`);
  const ok = verify(
    'sha256',
    Buffer.from(`${encoded}.${b64(body)}`),
    { key: createPublicKey({ key: jwk, format: 'jwk' }), padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 },
    Buffer.from(sig, 'base64url'),
  );
  if (!ok) throw new Error('the signature does not verify');
  return header;
}

/** A domestic payment consent request of `version` (OBWriteDomesticConsent4), with Initiation members replaced. */
export function paymentConsentRequest(
  version: Version,
  initiation: Record<string, unknown> = {},
  risk: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    Data: {
      Initiation: {
        InstructionIdentification: `ACME-${randomUUID().slice(0, 8)}`,
        EndToEndIdentification: 'E2E-INV-4711',
        InstructedAmount: { Amount: '12.34', Currency: 'GBP' },
        CreditorAccount: { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: '08080021325698', Name: 'ACME Ltd' },
        // v3.1.11 OBRemittanceInformation1 has Reference; v4.0 OBRemittanceInformation2 has Unstructured lines.
        RemittanceInformation: version === '3.1' ? { Reference: 'INV-4711', Unstructured: 'Invoice 4711' } : { Unstructured: ['INV-4711'] },
        ...initiation,
      },
    },
    Risk: { PaymentContextCode: 'TransferToThirdParty', ...risk },
  };
}

export interface SendOptions {
  /** The x-idempotency-key (default a fresh one; null: none). */
  key?: string | null;
  /** JOSE header members to replace or remove (undefined), or false: no x-jws-signature. */
  signature?: Record<string, unknown> | false;
  /** Send this x-jws-signature as is. */
  rawSignature?: string;
  headers?: Record<string, string>;
  /** Sign this text instead of the body sent (a changed body). */
  signedText?: string;
}

/** A registered client with the three roles, and the calls of the payments and funds families. */
export class PaymentsTpp extends SandboxTpp {
  static async open(fixture: SandboxFixture, profile: SandboxTpp['profile'] = 'strict-headless'): Promise<PaymentsTpp> {
    const tpp = fixture.track(new PaymentsTpp(fixture.urls, await paymentsIdentity(), profile));
    await tpp.register({ scope: 'openid accounts payments fundsconfirmations' });
    return tpp;
  }

  pisp(version: Version): string {
    return `${this.urls.sandbox_base_url}/open-banking/v${version}/pisp`;
  }

  cbpii(version: Version): string {
    return `${this.urls.sandbox_base_url}/open-banking/v${version}/cbpii`;
  }

  /** The issuer's JWKS (the ID-token key and the bank's message-signing key). */
  async jwks(): Promise<{ keys: JsonWebKey[] }> {
    const response = await this.fetch('GET', `${this.issuer}/jwks`);
    return response.json<{ keys: JsonWebKey[] }>();
  }

  /** POST `body` (JSON) to `url` with `token`, signed and with an idempotency key unless told otherwise. */
  post(url: string, token: string, body: unknown, options: SendOptions = {}): Promise<WireResponse> {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    const headers: Record<string, string> = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'x-fapi-financial-id': BANK_FINANCIAL_ID,
      'x-fapi-interaction-id': randomUUID(),
      ...(options.headers ?? {}),
    };
    if (options.key !== null) headers['x-idempotency-key'] = options.key ?? randomUUID();
    if (options.rawSignature !== undefined) headers['x-jws-signature'] = options.rawSignature;
    else if (options.signature !== false)
      headers['x-jws-signature'] = detachedSignature(options.signedText ?? text, this.identity, options.signature ?? {});
    return this.fetch('POST', url, { headers, body: text });
  }

  get(url: string, token: string, headers: Record<string, string> = {}): Promise<WireResponse> {
    return this.fetch('GET', url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json', ...headers } });
  }

  /** A payment consent of `version` created with a fresh client-credentials token; throws unless 201. */
  async paymentConsent(
    version: Version,
    request: Record<string, unknown> = paymentConsentRequest(version),
  ): Promise<{ consentId: string; token: string }> {
    const token = await this.clientCredentials('payments');
    const response = await this.post(`${this.pisp(version)}/domestic-payment-consents`, token, request);
    if (response.status !== 201) throw new Error(`payment consent answered ${response.status}: ${response.text}`);
    return { consentId: response.json<{ Data: { ConsentId: string } }>().Data.ConsentId, token };
  }

  /** The headless authorisation of `consentId` with `scope` and the code exchange: the access token. */
  async authorised(consentId: string, scope: string, loginHint?: string): Promise<string> {
    const authorize = await this.authorize({
      consentId,
      scope,
      responseType: 'code id_token',
      ...(loginHint === undefined ? {} : { loginHint }),
    });
    const code = authorize.params.get('code');
    if (!code) throw new Error(`authorise answered ${authorize.status} ${authorize.location ?? authorize.response.text}`);
    const exchanged = await this.exchangeCode(code, authorize.redirectUri);
    if (exchanged.status !== 200) throw new Error(`code exchange answered ${exchanged.status}: ${exchanged.text}`);
    return exchanged.json<{ access_token: string }>().access_token;
  }

  /** The request of POST /domestic-payments for a consent (OBWriteDomestic2): its Initiation and Risk as given. */
  paymentRequest(consentId: string, consentRequest: Record<string, unknown>): Record<string, unknown> {
    const data = consentRequest.Data as { Initiation: unknown };
    return { Data: { ConsentId: consentId, Initiation: data.Initiation }, Risk: consentRequest.Risk };
  }
}
