// The cache of newman's script sandbox's boot code (src/cli/sandbox-code-cache.ts, issue 34): boot code that large
// run through vm.runInContext is compiled once, then taken from V8's cached code by the next process; smaller code is
// Node.js's own vm.runInContext's; while V8's flags are not the start's nothing is cached; other code is compiled anew.
// Each case in processes of their own (the hook is installed once per process), over a cache folder of its own; the
// last with postman-sandbox's real boot code, as newman makes a sandbox.
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDirSync } from '../helpers/temp.js';

const CACHE = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'cli', 'sandbox-code-cache.js')).href;

interface Outcome {
  result: unknown;
  stats: { hits: number; misses: number; bypassed: number };
}

/** One process: installs the cache over `folder`, runs `body` (an async function's body with `vm` in scope). */
function inProcess(folder: string, body: string, cacheable = true): Outcome {
  const script = [
    "import vm from 'node:vm';",
    "import { createRequire } from 'node:module';",
    `const { installSandboxCodeCache, sandboxCodeCacheStats } = await import(${JSON.stringify(CACHE)});`,
    `installSandboxCodeCache(${JSON.stringify(folder)}, [], () => ${String(cacheable)});`,
    'const require = createRequire(process.cwd() + "/");',
    `const result = await (async () => { ${body} })();`,
    'console.log(JSON.stringify({ result, stats: sandboxCodeCacheStats() }));',
  ].join('\n');
  // A file, not `-e`: the code of `-e` is in process.execArgv, which names the cache file (flags V8 may have been given).
  const file = join(tempDirSync('obflow-sandbox-cache-script-'), 'child.mjs');
  writeFileSync(file, script);
  const child = spawnSync(process.execPath, [file], {
    timeout: 30_000,
    encoding: 'utf8',
    cwd: join(import.meta.dirname, '..', '..'),
  });
  expect(child.stderr).toBe('');
  expect(child.status).toBe(0);
  return JSON.parse(child.stdout) as Outcome;
}

/** Boot code over the threshold (1 MiB), made in the child: many small functions, and a last line whose value is
 *  `value` (so two values give two codes of the same length). */
const runBootCode = (value: number, options = '{ timeout: 5000 }') =>
  [
    'const functions = Array.from({ length: 40000 }, (_, index) => `function f${index}(a) { return a + ${index % 10}; }`);',
    `const code = functions.join('\\n') + '\\nf7(${value - 7});';`,
    `return vm.runInContext(code, vm.createContext({}), ${options});`,
  ].join('\n');

describe("the sandbox's boot code cache", () => {
  it('compiles boot code once, then runs it from the cached code in the next process, with the same result', () => {
    const folder = tempDirSync('obflow-sandbox-cache-');
    expect(inProcess(folder, runBootCode(42))).toEqual({ result: 42, stats: { hits: 0, misses: 1, bypassed: 0 } });
    expect(readdirSync(folder)).toEqual([expect.stringMatching(/^sandbox-v[\d.]+-\w+(-[0-9a-f]{8})?\.cache$/)]);
    expect(inProcess(folder, runBootCode(42))).toEqual({ result: 42, stats: { hits: 1, misses: 0, bypassed: 0 } });
    // A filename given as a string, as vm.runInContext takes it: the same code, from the cache.
    expect(inProcess(folder, runBootCode(42, "'boot.js'"))).toEqual({ result: 42, stats: { hits: 1, misses: 0, bypassed: 0 } });
  });

  it('compiles other code of the same length anew (the cache names the code it holds)', () => {
    const folder = tempDirSync('obflow-sandbox-cache-');
    inProcess(folder, runBootCode(42));
    expect(inProcess(folder, runBootCode(43))).toEqual({ result: 43, stats: { hits: 0, misses: 1, bypassed: 0 } });
    expect(inProcess(folder, runBootCode(43))).toEqual({ result: 43, stats: { hits: 1, misses: 0, bypassed: 0 } });
  });

  it("leaves smaller code to Node.js's vm.runInContext, and caches nothing while V8's flags are not the start's", () => {
    const folder = tempDirSync('obflow-sandbox-cache-');
    const small = "return vm.runInContext('6 * 7', vm.createContext({}));";
    expect(inProcess(folder, small)).toEqual({ result: 42, stats: { hits: 0, misses: 0, bypassed: 0 } });
    expect(inProcess(folder, runBootCode(42), false)).toEqual({ result: 42, stats: { hits: 0, misses: 0, bypassed: 1 } });
    expect(readdirSync(folder)).toEqual([]);
  });

  it("runs it with vm.runInContext's options: a timeout still stops it", () => {
    const folder = tempDirSync('obflow-sandbox-cache-');
    const endless = [
      "const code = 'var x = 1;' + ' '.repeat(1024 * 1024) + 'while (true) {}';",
      'try { vm.runInContext(code, vm.createContext({}), { timeout: 100 }); return "ran to the end"; }',
      'catch (error) { return error.code; }',
    ].join('\n');
    expect(inProcess(folder, endless)).toEqual({ result: 'ERR_SCRIPT_EXECUTION_TIMEOUT', stats: { hits: 0, misses: 1, bypassed: 0 } });
  });

  it("takes postman-sandbox's own boot code, as newman makes a script sandbox", () => {
    const folder = tempDirSync('obflow-sandbox-cache-');
    const makeSandbox = [
      "const sandbox = require('postman-sandbox');",
      'const context = await new Promise((resolve, reject) => sandbox.createContext({}, (error, made) => (error ? reject(error) : resolve(made))));',
      'const result = await new Promise((resolve) => context.execute(\'pm.environment.set("x", 6 * 7)\', {}, (error, execution) => resolve(error ? String(error) : execution.environment.values[0].value)));',
      'context.dispose();',
      'return result;',
    ].join('\n');
    expect(inProcess(folder, makeSandbox)).toEqual({ result: 42, stats: { hits: 0, misses: 1, bypassed: 0 } });
    expect(inProcess(folder, makeSandbox)).toEqual({ result: 42, stats: { hits: 1, misses: 0, bypassed: 0 } });
  });
});
