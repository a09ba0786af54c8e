// A signed, idempotent payment consent POST as a TPP makes it (bench/payment-load.js, bench/payment-posts.js, and the
// raw client of bench/vrp-mandate.js): its own body, x-idempotency-key and x-fapi-interaction-id, and a detached PS256
// JWS of the body in x-jws-signature (OB R/W Data API Profile "Message Signing": kid, iat, iss = {org_id}/{software_id},
// tan, crit), signed with node:crypto — not obflow's signer.

import { Buffer } from 'node:buffer';
import { constants, createPrivateKey, randomUUID, sign } from 'node:crypto';

export const OB_CRIT = ['http://openbanking.org.uk/iat', 'http://openbanking.org.uk/iss', 'http://openbanking.org.uk/tan'];
const b64 = (data) => Buffer.from(data).toString('base64url');
const keys = new WeakMap();

/** A detached JWS of `body` (text) with `job`'s signing key (a private JWK), kid, iss and tan. */
export function detachedJws(body, job) {
  let key = keys.get(job.signingKey);
  if (key === undefined) {
    key = createPrivateKey({ key: job.signingKey, format: 'jwk' });
    keys.set(job.signingKey, key);
  }
  const header = b64(
    JSON.stringify({
      alg: 'PS256',
      kid: job.kid,
      [OB_CRIT[0]]: Math.floor(Date.now() / 1000) - 1,
      [OB_CRIT[1]]: job.iss,
      [OB_CRIT[2]]: job.tan,
      crit: OB_CRIT,
    }),
  );
  const signature = sign('sha256', Buffer.from(`${header}.${b64(body)}`), {
    key,
    padding: constants.RSA_PKCS1_PSS_PADDING,
    saltLength: 32,
  });
  return `${header}..${b64(signature)}`;
}

/** The body (OBWriteDomesticConsent, v3.1.11) and headers of one signed payment consent POST under `job.token`. */
export function signedPost(job) {
  const body = JSON.stringify({
    Data: {
      Initiation: {
        InstructionIdentification: `BENCH-${randomUUID().slice(0, 18)}`,
        EndToEndIdentification: 'E2E-BENCH',
        InstructedAmount: { Amount: '10.00', Currency: 'GBP' },
        CreditorAccount: { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: '08080021325698', Name: 'ACME Inc' },
        RemittanceInformation: { Reference: 'bench' },
      },
    },
    Risk: { PaymentContextCode: 'TransferToThirdParty' },
  });
  return {
    body,
    headers: {
      authorization: `Bearer ${job.token}`,
      'content-type': 'application/json',
      accept: 'application/json',
      'x-fapi-financial-id': job.financialId,
      'x-fapi-interaction-id': randomUUID(),
      'x-idempotency-key': randomUUID(),
      'x-jws-signature': detachedJws(body, job),
    },
  };
}
