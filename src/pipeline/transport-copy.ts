// The PEM copy of a legacy PFX's certificate and key that newman reads (Node 20's OpenSSL 3 cannot open an RC2-40
// PFX, and newman runs in this process): written into the run's own temporary folder (0700, files 0600), removed when
// the run ends and on interrupt (src/interrupt.ts removes what src/fs.ts marks unfinished), so the decrypted key never
// outlives the run — no secret stays in a file obflow writes unless asked (README, "Secrets").

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { markUnfinished, writeFileExact } from '../fs.js';
import { ObflowError } from '../errors.js';

const HINT =
  'Check that the temporary folder (TMPDIR) is writable, or convert the PFX to PEM (openssl pkcs12 -legacy) and configure those.';

function writeFailed(what: string, cause: unknown): ObflowError {
  return new ObflowError('ERR_WRITE_FAILED', `${what}: ${(cause as Error).message}`, { hint: HINT, cause });
}

export interface TransportCopy {
  /** What newman reads: the certificate (with its chain) and the decrypted key. */
  transport: { cert: string; key: string };
  /** The folder holding both; gone after remove(). */
  dir: string;
  remove(): Promise<void>;
}

/** Writes the copy; the caller calls remove() when the run ends, whatever its outcome. */
export async function writeTransportCopy(
  material: { certPem: string; chainPem: readonly string[]; keyPem: string },
  parent: string = tmpdir(),
): Promise<TransportCopy> {
  let dir: string;
  try {
    dir = await mkdtemp(join(parent, 'obflow-transport-')); // mkdtemp: mode 0700
  } catch (cause) {
    throw writeFailed(`could not create a temporary folder under ${parent} for the transport certificate`, cause);
  }
  const unmark = markUnfinished(dir);
  const remove = async (): Promise<void> => {
    await rm(dir, { recursive: true, force: true });
    unmark();
  };
  const cert = join(dir, 'transport.pem');
  const key = join(dir, 'transport.key');
  try {
    await writeFileExact(cert, `${[material.certPem, ...material.chainPem].join('\n')}\n`, 0o600);
    await writeFileExact(key, material.keyPem, 0o600);
  } catch (cause) {
    await remove();
    throw writeFailed(`could not write the transport certificate's PEM copy into ${dir}`, cause);
  }
  return { transport: { cert, key }, dir, remove };
}
