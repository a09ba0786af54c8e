// undici loads at obflow's first own request, not with the core (src/pki/undici-core.ts, for src/pki/tls.ts and
// src/bank/http.ts): `obflow run` leaves the requests to newman, and each MB a run holds from start-up raises its peak RSS (jo's memory,
// docs/notes.md). The core every command loads (dist/pipeline/index.js, built by `node tools/build.js`) is imported in
// a child process, whose module cache then must hold no file of undici.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageFilesAfter } from '../helpers/package-files.js';

const CORE = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'pipeline', 'index.js')).href;

describe('undici, loaded at the first request', () => {
  it('is not loaded by the core a command opens', () => {
    expect(packageFilesAfter('undici', [`await import(${JSON.stringify(CORE)});`]).files).toEqual([]);
  });
});
