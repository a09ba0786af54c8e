// Message signing, family-agnostic (OB Read/Write Data API Profile v4.0, "Message Signing"; the same since v3.1.4):
// a detached JWS (RFC 7515 Appendix F) of the HTTP body in x-jws-signature, PS256, `kid`, the three
// http://openbanking.org.uk/ claims iat, iss and tan, and `crit` naming exactly those three; no `b64` (so the payload is
// the body base64url-encoded, RFC 7515 §5.1). `verifyRequestSignature` is the bank's check of a TPP's request, every
// fault named as the code set names it (OBExternalStatusReason1Code U015–U019); `signResponse` signs the bank's answer.

import { compactVerify } from 'jose/jws/compact/verify';
import { CompactSign } from 'jose/jws/compact/sign';
import * as joseErrors from 'jose/errors';
import { importJWK } from 'jose/key/import';
import type { CryptoKey, JWK } from 'jose';

import { keepAtMost } from './kept.js';

/** The three private header parameters every OB signature carries, all critical. */
export const OB_IAT = 'http://openbanking.org.uk/iat';
export const OB_ISS = 'http://openbanking.org.uk/iss';
export const OB_TAN = 'http://openbanking.org.uk/tan';
export const OB_CRITICAL = [OB_IAT, OB_ISS, OB_TAN] as const;

/** "when using the Open Banking Directory, the value must be openbanking.org.uk" (the Trust Anchor of this bank's
 *  directory, which it trusts alone). */
export const TRUST_ANCHOR = 'openbanking.org.uk';

/** The signing algorithm: "The signer must sign the message with PS256." */
export const SIGNATURE_ALG = 'PS256';

/** "The verifier must validate the JOSE header to ensure that it is a valid JSON object with only the claims specified
 *  in Process for Signing a Payload - Step 2": alg, typ, cty, kid, the three OB claims and crit. `b64` is not among
 *  them (removed in v3.1.4), so a header with it is refused. */
const HEADER_CLAIMS = new Set<string>(['alg', 'typ', 'cty', 'kid', ...OB_CRITICAL, 'crit']);

/** The OBErrorResponse1 code of each fault, as the code set describes them (v3.1 names; U015–U019 on v4.0). */
export type SignatureFaultCode =
  | 'UK.OBIE.Signature.Missing'
  | 'UK.OBIE.Signature.Malformed'
  | 'UK.OBIE.Signature.MissingClaim'
  | 'UK.OBIE.Signature.InvalidClaim'
  | 'UK.OBIE.Signature.Invalid';

export interface SignatureFault {
  code: SignatureFaultCode;
  /** The claim at fault (the code set: "The name of the missing claim should be specified in the path field"), else
   *  the header. */
  path: string;
  message: string;
}

/** What a request's signature must match: the client's software statement. */
export interface SignerOfRequest {
  /** The statement's public keys (software_jwks): `kid` names one of them. */
  keys: readonly Record<string, unknown>[];
  /** `{org_id}/{software_id}` of the statement ("When issued by a TPP, of the form {{org-id}}/{{software-statement-id}}"). */
  iss: string;
  now: Date;
  /** Seconds an `iat` may be ahead of the bank's clock (0 but where tolerated: signature-iat-skew). */
  iatSkewSeconds: number;
}

const fault = (code: SignatureFaultCode, path: string, message: string): SignatureFault => ({ code, path, message });

/**
 * The fault of `signature` (the x-jws-signature header, undefined when absent) over `body` (the request body exactly as
 * received), or undefined when it verifies: "Process for Verifying a Signature", steps 1–3.
 */
export async function verifyRequestSignature(
  signature: string | undefined,
  body: string,
  signer: SignerOfRequest,
): Promise<SignatureFault | undefined> {
  // "The ASPSP must reject any API requests that should be signed but do not contain a signature in the HTTP header."
  if (signature === undefined || signature.trim() === '')
    return fault('UK.OBIE.Signature.Missing', 'x-jws-signature', 'x-jws-signature is required on this request');
  // Step 1: a detached compact JWS: header..signature.
  const parts = signature.trim().split('.');
  if (parts.length !== 3 || parts[1] !== '' || !isBase64Url(parts[0] ?? '') || !isBase64Url(parts[2] ?? '') || parts[2] === '')
    return fault(
      'UK.OBIE.Signature.Malformed',
      'x-jws-signature',
      'x-jws-signature must be a detached JWS, <header>..<signature> (RFC 7515 Appendix F)',
    );
  const [encodedHeader = '', , encodedSignature = ''] = parts;
  let header: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(encodedHeader, 'base64url').toString('utf8'));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new TypeError('not an object');
    header = parsed as Record<string, unknown>;
  } catch {
    return fault('UK.OBIE.Signature.Malformed', 'x-jws-signature', "x-jws-signature's JOSE header is not a JSON object");
  }
  // Step 2: the JOSE header.
  const headerFault = checkHeader(header, signer);
  if (headerFault !== undefined) return headerFault;
  const key = await keyOf(signer.keys, header.kid as string);
  if (key === undefined)
    return fault('UK.OBIE.Signature.InvalidClaim', 'kid', `kid ${String(header.kid)} names no signing key of the software statement`);
  // Step 3: re-insert the payload (the body as received, base64url as b64 is absent) and verify.
  try {
    await compactVerify(`${encodedHeader}.${Buffer.from(body, 'utf8').toString('base64url')}.${encodedSignature}`, key, {
      algorithms: [SIGNATURE_ALG],
      crit: Object.fromEntries(OB_CRITICAL.map((name) => [name, true])),
    });
  } catch (error) {
    if (error instanceof joseErrors.JWSSignatureVerificationFailed)
      return fault(
        'UK.OBIE.Signature.Invalid',
        'x-jws-signature',
        'the signature does not verify over the request body with the key kid names',
      );
    return fault('UK.OBIE.Signature.Malformed', 'x-jws-signature', `x-jws-signature cannot be verified: ${(error as Error).message}`);
  }
  return undefined;
}

function checkHeader(header: Record<string, unknown>, signer: SignerOfRequest): SignatureFault | undefined {
  const unexpected = Object.keys(header).find((name) => !HEADER_CLAIMS.has(name));
  if (unexpected !== undefined)
    return fault(
      'UK.OBIE.Signature.InvalidClaim',
      unexpected,
      unexpected === 'b64'
        ? 'b64 must not be present: the payload is base64url-encoded since v3.1.4'
        : `${unexpected} is not a claim of an OB message signature`,
    );
  for (const name of ['alg', 'kid', ...OB_CRITICAL, 'crit'])
    if (header[name] === undefined) return fault('UK.OBIE.Signature.MissingClaim', name, `the JOSE header has no ${name}`);
  if (header.alg !== SIGNATURE_ALG) return fault('UK.OBIE.Signature.InvalidClaim', 'alg', `alg must be ${SIGNATURE_ALG}`);
  if (header.typ !== undefined && header.typ !== 'JOSE')
    return fault('UK.OBIE.Signature.InvalidClaim', 'typ', 'typ, when present, must be JOSE');
  if (header.cty !== undefined && header.cty !== 'json' && header.cty !== 'application/json')
    return fault('UK.OBIE.Signature.InvalidClaim', 'cty', 'cty, when present, must be json or application/json for a JSON body');
  if (typeof header.kid !== 'string' || header.kid === '') return fault('UK.OBIE.Signature.InvalidClaim', 'kid', 'kid must be a string');
  const crit = header.crit;
  // "a string array consisting of the values …iat, …iss, …tan"; "must ensure that the crit claim does not contain
  // additional critical elements".
  if (
    !Array.isArray(crit) ||
    crit.length !== OB_CRITICAL.length ||
    new Set(crit).size !== crit.length ||
    !OB_CRITICAL.every((name) => crit.includes(name))
  )
    return fault('UK.OBIE.Signature.InvalidClaim', 'crit', `crit must be exactly ${OB_CRITICAL.join(', ')}`);
  const iat = header[OB_IAT];
  if (typeof iat !== 'number' || !Number.isFinite(iat))
    return fault('UK.OBIE.Signature.InvalidClaim', OB_IAT, `${OB_IAT} must be a JSON number of seconds`);
  // "The verifier must ensure that the http://openbanking.org.uk/iat claim has a date-time value set in the past."
  if (iat > signer.now.getTime() / 1000 + signer.iatSkewSeconds)
    return fault('UK.OBIE.Signature.InvalidClaim', OB_IAT, `${OB_IAT} must be in the past`);
  if (header[OB_ISS] !== signer.iss)
    return fault(
      'UK.OBIE.Signature.InvalidClaim',
      OB_ISS,
      `${OB_ISS} must be ${signer.iss} ({org_id}/{software_id} of the software statement)`,
    );
  if (header[OB_TAN] !== TRUST_ANCHOR)
    return fault('UK.OBIE.Signature.InvalidClaim', OB_TAN, `${OB_TAN} must be ${TRUST_ANCHOR}, the trust anchor of this bank`);
  return undefined;
}

function isBase64Url(text: string): boolean {
  return /^[A-Za-z0-9_-]*$/.test(text);
}

/** Imported keys, by kid and modulus (a statement's keys do not change under a kid; the modulus makes sure). */
const importedKeys = new Map<string, CryptoKey>();
const IMPORTED_KEYS = 64;

async function keyOf(keys: readonly Record<string, unknown>[], kid: string): Promise<CryptoKey | undefined> {
  const jwk = keys.find((candidate) => candidate.kid === kid && candidate.kty === 'RSA' && (candidate.use ?? 'sig') === 'sig');
  if (jwk === undefined) return undefined;
  const cacheKey = `${kid}\u0000${String(jwk.n)}`;
  let key = importedKeys.get(cacheKey);
  if (key === undefined) {
    try {
      key = (await importJWK({ kty: 'RSA', n: jwk.n, e: jwk.e } as JWK, SIGNATURE_ALG)) as CryptoKey;
    } catch {
      return undefined;
    }
    keepAtMost(importedKeys, IMPORTED_KEYS, cacheKey, key);
  }
  return key;
}

/** The bank's signer: its key and its `iss` (the bank's organisation id: "When issued by an ASPSP of the form
 *  {{org-id}}"). */
export interface BankSigner {
  kid: string;
  privateKey: CryptoKey;
  iss: string;
}

/** x-jws-signature for `body` (the answer's body exactly as sent), signed by the bank at `now`. */
export async function signResponse(body: string, signer: BankSigner, now: Date): Promise<string> {
  const jws = await new CompactSign(new TextEncoder().encode(body))
    .setProtectedHeader({
      alg: SIGNATURE_ALG,
      kid: signer.kid,
      [OB_IAT]: Math.floor(now.getTime() / 1000),
      [OB_ISS]: signer.iss,
      [OB_TAN]: TRUST_ANCHOR,
      crit: [...OB_CRITICAL],
    })
    .sign(signer.privateKey, { crit: Object.fromEntries(OB_CRITICAL.map((name) => [name, true])) });
  const [header, , signature] = jws.split('.');
  return `${header ?? ''}..${signature ?? ''}`;
}
