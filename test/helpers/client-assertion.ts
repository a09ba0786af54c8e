// A client assertion (RFC 7523 §3) as the tests send one to the emulator's token and PAR endpoints: iss = sub = the
// client, the given aud, a fresh jti, 5 minutes of life; claim overrides (undefined deletes a claim) for the refusals.

import { createPrivateKey, randomUUID } from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';

export function signClientAssertion(input: {
  clientId: string;
  aud: unknown;
  /** The signing key (PEM) and its kid. */
  key: string;
  kid: string;
  overrides?: Record<string, unknown>;
  /** The JOSE header's typ (none when left out). */
  typ?: string;
}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    iss: input.clientId,
    sub: input.clientId,
    aud: input.aud,
    jti: randomUUID(),
    iat: now,
    exp: now + 300,
  };
  for (const [name, value] of Object.entries(input.overrides ?? {})) {
    if (value === undefined) delete claims[name];
    else claims[name] = value;
  }
  return new SignJWT(claims as JWTPayload)
    .setProtectedHeader({ alg: 'PS256', kid: input.kid, ...(input.typ === undefined ? {} : { typ: input.typ }) })
    .sign(createPrivateKey(input.key));
}
