// obflow's own requests load only undici's Agent and request API (src/pki/undici-core.ts), not undici's index: this
// installation's undici has them where undici 7 keeps them (a move would fall back to the index: this test then says
// so), and loading them holds none of the index's other parts. The requests themselves go over the emulator in the
// pipeline's integration tests (registration, the environment helper's `?client_id=`, discovery).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageFilesAfter } from '../helpers/package-files.js';
import type * as UndiciCoreModule from '../../src/pki/undici-core.js';

const CORE = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'pki', 'undici-core.js')).href;

describe("undici's core for obflow's own requests", () => {
  it("loads the Agent and the request API from undici's own files, without its index", () => {
    const { files, value } = packageFilesAfter('undici', [
      `const { loadUndiciCore } = await import(${JSON.stringify(CORE)});`,
      'value = loadUndiciCore().loadedFrom;',
    ]);
    expect(value).toBe('core');
    expect(files).toContain('lib/dispatcher/agent.js');
    expect(files).toContain('lib/api/api-request.js');
    // The index and what only it loads: fetch, WebSocket, the mock layer.
    expect(files).not.toContain('index.js');
    expect(files.filter((file) => /^lib\/(web|mock)\//.test(file))).toEqual([]);
  });

  it('is loaded once per process: the same Agent class and request each time', async () => {
    const { loadUndiciCore } = (await import(CORE)) as typeof UndiciCoreModule;
    const first = loadUndiciCore();
    expect(loadUndiciCore()).toBe(first);
    expect(typeof first.Agent).toBe('function');
  });
});
