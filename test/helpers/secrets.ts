// The secret scan the tests share (the workspace test, the merged page of `obflow report merge`): every secret a run
// saw, as whole values and private keys line by line, and the files that hold any of them.

/** The non-empty values a Postman environment types `secret` (client secret, basicToken, tokens, codes). */
export function secretValues(values: readonly { value: string; type?: string }[]): string[] {
  return values.filter((entry) => entry.type === 'secret' && entry.value !== '').map((entry) => entry.value);
}

/** Private keys (PEM) whole, and their base64 lines of 40 characters or more: a key quoted in part still counts. */
export function keyMaterial(pems: readonly string[]): { whole: string[]; lines: string[] } {
  return {
    whole: [...pems],
    lines: pems.flatMap((pem) => pem.split('\n').filter((line) => line.length >= 40 && !line.startsWith('-----'))),
  };
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
