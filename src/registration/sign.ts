// Signs the registration request (docs/bank-interface.md §2.1: PS256, header {alg, kid, typ: JWT}) with jose, and the
// `--dry-run` view of it: the signed JWT with its decoded header and claims, nothing sent.

import type { KeyObject } from 'node:crypto';
import { decodeProtectedHeader } from 'jose/decode/protected_header';
import { decodeJwt } from 'jose/jwt/decode';
import { SignJWT } from 'jose/jwt/sign';
import type { RegistrationClaims, RegistrationHeader } from './claims.js';

/** PS256 with RSA-PSS salt length = hash length, as jose implements it (RFC 7518 §3.5). */
export async function signRegistration(claims: RegistrationClaims, signingKey: KeyObject, kid: string): Promise<string> {
  const header: RegistrationHeader = { alg: 'PS256', kid, typ: 'JWT' };
  // The claims already carry iat/exp/jti/iss/aud; SignJWT copies the payload as given.
  return new SignJWT({ ...claims }).setProtectedHeader({ ...header }).sign(signingKey);
}

export interface SignedRegistration {
  jwt: string;
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
}

/** What `obflow register --dry-run` prints: decoded from the signed JWT itself, so it shows exactly what would be sent. */
export async function buildSignedRegistration(claims: RegistrationClaims, signingKey: KeyObject, kid: string): Promise<SignedRegistration> {
  const jwt = await signRegistration(claims, signingKey, kid);
  return { jwt, header: { ...decodeProtectedHeader(jwt) }, claims: { ...decodeJwt(jwt) } };
}
