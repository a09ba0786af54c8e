// Packages a dependency requires at its top level but calls only on demand (src/cli/deferred-requires.ts, issue 34):
// postman-collection's dynamic variables load none of faker until one is used, and then every one gives faker's own
// value (faker seeded alike in a process with the stand-in and one without). Each side in a process of its own: the
// hook is installed once per process.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDirSync } from '../helpers/temp.js';

const ROOT = join(import.meta.dirname, '..', '..');
const DEFERRED = pathToFileURL(join(ROOT, 'dist', 'cli', 'deferred-requires.js')).href;
const VARIABLES = createRequire(join(ROOT, 'package.json')).resolve('postman-collection/lib/superstring/dynamic-variables.js');

interface Outcome {
  fakerFilesAtLoad: number;
  stats: { deferred: number; loaded: number } | null;
  types: Record<string, string>;
  /** The variables whose value two passes seeded alike agree on (faker's and the fixed clock's; not uuid's). */
  seeded: Record<string, unknown>;
}

/** Loads the dynamic variables (with the stand-in when `defer`), then calls every generator in two passes of a seeded faker. */
function outcome(defer: boolean): Outcome {
  const script = `
    // One clock and one Math.random for both processes (faker's dates and postman-collection's timestamps read the
    // clock; $randomInt reads Math.random, not faker), reset at each pass like faker's seed.
    let state = 34;
    Math.random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
    const FIXED = Date.parse('2026-11-26T07:00:00.000Z');
    globalThis.Date = class extends Date {
      constructor(...args) {
        if (args.length === 0) super(FIXED);
        else super(...args);
      }
      static now() {
        return FIXED;
      }
    };
    const stats = ${defer} ? await import(${JSON.stringify(DEFERRED)}) : undefined;
    stats?.installDeferredRequires();
    const { createRequire } = await import('node:module');
    const require = createRequire(${JSON.stringify(VARIABLES)});
    const variables = require(${JSON.stringify(VARIABLES)});
    const fakerFilesAtLoad = Object.keys(require.cache).filter((file) => file.includes('@faker-js')).length;
    // faker itself, as a file beside the dynamic variables requires it (the stand-in answers only their own require).
    const faker = createRequire(${JSON.stringify(join(dirname(VARIABLES), 'probe.js'))})('@faker-js/faker/locale/en');
    const pass = () => {
      faker.seed(34);
      state = 34;
      return Object.fromEntries(Object.entries(variables).map(([name, variable]) => [name, variable.generator()]));
    };
    const [first, second] = [pass(), pass()];
    const seeded = Object.fromEntries(Object.entries(first).filter(([name, value]) => JSON.stringify(value) === JSON.stringify(second[name])));
    const types = Object.fromEntries(Object.entries(first).map(([name, value]) => [name, typeof value]));
    console.log(JSON.stringify({ fakerFilesAtLoad, stats: stats?.deferredRequireStats() ?? null, types, seeded }));
  `;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: dirname(VARIABLES) });
  expect(run.status, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as Outcome;
}

describe('deferred requires', () => {
  it('leaves faker unloaded until a dynamic variable needs it, then gives every variable faker’s own value', () => {
    const plain = outcome(false);
    const deferred = outcome(true);
    expect(plain.fakerFilesAtLoad).toBeGreaterThan(100);
    expect(deferred.fakerFilesAtLoad).toBe(0);
    expect(deferred.stats).toEqual({ deferred: 1, loaded: 1 });
    expect(deferred.types).toEqual(plain.types);
    expect(Object.keys(plain.seeded).length).toBeGreaterThan(100);
    expect(deferred.seeded).toEqual(plain.seeded);
  });

  it("is installed by obflow's own start (main() with the process's environment), not by a program calling main()", () => {
    const script = `
      import { Writable } from 'node:stream';
      import { createRequire } from 'node:module';
      const { main } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'cli', 'main.js')).href)});
      const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
      const io = { stdout: sink, stderr: sink, cwd: process.cwd(), env: process.env };
      await main(['--help'], io, process.argv[1] === 'start' ? { processEnv: process.env } : {});
      createRequire(${JSON.stringify(VARIABLES)})('postman-collection');
      const { deferredRequireStats } = await import(${JSON.stringify(DEFERRED)});
      console.log(JSON.stringify(deferredRequireStats()));
    `;
    const stats = (how: string): unknown => {
      const env = { ...process.env, NODE_COMPILE_CACHE: tempDirSync('obflow-deferred-cache-') };
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, how], { encoding: 'utf8', env });
      expect(run.status, run.stderr).toBe(0);
      return JSON.parse(run.stdout);
    };
    expect(stats('start')).toEqual({ deferred: 1, loaded: 0 });
    expect(stats('program')).toEqual({ deferred: 0, loaded: 0 });
  });

  it('leaves a start working where the loader cannot be wrapped (faker then loads as it would)', () => {
    const script = `
      import Module from 'node:module';
      Object.defineProperty(Module, '_load', { value: Module._load, writable: false });
      const { installDeferredRequires, deferredRequireStats } = await import(${JSON.stringify(DEFERRED)});
      installDeferredRequires();
      const { createRequire } = await import('node:module');
      const require = createRequire(${JSON.stringify(VARIABLES)});
      require(${JSON.stringify(VARIABLES)});
      const faker = Object.keys(require.cache).filter((file) => file.includes('@faker-js')).length;
      console.log(JSON.stringify({ stats: deferredRequireStats(), faker: faker > 100 }));
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ stats: { deferred: 0, loaded: 0 }, faker: true });
  });
});
