// The secret scan the tests share (the workspace test, the merged page of `obflow report merge`): every secret a run
// was issued, as whole values and private keys line by line, and the files that hold any of them. What counts as a
// secret comes from what was issued (issuedSecrets), never from the `secret` marking the scans are there to check.

import { createPrivateKey } from 'node:crypto';

/**
 * The variables the collection fills from what the bank issued — the token responses (client_credentials_token,
 * access_token, refresh_token, token_id_token), the authorisation response (auth_code, id_token, and the state and
 * nonce it echoes) — and those obflow builds from the issued credentials and keys (_clientSecret, basicToken,
 * signing_key, client_assertion). Kept here by hand, from the protocol, so a scan does not take its list from the
 * `secret` marking it is checking: a variable that stopped being marked is still scanned for.
 */
export const ISSUED_VARIABLES = [
  'client_credentials_token',
  'access_token',
  'refresh_token',
  'token_id_token',
  'auth_code',
  'id_token',
  'state',
  'nonce',
  '_clientSecret',
  'basicToken',
  'signing_key',
  'client_assertion',
] as const;

/** What was issued to a run, whatever any environment marks: the registration response's client_secret (and the Basic
 *  credentials built from it), every value an environment holds under ISSUED_VARIABLES (and the private members of a
 *  JWK among them), and the identity's private keys whole, line by line and as JWK members. */
export function issuedSecrets(input: {
  registration?: { client_id?: unknown; client_secret?: unknown };
  environments?: readonly (readonly { key: string; value: string }[])[];
  keyPems?: readonly string[];
}): Set<string> {
  const secrets = new Set<string>();
  const id = input.registration?.client_id;
  const secret = input.registration?.client_secret;
  if (typeof secret === 'string' && secret !== '') {
    secrets.add(secret);
    if (typeof id === 'string') {
      secrets.add(Buffer.from(`${id}:${secret}`).toString('base64'));
      secrets.add(Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64'));
    }
  }
  const names = new Set<string>(ISSUED_VARIABLES);
  const values = (input.environments ?? []).flatMap((values) => values.filter((entry) => names.has(entry.key) && entry.value !== ''));
  for (const { value } of values) secrets.add(value);
  for (const member of jwkPrivateMembers(values.map((entry) => entry.value))) secrets.add(member);
  const { whole, lines, members } = keyMaterial(input.keyPems ?? []);
  for (const value of [...whole, ...lines, ...members]) secrets.add(value);
  return secrets;
}

/** The non-empty values a Postman environment types `secret` (client secret, basicToken, tokens, codes). */
export function secretValues(values: readonly { value: string; type?: string }[]): string[] {
  return values.filter((entry) => entry.type === 'secret' && entry.value !== '').map((entry) => entry.value);
}

/** Private keys (PEM) whole, their base64 lines of 40 characters or more (a key quoted in part still counts), and the
 *  private members of each as a JWK (the same key as Postman's `signing_key` or a report would quote it). */
export function keyMaterial(pems: readonly string[]): { whole: string[]; lines: string[]; members: string[] } {
  return {
    whole: [...pems],
    lines: pems.flatMap((pem) => pem.split('\n').filter((line) => line.length >= 40 && !line.startsWith('-----'))),
    members: jwkPrivateMembers(pems.map((pem) => JSON.stringify(createPrivateKey(pem).export({ format: 'jwk' })))),
  };
}

/** The private members of a JWK (RFC 7518 §6.3.2 for RSA, §6.2.2 for EC, RFC 8037 for OKP) among `values` (e.g. the
 *  environment's `signing_key`): a report or page quoting only `d` or a prime leaks the key while its whole JSON text
 *  is nowhere in the file. Values that are not a JWK's JSON give nothing. */
export function jwkPrivateMembers(values: Iterable<string>): string[] {
  const members: string[] = [];
  for (const value of values) {
    let jwk: unknown;
    try {
      jwk = JSON.parse(value);
    } catch {
      continue;
    }
    if (typeof jwk !== 'object' || jwk === null) continue;
    for (const name of ['d', 'p', 'q', 'dp', 'dq', 'qi']) {
      const member = (jwk as Record<string, unknown>)[name];
      if (typeof member === 'string' && member !== '') members.push(member);
    }
  }
  return members;
}

/** `<path> holds a secret (<first 6 characters>…)` for every secret found in a file, and for any PEM private key. */
export function leakedSecrets(files: ReadonlyMap<string, string | Buffer>, secrets: Iterable<string>): string[] {
  const all = [...secrets].filter((secret) => secret !== '');
  const found: string[] = [];
  for (const [path, bytes] of files) {
    const text = bytes.toString();
    for (const secret of all) if (text.includes(secret)) found.push(`${path} holds a secret (${secret.slice(0, 6)}…)`);
    if (/PRIVATE KEY/.test(text)) found.push(`${path} holds a private key`);
  }
  return found;
}

/** The signature part of each detached JWS (`header..signature`, x-jws-signature of a request or an answer, OB R/W
 *  Data API Profile "Message Signing"): public on the wire, but no report, page or log of obflow quotes it (they carry
 *  no headers), so a scan that finds one has found a header or body leaking into a page. */
export function messageSignatureParts(signatures: Iterable<string>): string[] {
  return [...signatures].flatMap((signature) => {
    const part = signature.split('.')[2] ?? '';
    return part.length >= 40 ? [part] : [];
  });
}
