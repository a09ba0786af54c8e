// Reading back a saved environment: missing → ERR_FILE_MISSING, unreadable / not JSON / wrong shape →
// ERR_FILE_UNREADABLE naming the bad part (never a TypeError escaping as ERR_UNEXPECTED); disabled entries dropped.

import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { parseSavedEnvironment, readSavedEnvironment } from '../../src/environment/index.js';
import { isObflowError } from '../../src/errors.js';
import { tempDir } from '../helpers/temp.js';

async function failure(run: () => Promise<unknown>): Promise<{ code: string; message: string } | undefined> {
  try {
    await run();
  } catch (error) {
    if (isObflowError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  return undefined;
}

describe('readSavedEnvironment', () => {
  it('a missing file is ERR_FILE_MISSING; a directory is ERR_FILE_UNREADABLE', async () => {
    const dir = await tempDir('obflow-env-saved-');
    expect((await failure(() => readSavedEnvironment(join(dir, 'none.json'))))?.code).toBe('ERR_FILE_MISSING');
    await mkdir(join(dir, 'a-dir.json'));
    expect((await failure(() => readSavedEnvironment(join(dir, 'a-dir.json'))))?.code).toBe('ERR_FILE_UNREADABLE');
    await writeFile(
      join(dir, 'ok.json'),
      JSON.stringify({ id: 'x', name: 'n', values: [{ key: 'rs', value: 'https://a:1', type: 'default', enabled: true }] }),
    );
    expect((await readSavedEnvironment(join(dir, 'ok.json'))).values).toEqual([
      { key: 'rs', value: 'https://a:1', type: 'default', enabled: true },
    ]);
  });

  it.each([
    ['not JSON', '{"values": [', 'not JSON'],
    ['an array', '[]', 'values'],
    ['null', 'null', 'values'],
    ['values not an array', '{"values": {}}', 'values'],
    ['an entry not an object', '{"values": ["rs"]}', 'values[0]'],
    ['a key that is not a string', '{"values": [{"key": 1}]}', 'values[0].key'],
    ['a value that is not a string', '{"values": [{"key": "rs", "value": {"x": 1}}]}', 'values[0].value'],
  ])('%s is ERR_FILE_UNREADABLE naming %s', async (_what, text, names) => {
    const result = await failure(async () => parseSavedEnvironment(text, '/state/env.json'));
    expect(result?.code).toBe('ERR_FILE_UNREADABLE');
    expect(result?.message).toContain(names);
    expect(result?.message).toContain('/state/env.json');
  });

  it('keeps secrets secret, drops disabled entries, sorts', () => {
    const environment = parseSavedEnvironment(
      JSON.stringify({
        values: [
          { key: 'rs', value: 'https://a:1' },
          { key: 'client_secret', value: 's3cret', type: 'default' },
          { key: 'x', value: 'v', type: 'secret' },
          { key: 'old', value: 'o', enabled: false },
          { key: 'gone', value: 'g', disabled: true },
        ],
      }),
      'p',
    );
    expect(environment.values.map((entry) => [entry.key, entry.type])).toEqual([
      ['client_secret', 'secret'],
      ['rs', 'default'],
      ['x', 'secret'],
    ]);
    expect(environment._postman_variable_scope).toBe('environment');
  });
});
