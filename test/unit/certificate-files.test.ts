// The client certificate's files kept in memory for a run (src/run/certificate-files.ts): newman's file
// resolver answers the kept paths from memory (the file may be gone meanwhile) and reads every other file, and a kept
// path once released, from disk; a path two runs keep stays until both release it.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { certificateFileStats, keepCertificateFiles } from '../../src/run/certificate-files.js';
import { loadNewmanFileResolver } from '../../src/run/newman-load.js';
import type { SslClientCert } from '../../src/run/certificates.js';
import { tempDirSync } from '../helpers/temp.js';

type ReadFile = (path: string, ...rest: unknown[]) => void;
// newman's resolver as obflow loads it (newman-load.ts: under the same DEP0176 guard as newman).
const SecureFS = (await loadNewmanFileResolver()) as unknown as new (dir: string, insecure: boolean) => { readFile: ReadFile };

/** What newman's resolver gives for `path` (as postman-runtime asks: no options), or the error's code. */
function newmanRead(path: string, ...options: unknown[]): Promise<string> {
  return new Promise((resolve) => {
    new SecureFS(process.cwd(), true).readFile(path, ...options, (error: NodeJS.ErrnoException | null, data?: Buffer | string) =>
      resolve(error !== null ? String(error.code) : String(data)),
    );
  });
}

/** A key and certificate pair of files, and the list entry naming them. */
function pair(): { key: string; cert: string; list: SslClientCert[] } {
  const dir = tempDirSync('obflow-cert-files-');
  const key = join(dir, 'transport.key');
  const cert = join(dir, 'transport.pem');
  writeFileSync(key, 'KEY');
  writeFileSync(cert, 'CERT');
  return { key, cert, list: [{ name: 'transport', matches: ['https://bank.example:8443/*'], key: { src: key }, cert: { src: cert } }] };
}

describe('keepCertificateFiles', () => {
  it("answers newman's reads of the list's files from memory until released, then from disk", async () => {
    const { key, cert, list } = pair();
    const release = await keepCertificateFiles(list);
    rmSync(key);
    writeFileSync(cert, 'RENEWED');
    const before = certificateFileStats().answered;
    expect(await newmanRead(key)).toBe('KEY');
    expect(await newmanRead(cert)).toBe('CERT');
    expect(certificateFileStats().answered).toBe(before + 2);
    release();
    expect(await newmanRead(key)).toBe('ENOENT');
    expect(await newmanRead(cert)).toBe('RENEWED');
    expect(certificateFileStats().answered).toBe(before + 2);
  });

  it('reads from disk what the list does not name, and a read with options', async () => {
    const { cert, list } = pair();
    const other = join(cert, '..', 'other.pem');
    writeFileSync(other, 'OTHER');
    const release = await keepCertificateFiles(list);
    try {
      writeFileSync(cert, 'NEW');
      expect(await newmanRead(other)).toBe('OTHER');
      expect(await newmanRead(cert, 'utf8')).toBe('NEW');
      expect(readFileSync(cert, 'utf8')).toBe('NEW');
    } finally {
      release();
    }
  });

  it('keeps a path two runs keep until both release it, with the bytes the later run read; a file missing at the start is read by newman itself', async () => {
    const { key, list } = pair();
    const missing = join(key, '..', 'missing.pem');
    const first = await keepCertificateFiles([...list, { name: 'gone', matches: ['https://other.example:443/*'], cert: { src: missing } }]);
    writeFileSync(key, 'RENEWED KEY');
    const second = await keepCertificateFiles(list);
    rmSync(key);
    expect(await newmanRead(key)).toBe('RENEWED KEY');
    first();
    first();
    expect(await newmanRead(key)).toBe('RENEWED KEY');
    expect(await newmanRead(missing)).toBe('ENOENT');
    second();
    expect(await newmanRead(key)).toBe('ENOENT');
  });
});
