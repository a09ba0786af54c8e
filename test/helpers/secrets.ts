// The secret scan the tests share (the workspace test, the merged page of `obflow report merge`): every secret a run
// saw, as whole values and private keys line by line, and the files that hold any of them.

import { createPrivateKey } from 'node:crypto';

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
