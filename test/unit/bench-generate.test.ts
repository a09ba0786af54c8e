// The bench's generate rows (bench/generate-peers.js) time a contender only for work it did: each
// round checks that obflow wrote the collections its --json answer lists and that each peer wrote its collection, so a
// contender that exits 0 without writing one makes the rows invalid (a miss), not fast. Run with stand-in peers
// (OBFLOW_BENCH_PEERS) and a stand-in spec, in their own process as the bench runs.

import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../helpers/prerequisites.js';
import { tempDirSync } from '../helpers/temp.js';

const dir = tempDirSync('obflow-bench-generate-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const specs = join(dir, 'specs');
mkdirSync(specs);
writeFileSync(join(specs, 'obie-account-info-v3.1.11.yaml'), 'openapi: 3.0.0\n');

const COLLECTION = JSON.stringify({
  info: { name: 'x', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
  item: [{ name: 'folder', item: [{ name: 'GET /accounts', request: { method: 'GET', url: 'https://bank/accounts' } }] }],
});

/** Stand-in peers: each a node script at the installed bin's path, writing `collection` (or nothing) to --output. */
function peers(name: string, portman: string | undefined, o2p: string | undefined): string {
  const root = join(dir, name);
  const write = (body: string | undefined): string =>
    body === undefined
      ? 'process.exit(0);\n'
      : `const out = process.argv[process.argv.indexOf('--output') + 1];\nrequire('node:fs').writeFileSync(out, ${JSON.stringify(body)});\n`;
  for (const [bin, body] of [
    [join(root, 'node_modules', '@apideck', 'portman', 'bin', 'portman'), portman],
    [join(root, 'node_modules', 'openapi-to-postmanv2', 'bin', 'openapi2postmanv2.js'), o2p],
  ] as const) {
    mkdirSync(join(bin, '..'), { recursive: true });
    writeFileSync(bin, write(body));
  }
  writeFileSync(join(root, 'package.json'), '{"type":"commonjs"}\n');
  return root;
}

interface Row {
  name: string;
  value: string;
  ok: boolean;
  note?: string;
}

function generateRows(peersDir: string): Row[] {
  const script = `const { generateRows } = await import(${JSON.stringify(join(REPO_ROOT, 'bench', 'generate-peers.js'))});
console.log(JSON.stringify(await generateRows()));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...process.env, OBFLOW_BENCH_PEERS: peersDir, OBFLOW_SPECS_DIR: specs },
    timeout: 120_000,
  });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '[]') as Row[];
}

describe("the bench's generate rows check what each contender wrote", () => {
  it('every contender wrote its collection: the rows are measured', () => {
    const rows = generateRows(peers('good', COLLECTION, COLLECTION));
    expect(rows.map((row) => row.name)).toHaveLength(3);
    expect(rows.filter((row) => row.value === 'invalid')).toEqual([]);
  }, 120_000);

  it('a peer that exits 0 and writes nothing makes the rows invalid, naming its file', () => {
    const rows = generateRows(peers('silent', undefined, COLLECTION));
    expect(rows.map((row) => [row.value, row.ok])).toEqual([
      ['invalid', false],
      ['invalid', false],
      ['invalid', false],
    ]);
    expect(rows[0]?.note).toMatch(/exited 0 without writing its collection: .*portman-\d\/collection\.json: not written/);
  }, 120_000);

  it('a peer that writes a collection without a request is invalid too', () => {
    const empty = JSON.stringify({ info: { schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' }, item: [] });
    const rows = generateRows(peers('empty', COLLECTION, empty));
    expect(rows[0]?.note).toMatch(/o2p-\d\.json: a collection without a request/);
  }, 120_000);
});

describe("obflow's own round", () => {
  it('counts only when every file its --json answer lists is in the folder, a collection, and no other is there', () => {
    const out = join(dir, 'obflow-out');
    mkdirSync(out);
    writeFileSync(join(out, 'a.postman_collection.json'), COLLECTION);
    const check = (stdout: string): string => {
      const script = `const { notObflowsCollections } = await import(${JSON.stringify(join(REPO_ROOT, 'bench', 'generate-peers.js'))});
console.log(String(await notObflowsCollections(${JSON.stringify(out)}, ${JSON.stringify(stdout)})));`;
      return spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).stdout.trim();
    };
    expect(check(JSON.stringify({ files: [join(out, 'a.postman_collection.json')] }))).toBe('undefined');
    expect(check(JSON.stringify({ files: [] }))).toMatch(/1 collections written, 0 listed/);
    expect(check(JSON.stringify({ files: ['a.postman_collection.json', 'b.postman_collection.json'] }))).toMatch(
      /1 collections written, 2 listed/,
    );
    expect(check('not json')).toMatch(/answered no list of files/);
  });
});
