// `npm run build` (and prestart, pretest, prepare, bench): compile src/ into dist/ only when dist/ is not current.
// dist/ is current when dist/.build-stamp.json names the same fingerprint as now: a SHA-256 over every file under src/
// (path and content), the tsconfig files and the TypeScript version. Reading ~100 small files takes milliseconds;
// starting tsc takes seconds even with nothing to do, so `npm start` on a current dist/ never starts it. When a source
// changed, tsc compiles incrementally (tsconfig.build.json: tsBuildInfoFile in dist/); when one was removed (or an
// output is missing), dist/ is rebuilt from empty so no output of a removed module survives. `--force` rebuilds.
//
// `--then <obflow arguments…>` (npm start: `--then demo`) runs obflow in this same process once dist/ is current,
// instead of npm starting a second node process for it after a prestart check: one process start less per `npm start`.
//
//   node tools/build.js [--force] [--then <obflow arguments…>]

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(import.meta.dirname, '..');
const dist = join(root, 'dist');
const stampFile = join(dist, '.build-stamp.json');
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];

function sourceFiles(dir) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(path));
    else files.push(path);
  }
  return files;
}

function fingerprintOf(sources) {
  const hash = createHash('sha256');
  let typescript;
  try {
    typescript = JSON.parse(readFileSync(join(root, 'node_modules', 'typescript', 'package.json'), 'utf8')).version;
  } catch {
    console.error(
      'build: TypeScript is not installed in node_modules, so dist/ cannot be built\nhint: Run `npm ci` (the build needs the dev dependencies).',
    );
    process.exit(2);
  }
  hash.update(`typescript ${typescript}\0`);
  for (const path of [...CONFIGS.map((name) => join(root, name)), ...sources]) {
    hash.update(`${relative(root, path)}\0`);
    hash.update(readFileSync(path));
    hash.update('\0');
  }
  return hash.digest('hex');
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return undefined;
  }
}

const thenAt = process.argv.indexOf('--then');
const force = process.argv.slice(2, thenAt < 0 ? undefined : thenAt).includes('--force');
const sources = sourceFiles(join(root, 'src')).sort();
const fingerprint = fingerprintOf(sources);
const stamp = readStamp();
const names = sources.map((path) => relative(root, path));
/** dist/x.js of every src/x.ts: one removed by hand would not come back from an incremental build. */
const outputsPresent = names
  .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
  .every((name) => existsSync(join(dist, `${name.slice('src/'.length, -'.ts'.length)}.js`)));
if (stamp?.fingerprint !== fingerprint || !outputsPresent || force) build();
writeWorkspaceRules();
await then();

function build() {
  const removed = (stamp?.sources ?? []).filter((name) => !names.includes(name));
  if (force || removed.length > 0 || !outputsPresent) rmSync(dist, { recursive: true, force: true });
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    // A failed build leaves no stamp: the next start compiles again instead of running half-built code.
    rmSync(stampFile, { force: true });
    process.exit(result.status ?? 1);
  }
  writeFileSync(stampFile, `${JSON.stringify({ fingerprint, sources: names }, null, 2)}\n`);
}

/**
 * Without --then: done (exit 0). With it: dist/cli/main.js as if node had been started on it with the arguments after
 * --then (it runs when process.argv[1] is its own path), in this process; its exit code is the process's.
 */
async function then() {
  if (thenAt < 0) process.exit(0);
  const main = join(dist, 'cli', 'main.js');
  process.argv = [process.argv[0], main, ...process.argv.slice(thenAt + 1)];
  // Resolves when main.js's top level is done: it has set process.exitCode and ends the process itself.
  await import(pathToFileURL(main).href);
}

/**
 * The rules obflow's runner and every workspace's runner share (src/runner-rules.ts, typed once) go into the workspace
 * template as rules.mjs: its compiled output, which imports nothing. Generated, not checked in (.gitignore); written
 * only when it differs, so a current build touches nothing.
 */
function writeWorkspaceRules() {
  const compiled = readFileSync(join(dist, 'runner-rules.js'), 'utf8').replace(/^\/\/# sourceMappingURL=.*\n?/m, '');
  const target = join(root, 'templates', 'workspace', 'rules.mjs');
  const text = `// Generated by tools/build.js from src/runner-rules.ts: edit that file, not this one.\n${compiled}`;
  let current;
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = undefined;
  }
  if (current !== text) writeFileSync(target, text);
}
