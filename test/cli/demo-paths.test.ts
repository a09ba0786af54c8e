// `obflow demo` (`npm start`) writes only into the state folder: its collections go to the demo's own folder
// (stateLayout().demoCollections), never to `output.collections` — in a clone the tracked collections/, which a demo
// with another mode (--fapi 2.0) used to rewrite. The built CLI in its own process, in a folder of its own, for each
// mode that generates other collections; and the generator's stamp is ignored by git in every collections folder.

import { spawnSync } from 'node:child_process';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/prerequisites.js';
import { runCliProcess } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp.js';

const folders: string[] = [];
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describe('obflow demo writes nothing outside its state folder', () => {
  it.each<[string, string[], Record<string, string>]>([
    ['the default flow', [], {}],
    ['FAPI 2.0', ['--fapi', '2.0', '--response-type', 'code'], { OBFLOW_BANK__TOKEN_ENDPOINT_AUTH_METHOD: 'private_key_jwt' }],
  ])(
    '%s: the collections it ran are under .obflow/demo/collections, and the folder holds .obflow only',
    async (_mode, argv, env) => {
      const cwd = await tempDir('obflow-demo-paths-');
      folders.push(cwd);
      const result = await runCliProcess(['demo', ...argv], { cwd, env });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      const demoCollections = join(cwd, '.obflow', 'demo', 'collections');
      expect(result.stdout).toContain(`collections in ${demoCollections} `);
      // No collections/ (nor anything else) where a clone keeps the tracked ones.
      expect(await readdir(cwd)).toEqual(['.obflow']);
      expect((await readdir(demoCollections)).filter((name) => name.endsWith('.postman_collection.json'))).toHaveLength(13);
    },
    120_000,
  );
});

describe('.gitignore', () => {
  it("ignores the generator's stamp in collections/ and in every version's folder under it", () => {
    for (const path of ['collections/.obflow-generated', 'collections/v4.0/.obflow-generated']) {
      const check = spawnSync('git', ['check-ignore', '--no-index', '-q', path], { cwd: REPO_ROOT });
      expect(check.status, path).toBe(0);
    }
  });
});
