// ID tokens (OpenID Connect Core §2, §3.3.2.11; OB Security Profile): PS256, sub = ConsentId, openbanking_intent_id,
// acr, nonce, and the hybrid flow's c_hash / s_hash (FAPI 1 Advanced §5.2.2.1) or the token endpoint's at_hash.

import { createHash } from 'node:crypto';

import { SignJWT } from 'jose/jwt/sign';

import type { IdTokenFault } from '../contracts.js';
import type { SigningKey } from './keys.js';

/** The Open Banking SCA acr value (OB Security Profile §5.2.2). */
export const ACR_SCA = 'urn:openbanking:psd2:sca';

/** Lifetime of an ID token in seconds. */
const ID_TOKEN_TTL = 300;

/** OIDC Core §3.3.2.11: base64url of the left-most half of the SHA-256 of the ASCII value. */
export function halfHash(value: string): string {
  const digest = createHash('sha256').update(value, 'ascii').digest();
  return digest.subarray(0, digest.length / 2).toString('base64url');
}

export interface IdTokenInput {
  issuer: string;
  clientId: string;
  consentId: string;
  authTime: number;
  now: Date;
  nonce?: string | undefined;
  code?: string;
  state?: string | undefined;
  accessToken?: string;
}

export async function signIdToken(key: SigningKey, input: IdTokenInput, fault?: IdTokenFault): Promise<string> {
  const iat = Math.floor(input.now.getTime() / 1000);
  const claims: Record<string, unknown> = {
    openbanking_intent_id: fault === 'wrong-intent-id' ? `${input.consentId}-other` : input.consentId,
    acr: ACR_SCA,
    auth_time: input.authTime,
  };
  if (input.nonce !== undefined) claims.nonce = input.nonce;
  if (input.code !== undefined) claims.c_hash = halfHash(fault === 'wrong-c-hash' ? `${input.code}x` : input.code);
  if (input.state !== undefined) claims.s_hash = halfHash(input.state);
  if (input.accessToken !== undefined) claims.at_hash = halfHash(input.accessToken);
  const jwt = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'PS256', kid: key.kid, typ: 'JWT' })
    .setIssuer(input.issuer)
    .setAudience(input.clientId)
    .setSubject(input.consentId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ID_TOKEN_TTL)
    .sign(key.privateKey);
  if (fault !== 'bad-signature') return jwt;
  // The right header and claims, a signature over other bytes: only a check of the signature notices.
  const [header, payload, signature = ''] = jwt.split('.');
  const bytes = Buffer.from(signature, 'base64url');
  bytes[0] = (bytes[0] ?? 0) ^ 0x01;
  return `${header}.${payload}.${bytes.toString('base64url')}`;
}

/** JARM §2.1 / §2.3.1 (response_mode=jwt for code): the authorisation response's parameters as one JWT, PS256 with the
 *  ID-token key (FAPI 1 Advanced §8.6), iss = the issuer, aud = the client, exp 10 minutes ahead. */
export async function signAuthorisationResponse(
  key: SigningKey,
  input: { issuer: string; clientId: string; now: Date; params: Record<string, string> },
): Promise<string> {
  const iat = Math.floor(input.now.getTime() / 1000);
  return new SignJWT({ ...input.params })
    .setProtectedHeader({ alg: 'PS256', kid: key.kid, typ: 'JWT' })
    .setIssuer(input.issuer)
    .setAudience(input.clientId)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 600)
    .sign(key.privateKey);
}
