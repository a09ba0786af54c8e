// The demo's phases, so a regression shows which one grew: `obflow generate` as its own process with an empty output
// folder (cold) and with the collections current (the demo's case), then the run step in one process — each newman
// run (consecutive collection steps, the observing id_token checks inside) and each local step, timed from the run's
// own step events — and the whole run step (newman loaded by an untimed round first: the demo's printed run step, a
// cold process, is bench/start.js's row). Baseline: this machine's previous bench (bench/.cache/phases.json), so
// the ratio column is the phase's growth since then: information only, never a target (the previous bench ran under
// another load). Also runnable alone: `node bench/phases.js`.

import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { dist, median, obflowBin, printTable, row, timed } from './lib.js';

const ROUNDS = 3;
const RUN_STEP = 'run step in one process, newman already loaded (demo reporters)';
const cacheFile = join(import.meta.dirname, '.cache', 'phases.json');

/** Phases of one run from its events: a newman run spans consecutive collection steps and the observing local steps
 *  between them (their begin and end sit inside it); a local step between newman runs is a phase of its own. */
function phaseTimer() {
  const phases = [];
  let open;
  let local;
  const close = (at) => {
    if (open !== undefined) phases.push({ name: `newman run ${open.first}..${open.last}`, ms: at - open.start });
    open = undefined;
  };
  return {
    phases,
    subscriber: {
      onEvent(event) {
        const at = performance.now();
        if (event.type === 'step' && event.phase === 'begin' && event.kind === 'collection') {
          if (local !== undefined) {
            phases.push({ name: `local step ${local.name}`, ms: local.end - local.start });
            local = undefined;
            close(at);
          }
          open ??= { first: event.step, start: at };
          open.last = event.step;
          open.end = at;
        } else if (event.type === 'step' && event.phase === 'begin') {
          local = { name: event.step, start: at };
        } else if (event.type === 'step' && event.phase === 'end') {
          if (local !== undefined && event.step === local.name) {
            local.end = at;
            // Inside a newman run (an id_token check): a local phase too, and the run goes on.
            if (open !== undefined) {
              phases.push({ name: `local step ${local.name} (inside the newman run)`, ms: local.end - local.start });
              local = undefined;
            }
          } else if (open !== undefined) open.end = at;
        } else if (event.type === 'done') {
          if (local !== undefined) phases.push({ name: `local step ${local.name}`, ms: local.end - local.start });
          if (open !== undefined) phases.push({ name: `newman run ${open.first}..${open.last}`, ms: open.end - open.start });
          open = undefined;
          local = undefined;
        }
      },
    },
  };
}

export async function phaseRows() {
  const tmp = await mkdtemp(join(tmpdir(), 'obflow-bench-phases-'));
  try {
    // ---- generate, as the CLI runs it -------------------------------------------------------------------------------
    const cold = [];
    const current = [];
    for (let i = 0; i < ROUNDS; i += 1) {
      const out = join(tmp, `collections-${i}`);
      cold.push((await timed(process.execPath, [obflowBin, 'generate', '--out-collections', out], { tmp })).ms);
      current.push((await timed(process.execPath, [obflowBin, 'generate', '--out-collections', out], { tmp })).ms);
    }
    const figures = { 'generate, empty folder (cold process)': median(cold), 'generate, collections current': median(current) };

    // ---- the run step, in one process (newman loaded by an untimed first round) ---------------------------------
    const { issueLocalIdentity } = await import(join(dist, 'pki', 'issue.js'));
    const { startSandbox } = await import(join(dist, 'sandbox', 'index.js'));
    const { registerStage, environmentStage, runStage } = await import(join(dist, 'pipeline', 'index.js'));
    const { openTargetSession } = await import(join(dist, 'pipeline', 'session.js'));
    const { sandboxTarget } = await import(join(dist, 'pipeline', 'target.js'));
    const { identityPathsFromManifest } = await import(join(dist, 'pki', 'manifest.js'));
    const { parseConfig } = await import(join(dist, 'config', 'load.js'));
    const manifest = await issueLocalIdentity({ dir: join(tmp, 'identity') });
    const file = (name) => readFile(join(tmp, 'identity', manifest.files[name]), 'utf8');
    const [cert, key, issuing, root, jwks] = await Promise.all(
      ['server_certificate', 'server_key', 'directory_issuing_ca', 'directory_root_ca', 'directory_jwks'].map(file),
    );
    const sandbox = await startSandbox({
      serverCertificate: cert,
      serverKey: key,
      clientCa: [issuing, root],
      directoryJwks: JSON.parse(jwks),
      dataDir: join(tmp, 'data'),
    });
    const config = parseConfig(
      { stateDir: join(tmp, 'state'), output: { collections: join(tmp, 'collections-0'), reports: join(tmp, 'reports') } },
      'bench',
    );
    const session = await openTargetSession(config, sandboxTarget(config, sandbox.urls, [root, issuing]), {
      ...identityPathsFromManifest(join(tmp, 'identity'), manifest),
    });
    const registered = await registerStage(session, { force: true });
    const { environment } = await environmentStage(session, registered.registration);
    const rounds = [];
    for (let i = 0; i <= ROUNDS; i += 1) {
      const timer = phaseTimer();
      const t = performance.now();
      const result = await runStage(session, { environment, reporters: ['junit', 'html'], subscribers: [timer.subscriber] });
      const ms = performance.now() - t;
      if (!result.passed) throw new Error(`bench: the run failed at ${result.failedStep}`);
      if (i > 0) rounds.push([...timer.phases, { name: RUN_STEP, ms }]);
    }
    await session.close();
    await sandbox.close();
    for (const name of rounds[0].map((phase) => phase.name))
      figures[name] = median(rounds.map((phases) => phases.find((phase) => phase.name === name)?.ms ?? NaN));

    // ---- rows against this machine's previous bench ----------------------------------------------------------------
    const previous = JSON.parse(await readFile(cacheFile, 'utf8').catch(() => '{}'));
    await mkdir(join(import.meta.dirname, '.cache'), { recursive: true });
    await writeFile(cacheFile, `${JSON.stringify(figures, null, 2)}\n`);
    // The run step's target is on the demo's printed figure beside plain newman (bench/start.js), a cold process; these
    // rows show which phase grew. Generate cold has its target beside `node -e 0` (bench/generate-peers.js).
    return Object.entries(figures).map(([name, ms]) =>
      row(
        `demo phase: ${name} / previous bench`,
        ms,
        previous[name],
        'ms',
        undefined,
        previous[name] === undefined ? 'no previous bench on this machine: the baseline is the next run' : undefined,
      ),
    );
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printTable(await phaseRows());
  process.exit(0);
}
