// `obflow generate` cold (a process writing every collection; issue 21: ≤ 0.5 s and ≥ 5× faster than Portman) against the best-known generators of Postman
// collections, Portman and openapi-to-postmanv2, converting the OBIE AIS v3.1.11 OpenAPI file (each a process, start
// included, median of 3). The peers are installed by the bench on first use into bench/.cache/peers (gitignored), never
// as obflow's dependencies; the spec is read from OBFLOW_SPECS_DIR (default <repo>/../shared/specs). Either missing →
// the rows are `not measured (why)`, which fails the bench unless --allow-unmeasured (bench/lib.js verdict).

import { access, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { interleaved, medianOf, obflowBin, repo, row, timed, unmeasured } from './lib.js';

const ROUNDS = 3;
/** Pinned: the comparison should not move because a peer released. tslib: Portman 1.33.0 requires it undeclared. */
const PEERS = ['@apideck/portman@1.33.0', 'tslib@2.8.1', 'openapi-to-postmanv2@6.3.3'];
const cache = join(repo, 'bench', '.cache', 'peers');
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

async function generateIn(tmp) {
  const obflowRound = (round) =>
    timed(process.execPath, [obflowBin, 'generate', '--json', '--out-collections', join(tmp, `obflow-${round}`)], { tmp, cwd: tmp });
  // Issue 21: "`obflow generate` cold ≤ 0.5 s" (a process writing every collection into an empty folder).
  const info = (obflow) =>
    row(
      'generate: obflow generate cold (median of 3)',
      obflow.ms,
      undefined,
      'ms',
      { figureAtMost: 500 },
      `rounds (ms): ${ms(obflow.all)}; writes 12 collections from its templates into an empty folder (vendored schemas, no spec read)`,
    );

  const specsDir = process.env.OBFLOW_SPECS_DIR || join(repo, '..', 'shared', 'specs');
  const spec = join(specsDir, 'obie-account-info-v3.1.11.yaml');
  const missing = (await exists(spec)) ? await installPeers() : `no ${spec} (set OBFLOW_SPECS_DIR to the folder holding the OBIE specs)`;
  if (missing !== undefined) {
    return [
      info(await medianOf(ROUNDS, obflowRound)),
      unmeasured('generate: obflow / Portman', missing),
      unmeasured('generate: obflow / openapi-to-postmanv2', missing),
    ];
  }
  // Rounds interleaved; Portman writes a tmp/ folder into its working directory: one per round.
  const { obflow, portman, o2p } = await interleaved(ROUNDS, {
    obflow: obflowRound,
    portman: async (round) => {
      const cwd = join(tmp, `portman-${round}`);
      await mkdir(cwd);
      return timed(process.execPath, [portmanBin, '--local', spec, '--output', join(cwd, 'collection.json')], { tmp, cwd });
    },
    o2p: (round) => timed(process.execPath, [o2pBin, '--spec', spec, '--output', join(tmp, `o2p-${round}.json`)], { tmp, cwd: tmp }),
  });
  // Not the same work, and the rows say so: obflow renders its 12 flow collections from its own templates and reads no
  // spec; each peer parses the whole OpenAPI file and converts every operation into one collection. The row compares
  // the time from the same starting point (an API to test) to a collection on disk, each tool doing what it does.
  const work = `obflow renders 12 collections from its templates (no spec read); PEER converts every operation of the OBIE AIS v3.1.11 OpenAPI file into 1 collection`;
  return [
    info(obflow),
    row(
      'generate: obflow / Portman (different work, below)',
      obflow.ms,
      portman.ms,
      'ms',
      { ratioAtMost: 0.2 },
      `${work.replace('PEER', 'Portman')}; ≥ 5× faster is ratio ≤ 0.2; Portman rounds (ms): ${ms(portman.all)}`,
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
