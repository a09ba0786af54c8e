// Shared helpers of the bench's peer comparisons: timing a child process (process start included) with its peak RSS,
// medians, and the table rows (figure, baseline, ratio, target) that bench/run.js prints.

import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { clearTimeout, setTimeout } from 'node:timers';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

export const repo = resolve(import.meta.dirname, '..');
export const dist = join(repo, 'dist');
export const obflowBin = join(dist, 'cli', 'main.js');
export const newmanBin = join(repo, 'node_modules', 'newman', 'bin', 'newman.js');
/** Preloaded into a timed node child (NODE_OPTIONS=--import) to report its peak RSS (getrusage ru_maxrss) at exit. */
const peakRssHook = pathToFileURL(join(import.meta.dirname, 'peak-rss.js')).href;

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * The environment of a child: the bench's own, without any OBFLOW_* variable (obflow refuses an unknown one, and a
 * user's OBFLOW_TARGET or state folder must not leak into the bench's runs), plus `extra`.
 */
export function childEnv(extra = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OBFLOW_')));
  return { ...env, ...extra };
}

/**
 * Runs a command to its end and times it from spawn to exit (process start included). `peakRss` (or `usage`) asks a
 * node child for its peak RSS in MiB and its CPU time (user + system) in ms — the figures of that node process, not of
 * children it spawns. Throws when the exit code is not 0 unless `allowFailure`, and when it runs longer than
 * `timeoutMs` (default 5 minutes).
 */
export async function timed(command, args, options = {}) {
  const env = childEnv(options.env);
  let rssFile;
  if (options.peakRss || options.usage) {
    rssFile = join(options.tmp ?? repo, `peak-rss-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
    env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --import=${peakRssHook}`.trim();
    env.OBFLOW_BENCH_PEAK_RSS_FILE = rssFile;
  }
  const started = performance.now();
  const child = spawn(command, args, { cwd: options.cwd ?? repo, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // Bounded: a child that hangs (a peer waiting on a socket) fails its section instead of stalling the bench.
  const limit = options.timeoutMs ?? 300_000;
  const timer = setTimeout(() => child.kill('SIGKILL'), limit);
  const code = await new Promise((done, fail) => {
    child.on('error', fail);
    child.on('close', (exitCode) => done(exitCode));
  }).finally(() => clearTimeout(timer));
  if (code === null) throw new Error(`bench: ${[command, ...args].join(' ')} did not finish within ${limit / 1000} s`);
  const ms = performance.now() - started;
  let peakRssMiB;
  let cpuMs;
  if (rssFile !== undefined) {
    const usage = readUsage(await readFile(rssFile, 'utf8').catch(() => ''));
    peakRssMiB = usage.peakRssMiB;
    cpuMs = usage.cpuMs;
    await rm(rssFile, { force: true });
  }
  if (code !== 0 && !options.allowFailure) {
    const tail = `${stderr}\n${stdout}`.trim().split('\n').slice(-6).join('\n');
    throw new Error(`bench: ${[command, ...args].join(' ')} exited ${code}\n${tail}`);
  }
  return { ms, code, stdout, stderr, peakRssMiB, cpuMs };
}

/** What bench/peak-rss.js wrote ({ maxRSS KiB, user µs, system µs }) → { peakRssMiB, cpuMs }; NaN for what is missing. */
export function readUsage(text) {
  let usage;
  try {
    usage = JSON.parse(text);
  } catch {
    usage = {};
  }
  const number = (value) => (typeof value === 'number' ? value : NaN);
  return { peakRssMiB: number(usage.maxRSS) / 1024, cpuMs: (number(usage.user) + number(usage.system)) / 1000 };
}

/** Runs `times` rounds of `fn` (each returns { ms, … }); returns the round with the median time, all times, all rounds. */
export async function medianOf(times, fn) {
  const rounds = [];
  for (let i = 0; i < times; i += 1) rounds.push(await fn(i));
  const m = median(rounds.map((round) => round.ms));
  return { ...rounds.find((round) => round.ms === m), all: rounds.map((round) => round.ms), rounds };
}

/**
 * Like medianOf for several contenders, interleaved (round 1 of each, then round 2 of each, …) so that a change of
 * load on this shared machine falls on all of them alike instead of on whichever ran last. `contenders` maps a name to
 * `fn(round)`; returns the same names mapped to medianOf's result.
 */
export async function interleaved(times, contenders) {
  const rounds = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
  for (let i = 0; i < times; i += 1) {
    for (const [name, fn] of Object.entries(contenders)) rounds[name].push(await fn(i));
  }
  return Object.fromEntries(
    Object.entries(rounds).map(([name, list]) => {
      const m = median(list.map((round) => round.ms));
      return [name, { ...list.find((round) => round.ms === m), all: list.map((round) => round.ms), rounds: list }];
    }),
  );
}

const fmt = (value, unit) => {
  if (unit === 's') return `${(value / 1000).toFixed(2)} s`;
  if (unit === 'ms') return `${value.toFixed(0)} ms`;
  if (unit === 'req/s') return `${Math.round(value).toLocaleString('en-GB')} req/s`;
  return `${value.toFixed(1)} ${unit}`;
};

/**
 * A table row: `figure` against `baseline` (same unit), ratio = figure / baseline. `target` is { ratioAtMost } or
 * { ratioAtLeast }, or undefined for a row that is information only (an absolute figure is printed, never judged).
 * A target is a ratio to a baseline measured beside the figure in the same run, on the same machine, under the same
 * load: the same code then passes on a slower machine or a busier hour, where an absolute time would not. Anything
 * else (a bound on the figure itself, a target without a baseline) is refused with a TypeError.
 */
export function row(name, figure, baseline, unit, target, note) {
  if (target !== undefined) {
    const keys = Object.keys(target);
    if (keys.length !== 1 || (keys[0] !== 'ratioAtMost' && keys[0] !== 'ratioAtLeast'))
      throw new TypeError(
        `bench row "${name}": a target is { ratioAtMost } or { ratioAtLeast } to a same-run baseline, not ${keys.join(', ')}`,
      );
    if (typeof baseline !== 'number' || !(baseline > 0))
      throw new TypeError(`bench row "${name}": a ratio target needs a baseline measured in the same run`);
  }
  const ratio = baseline === undefined ? undefined : figure / baseline;
  let targetText = '—';
  let ok;
  if (target?.ratioAtMost !== undefined) [targetText, ok] = [`ratio ≤ ${target.ratioAtMost}`, ratio <= target.ratioAtMost];
  if (target?.ratioAtLeast !== undefined) [targetText, ok] = [`ratio ≥ ${target.ratioAtLeast}`, ratio >= target.ratioAtLeast];
  return {
    name,
    value: fmt(figure, unit),
    baseline: baseline === undefined ? '—' : fmt(baseline, unit),
    ratio: ratio === undefined ? '—' : ratio.toFixed(2),
    target: targetText,
    ok: ok ?? true,
    ...(note ? { note } : {}),
  };
}

/**
 * A row that could not be measured here (no spec files, a peer not installable): printed as `not measured (why)`. It
 * fails the bench (verdict) unless --allow-unmeasured: a target it carries was never checked, so it cannot count as met.
 */
export function unmeasured(name, reason) {
  return {
    name,
    value: 'not measured',
    baseline: '—',
    ratio: '—',
    target: '—',
    ok: false,
    unmeasured: true,
    note: `not measured (${reason})`,
  };
}

/** The former name of unmeasured(): the same rule. */
export const skipped = unmeasured;

/**
 * What the bench is told about misses, from its arguments and environment: `--allow-unmeasured` accepts rows it could
 * not measure; `--no-fail` or BENCH_ALLOW_MISS=1 accepts missed targets (the table and the closing lines still name
 * them: for a look on a busy machine, where walls miss what a quiet one meets).
 */
export function benchOptions(argv = process.argv, env = process.env) {
  return {
    allowUnmeasured: argv.includes('--allow-unmeasured'),
    allowMissed: argv.includes('--no-fail') || env.BENCH_ALLOW_MISS === '1',
  };
}

/**
 * The bench's exit code and closing lines over its rows: 1 when a target is missed, a comparison is invalid or a
 * section failed (unless `allowMissed`), or a row was not measured (unless `allowUnmeasured`); else 0. Either way the
 * lines name every such row.
 */
export function verdict(rows, { allowUnmeasured = false, allowMissed = false } = {}) {
  const notMeasured = rows.filter((r) => r.unmeasured === true);
  const missed = rows.filter((r) => !r.ok && r.unmeasured !== true);
  const lines = [];
  if (missed.length > 0)
    lines.push(`missed: ${missed.map((r) => r.name).join(', ')}` + (allowMissed ? ' (allowed by --no-fail / BENCH_ALLOW_MISS=1)' : ''));
  if (notMeasured.length > 0)
    lines.push(
      `not measured: ${notMeasured.map((r) => r.name).join(', ')}` +
        (allowUnmeasured ? ' (allowed by --allow-unmeasured)' : ' (their targets were not checked; --allow-unmeasured accepts that)'),
    );
  if (lines.length === 0) lines.push('every target met');
  return { code: (missed.length > 0 && !allowMissed) || (notMeasured.length > 0 && !allowUnmeasured) ? 1 : 0, lines };
}

/**
 * The headline targets, each the row that measures it (bench/start.js, flow.js, emulator.js): `npm run bench` prints
 * them together at the end, side by side from the one run. Each is named by what it measures.
 */
export const HEADLINE_TARGETS = [
  { target: 'npm start beside plain newman of the whole flow', row: 'npm start (median of 5) / plain newman (whole flow)' },
  {
    target: "jo's demo peak memory beside plain newman as jo",
    row: 'jo: peak RSS, obflow demo --psu-user jo / plain newman (whole flow as jo)',
  },
  {
    target: "jo's paging peak memory beside plain newman",
    row: 'paging jo: peak RSS, obflow run transactions / plain newman (same collection)',
  },
  {
    target: 'emulator throughput beside a bare node:https server',
    row: 'emulator: GET /accounts at 32 connections / bare node:https',
  },
  { target: 'emulator p99 latency beside a bare node:https server', row: 'emulator: p99 latency / bare node:https' },
];

/**
 * One line per target of `targets` from the run's rows: met or MISSED with the row's figure and baseline, or a failed
 * row (`no row`) when the run has none by that name — a target whose row went missing cannot pass.
 */
export function targetRows(rows, targets = HEADLINE_TARGETS) {
  return targets.map(({ target, row: name }) => {
    const found = rows.find((r) => r.name === name);
    if (found === undefined)
      return {
        name: target,
        value: 'no row',
        baseline: '—',
        ratio: '—',
        target: '—',
        ok: false,
        note: `no row named "${name}" in this run`,
      };
    return { ...found, name: target, note: `row: ${name}` };
  });
}

/** A comparison that ran but is not valid (e.g. the peers made different requests): a miss. */
/** A failed row for a section that threw: its name and the first lines of the error, so the table still prints. */
export function errorRow(name, error, lines = 4) {
  const note = String(error?.message ?? error)
    .split('\n')
    .slice(0, lines)
    .join(' | ');
  return { name, value: 'error', baseline: '—', ratio: '—', target: '—', ok: false, note };
}

export function invalid(name, reason) {
  return { name, value: 'invalid', baseline: '—', ratio: '—', target: '—', ok: false, note: reason };
}

/** Prints the rows as an aligned table (figure, baseline, ratio, target) with notes under it. */
export function printTable(rows) {
  const head = ['', 'figure', 'baseline', 'ratio', 'target', ''];
  const status = (r) => (r.unmeasured ? 'NOT MEASURED' : r.ok ? (r.target === '—' ? '' : 'ok') : 'MISSED');
  const lines = rows.map((r) => [r.name, r.value, r.baseline, r.ratio, r.target, status(r)]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => String(l[i]).length)));
  const render = (cells) =>
    cells
      .map((c, i) => String(c).padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  console.log(render(head));
  console.log(widths.map((w) => '─'.repeat(w)).join('  '));
  for (const l of lines) console.log(render(l));
  const notes = rows.filter((r) => r.note);
  if (notes.length > 0) console.log('');
  for (const r of notes) console.log(`  ${r.name}: ${r.note}`);
}
