// `obflow generate` cold (a process writing every collection into an empty folder) against `node -e 0` (a process that
// does nothing), and against the best-known generators of Postman collections, Portman (≥ 4× faster) and
// openapi-to-postmanv2, converting the OBIE AIS v3.1.11 OpenAPI file (each a process, start included, median of 3,
// interleaved). The peers are installed by the bench on first use into bench/.cache/peers (gitignored), never
// as obflow's dependencies; the spec is read from OBFLOW_SPECS_DIR (default <repo>/../shared/specs). Either missing →
// the rows are `not measured (why)`, which fails the bench unless --allow-unmeasured (bench/lib.js verdict). Every
// round checks what its contender wrote, not only its exit code: obflow's collections, each peer's one,
// each a Postman v2.1 collection with requests in it; a contender that exits 0 without one makes its rows `invalid`
// (a miss), never a time for work not done.

import { access, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { interleaved, invalid, obflowBin, repo, row, timed, unmeasured } from './lib.js';

const ROUNDS = 3;
/** Pinned: the comparison should not move because a peer released. tslib: Portman 1.33.0 requires it undeclared. */
const PEERS = ['@apideck/portman@1.33.0', 'tslib@2.8.1', 'openapi-to-postmanv2@6.3.3'];
/** Where the peers are installed (OBFLOW_BENCH_PEERS: another folder, e.g. a test's stand-ins). */
const cache = process.env.OBFLOW_BENCH_PEERS || join(repo, 'bench', '.cache', 'peers');
const portmanBin = join(cache, 'node_modules', '@apideck', 'portman', 'bin', 'portman');
const o2pBin = join(cache, 'node_modules', 'openapi-to-postmanv2', 'bin', 'openapi2postmanv2.js');

export async function generateRows() {
  const tmp = await mkdtemp(join(tmpdir(), 'obflow-bench-generate-'));
  try {
    return await generateIn(tmp);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/** Why `file` is not a Postman v2.1 collection holding at least one request, or undefined when it is one. */
export async function notACollection(file) {
  let collection;
  try {
    collection = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    return `${file}: ${error.code === 'ENOENT' ? 'not written' : `not JSON (${String(error.message).split('\n')[0]})`}`;
  }
  if (!/schema\.getpostman\.com\/json\/collection\/v2\.1/.test(String(collection?.info?.schema))) {
    return `${file}: not a Postman v2.1 collection (info.schema ${JSON.stringify(collection?.info?.schema)})`;
  }
  const requests = (items) => (Array.isArray(items) ? items.reduce((n, item) => n + (item.request ? 1 : 0) + requests(item.item), 0) : 0);
  return requests(collection.item) > 0 ? undefined : `${file}: a collection without a request`;
}

/** Why obflow generate's output is not its collections, or undefined: each file its `--json` answer lists is in `dir`
 *  and is a collection with requests, and `dir` holds no other collection (12 or 13 today: the count is not pinned here,
 *  the golden collections/ folder pins it). */
export async function notObflowsCollections(dir, stdout) {
  let listed;
  try {
    listed = JSON.parse(stdout)
      .files.map((file) => basename(file))
      .sort();
  } catch (error) {
    return `obflow generate --json answered no list of files (${String(error.message).split('\n')[0]})`;
  }
  const written = (await readdir(dir).catch(() => [])).filter((name) => name.endsWith('.postman_collection.json')).sort();
  if (listed.length === 0 || JSON.stringify(listed) !== JSON.stringify(written)) {
    return `${dir}: ${written.length} collections written, ${listed.length} listed (${listed.join(', ') || 'none'})`;
  }
  for (const name of written) {
    const why = await notACollection(join(dir, name));
    if (why !== undefined) return why;
  }
  return undefined;
}

/** A round that counts only when `check` finds its output: the time, or throws WroteNothing naming what is missing. */
async function checked(round, check) {
  const result = await round;
  const why = await check(result);
  if (why !== undefined) throw new WroteNothing(why);
  return result;
}

class WroteNothing extends Error {}

async function generateIn(tmp) {
  try {
    return await measureIn(tmp);
  } catch (error) {
    if (!(error instanceof WroteNothing)) throw error;
    const why = `a contender exited 0 without writing its collection: ${error.message}`;
    return [
      invalid('generate: obflow generate cold (median of 3) / node -e 0', why),
      invalid('generate: obflow / Portman (different work, below)', why),
      invalid('generate: obflow / openapi-to-postmanv2 (different work, below)', why),
    ];
  }
}

async function measureIn(tmp) {
  const obflowRound = (round) => {
    const out = join(tmp, `obflow-${round}`);
    return checked(timed(process.execPath, [obflowBin, 'generate', '--json', '--out-collections', out], { tmp, cwd: tmp }), (result) =>
      notObflowsCollections(out, result.stdout),
    );
  };
  // A process writing every collection into an empty folder, beside a process that does nothing (node's own start).
  const node = () => timed(process.execPath, ['-e', '0'], { tmp, cwd: tmp });
  const cold = (obflow, bare) =>
    row(
      'generate: obflow generate cold (median of 3) / node -e 0',
      obflow.ms,
      bare.ms,
      'ms',
      // 8–10× on the earlier quiet benches (450–600 ms beside ~60) and on today's loaded ones (docs/notes.md).
      { ratioAtMost: 12 },
      `rounds (ms): ${ms(obflow.all)}; node -e 0 ${ms(bare.all)}; writes 12 collections from its templates into an empty folder (vendored schemas, no spec read)`,
    );

  const specsDir = process.env.OBFLOW_SPECS_DIR || join(repo, '..', 'shared', 'specs');
  const spec = join(specsDir, 'obie-account-info-v3.1.11.yaml');
  const missing = (await exists(spec)) ? await installPeers() : `no ${spec} (set OBFLOW_SPECS_DIR to the folder holding the OBIE specs)`;
  if (missing !== undefined) {
    const alone = await interleaved(ROUNDS, { obflow: obflowRound, node });
    return [
      cold(alone.obflow, alone.node),
      unmeasured('generate: obflow / Portman', missing),
      unmeasured('generate: obflow / openapi-to-postmanv2', missing),
    ];
  }
  // Rounds interleaved; Portman writes a tmp/ folder into its working directory: one per round.
  const { obflow, bare, portman, o2p } = await interleaved(ROUNDS, {
    obflow: obflowRound,
    bare: node,
    portman: async (round) => {
      const cwd = join(tmp, `portman-${round}`);
      await mkdir(cwd);
      const out = join(cwd, 'collection.json');
      return checked(timed(process.execPath, [portmanBin, '--local', spec, '--output', out], { tmp, cwd }), () => notACollection(out));
    },
    o2p: (round) => {
      const out = join(tmp, `o2p-${round}.json`);
      return checked(timed(process.execPath, [o2pBin, '--spec', spec, '--output', out], { tmp, cwd: tmp }), () => notACollection(out));
    },
  });
  // Not the same work, and the rows say so: obflow renders its 12 flow collections from its own templates and reads no
  // spec; each peer parses the whole OpenAPI file and converts every operation into one collection. The row compares
  // the time from the same starting point (an API to test) to a collection on disk, each tool doing what it does.
  const work = `obflow renders 12 collections from its templates (no spec read); PEER converts every operation of the OBIE AIS v3.1.11 OpenAPI file into 1 collection`;
  return [
    cold(obflow, bare),
    row(
      'generate: obflow / Portman (different work, below)',
      obflow.ms,
      portman.ms,
      'ms',
      // 0.12–0.18 over the benches of one code, under load.
      { ratioAtMost: 0.25 },
      `${work.replace('PEER', 'Portman')}; ≥ 4× faster is ratio ≤ 0.25; Portman rounds (ms): ${ms(portman.all)}`,
    ),
    row(
      'generate: obflow / openapi-to-postmanv2 (different work, below)',
      obflow.ms,
      o2p.ms,
      'ms',
      undefined,
      `${work.replace('PEER', 'openapi-to-postmanv2')}; rounds (ms): ${ms(o2p.all)}`,
    ),
  ];
}

const ms = (values) => values.map(Math.round).join(', ');

/** Installs the peers into the cache once; returns why not when npm cannot (e.g. the registry is unreachable). */
async function installPeers() {
  if ((await exists(portmanBin)) && (await exists(o2pBin))) return undefined;
  await mkdir(cache, { recursive: true });
  await writeFile(
    join(cache, 'package.json'),
    `${JSON.stringify({ private: true, description: 'obflow bench peers (npm run bench installs them; not dependencies of obflow)' }, null, 2)}\n`,
  );
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  console.error(`bench: installing ${PEERS.join(', ')} into ${cache} (first use)…`);
  let result;
  try {
    result = await timed(
      npm,
      ['install', '--no-audit', '--no-fund', '--loglevel=error', '--fetch-timeout=30000', '--fetch-retries=1', ...PEERS],
      { cwd: cache, allowFailure: true, timeoutMs: 600_000 },
    );
  } catch (error) {
    return `peers not installed (${String(error.message).split('\n')[0]})`;
  }
  if (result.code === 0 && (await exists(portmanBin)) && (await exists(o2pBin))) return undefined;
  const why =
    `${result.stderr}\n${result.stdout}`.split('\n').find((line) => /ERR|ENOTFOUND|ECONN|ETIMEDOUT|E404|network/i.test(line)) ??
    `npm install exited ${result.code}`;
  return `peers not installed (${why.trim()})`;
}

async function exists(path) {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
