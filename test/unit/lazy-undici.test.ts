// undici loads at obflow's first own request, not with the core (src/pki/undici-core.ts, for src/pki/tls.ts and
// src/bank/http.ts): `obflow run` leaves the requests to newman, and each MB a run holds from start-up raises its peak RSS (issue 34 item 1,
// docs/notes.md). The core every command loads (dist/pipeline/index.js, built by `node tools/build.js`) is imported in
// a child process, whose module cache then must hold no file of undici.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const CORE = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'pipeline', 'index.js')).href;

describe('undici, loaded at the first request', () => {
  it('is not loaded by the core a command opens', () => {
    const script = [
      `await import(${JSON.stringify(CORE)});`,
      "const { createRequire } = await import('node:module');",
      'const cache = createRequire(import.meta.url).cache;',
      'console.log(JSON.stringify(Object.keys(cache).filter((file) => /[\\\\/]node_modules[\\\\/]undici[\\\\/]/.test(file)).length));',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
    expect(JSON.parse(child.stdout)).toBe(0);
  });
});
