// Interrupts with real signals to the built CLI in its own process (docs/errors.md, "Interrupts"): `demo`, `run` and
// `register` end with 130 (SIGINT, Ctrl-C) or 143 (SIGTERM) after stopping the embedded sandbox and removing its
// temporary data folder; no temporary or half-written file is left; `obflow sandbox` takes either signal as its stop.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDirSync } from '../helpers/temp.js';

const MAIN = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'main.js');
const cwd = tempDirSync('obflow-interrupt-');
/** The second lane of the start-up runs: a folder of its own (two demos at once in one folder replace each other's
 *  registration, which the run's staleness check rightly refuses: not what these runs are about). */
const secondLane = tempDirSync('obflow-interrupt-lane-');
const children: ChildProcess[] = [];

interface Spawned {
  child: ChildProcess;
  /** Resolves when a stdout line matches. */
  line(pattern: RegExp): Promise<string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
}

/** The built CLI with its own TMPDIR (where the embedded sandbox keeps its temporary data folder). */
function start(args: string[], childTmp: string, dir: string = cwd): Spawned {
  const child = spawn(process.execPath, [MAIN, ...args], {
    cwd: dir,
    env: { ...process.env, TMPDIR: childTmp },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const lines: string[] = [];
  const listeners: ((line: string) => void)[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    lines.push(line);
    for (const listener of listeners) listener(line);
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.once('exit', (code, signal) => setImmediate(() => resolve({ code, signal, stderr }))),
  );
  return {
    child,
    exit,
    line: (pattern) =>
      new Promise((resolve, reject) => {
        const seen = lines.find((line) => pattern.test(line));
        if (seen !== undefined) return resolve(seen);
        listeners.push((line) => {
          if (pattern.test(line)) resolve(line);
        });
        void exit.then(({ code, stderr: text }) => reject(new Error(`exited ${code} before ${pattern}: ${text}`)));
      }),
  };
}

/** Every file under `dir` (relative paths). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));
}

/** No temporary file of an atomic write, and every JSON file whole. The running `obflow sandbox`'s own data folder
 *  (`<state>/sandbox`, another process that may be mid-write) is not the interrupted command's. */
function expectNothingHalfWritten(dir: string): void {
  const files = filesUnder(dir).filter((file) => !file.startsWith('sandbox/'));
  const temporaries = files.filter((file) => file.endsWith('.tmp'));
  expect(temporaries, temporaries.join(', ')).toEqual([]);
  for (const file of files.filter((name) => name.endsWith('.json')))
    expect(() => JSON.parse(readFileSync(join(dir, file), 'utf8')), file).not.toThrow();
}

beforeAll(async () => {
  for (const dir of [cwd, secondLane]) {
    const init = await runCli(['init', '--quiet'], { cwd: dir });
    expect(init.code, init.stderr).toBe(0);
  }
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});

describe('demo interrupted', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s after registering: exit %i, the embedded sandbox stopped and its temporary data folder removed', async (signal, code) => {
    const childTmp = tempDirSync('obflow-interrupt-tmp-');
    const demo = start(['demo'], childTmp);
    await demo.line(/^register /);
    // The emulator's temporary data folder exists while it runs (it holds the client's secret).
    expect(readdirSync(childTmp).filter((name) => name.startsWith('obflow-sandbox-'))).toHaveLength(1);
    demo.child.kill(signal);
    const ended = await demo.exit;
    expect(ended, ended.stderr).toMatchObject({ code, signal: null });
    expect(ended.stderr).toMatch(new RegExp(`^interrupted by ${signal}: .*nothing half-written.*\\(exit ${code}\\)$`, 'm'));
    expect(readdirSync(childTmp)).toEqual([]);
    expectNothingHalfWritten(join(cwd, '.obflow'));
  });

  it('with --json the interrupt is one JSON line on stderr', async () => {
    const childTmp = tempDirSync('obflow-interrupt-tmp-');
    const demo = start(['demo', '--json'], childTmp);
    // --json prints nothing until the end: wait for the emulator's temporary data folder instead.
    while (readdirSync(childTmp).length === 0) {
      if (demo.child.exitCode !== null) throw new Error(`demo ended ${demo.child.exitCode}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    demo.child.kill('SIGINT');
    const ended = await demo.exit;
    expect(ended, ended.stderr).toMatchObject({ code: 130, signal: null });
    expect(
      ended.stderr
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([{ interrupted: { signal: 'SIGINT', exit: 130 } }]);
    expect(readdirSync(childTmp)).toEqual([]);
  });
});

describe('demo interrupted at any moment of its start-up', () => {
  /** When the signal goes: ms after the spawn, or ms after the emulator's temporary data folder appeared. Twice over,
   *  20 runs in a row. */
  const POINTS = [
    ...[
      { after: 'spawn', ms: 0 },
      { after: 'spawn', ms: 150 },
      { after: 'spawn', ms: 300 },
      { after: 'folder', ms: 0 },
      { after: 'folder', ms: 5 },
    ],
    ...[
      { after: 'folder', ms: 20 },
      { after: 'folder', ms: 50 },
      { after: 'folder', ms: 100 },
      { after: 'folder', ms: 250 },
      { after: 'folder', ms: 600 },
    ],
  ] as const;

  /** One run: demo --json in its own TMPDIR, SIGINT at `point`; what it left and how it ended. */
  async function interruptAt(point: (typeof POINTS)[number], run: number, dir: string): Promise<void> {
    const childTmp = tempDirSync('obflow-interrupt-tmp-');
    const demo = start(['demo', '--json'], childTmp, dir);
    if (point.after === 'folder') {
      while (readdirSync(childTmp).length === 0 && demo.child.exitCode === null) await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await new Promise((resolve) => setTimeout(resolve, point.ms));
    demo.child.kill('SIGINT');
    const ended = await demo.exit;
    const where = `run ${run}, ${point.ms} ms after the ${point.after}: ${ended.stderr}`;
    if (ended.signal === null) {
      expect(ended.code, where).toBe(130);
      expect(ended.stderr.trim(), where).toBe(JSON.stringify({ interrupted: { signal: 'SIGINT', exit: 130 } }));
    } else expect(ended.signal, where).toBe('SIGINT');
    expect(readdirSync(childTmp), where).toEqual([]);
  }

  it('20 runs, SIGINT at several points: each ends 130 (or by the signal itself, before obflow listens) and leaves no temporary folder', async () => {
    // Two lanes of ten runs in a row (each lane every point once): the cost of ten start-ups, not twenty.
    await Promise.all(
      [0, 1].map(async (lane) => {
        for (const [index, point] of POINTS.entries())
          await interruptAt(point, lane * POINTS.length + index + 1, lane === 0 ? cwd : secondLane);
      }),
    );
  }, 180_000);
});

describe('register and run interrupted, against `obflow sandbox`', () => {
  let sandbox: Spawned;

  beforeAll(async () => {
    sandbox = start(['sandbox', '--json'], tempDirSync('obflow-interrupt-tmp-'));
    await sandbox.line(/^\{/);
    for (const command of [['register'], ['environment'], ['generate']]) {
      const result = await runCli([...command, '--quiet'], { cwd });
      expect(result.code, `${command[0]}: ${result.stderr}`).toBe(0);
    }
  }, 60_000);

  it('run all, SIGINT while newman runs: exit 130, nothing half-written (reports, environment, run files), no earlier report left as if current', async () => {
    // A passing run first: its report.html must not outlive the next run's interrupt as if it were that run's.
    const passing = await runCli(['run', 'all', '--reporters', 'cli,junit,json,html', '--quiet'], { cwd });
    expect(passing.code, passing.stderr).toBe(0);
    const reports = join(cwd, '.obflow', 'reports');
    expect(existsSync(join(reports, 'report.html'))).toBe(true);
    const run = start(['run', 'all', '--reporters', 'cli,junit,json,html'], tempDirSync('obflow-interrupt-tmp-'));
    await run.line(/client-credentials|discovery/);
    run.child.kill('SIGINT');
    const ended = await run.exit;
    expect(ended, ended.stderr).toMatchObject({ code: 130, signal: null });
    expect(ended.stderr).toMatch(/^interrupted by SIGINT: .*\(exit 130\)$/m);
    expectNothingHalfWritten(join(cwd, '.obflow'));
    // The environment the interrupted run may have saved is still a whole environment.
    const environments = filesUnder(join(cwd, '.obflow', 'environments'));
    expect(environments.length).toBeGreaterThan(0);
    for (const file of ['report.html', 'obflow-run.json', 'discovery--refresh.xml'])
      expect(existsSync(join(reports, file)), file).toBe(false);
  });

  it('register --force, SIGTERM as the bank answers (while the client is being stored): exit 143, registrations whole', async () => {
    const register = start(['register', '--force'], tempDirSync('obflow-interrupt-tmp-'));
    const stored: string[] = [];
    void register.line(/^registered client /).then(
      (line) => stored.push(line),
      () => undefined,
    );
    await register.line(/^POST .*\/register → 201/);
    register.child.kill('SIGTERM');
    const ended = await register.exit;
    // The signal races the last milliseconds of the command (storing takes about one): either it lands while the command
    // works — exit 143 after the cleanups, said on stderr — or the command had already stored the client and said so,
    // and the signal met the process's own teardown (node's handlers are gone by then: the default action ends it) or
    // came after the exit (0). Nothing else, and the registrations are whole either way (below).
    if (ended.code === 143) expect(ended.stderr).toMatch(/^interrupted by SIGTERM: .*\(exit 143\)$/m);
    else {
      expect([ended.signal, ended.code], ended.stderr).toSatisfy(([signal, code]: unknown[]) => signal === 'SIGTERM' || code === 0);
      const stdout = register.child.stdout!;
      if (!stdout.readableEnded) await new Promise((resolve) => stdout.once('end', resolve));
      expect(stored, `ended before the client was stored: ${ended.stderr}`).toHaveLength(1);
    }
    expectNothingHalfWritten(join(cwd, '.obflow'));
    expect(filesUnder(join(cwd, '.obflow', 'registrations')).length).toBeGreaterThan(0);
  });

  it('`obflow sandbox` takes SIGTERM as its stop: exit 0, its addresses file removed', async () => {
    sandbox.child.kill('SIGTERM');
    const ended = await sandbox.exit;
    expect(ended, ended.stderr).toMatchObject({ code: 0, signal: null });
    expect(filesUnder(join(cwd, '.obflow')).filter((file) => file.endsWith('addresses.json'))).toEqual([]);
  });
});
