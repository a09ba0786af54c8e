// zod loads as its CommonJS build (src/config/zod.ts, issue 34 item 2): on Node.js 20 obflow's code cache covers
// CommonJS only, so the config schema's zod comes from the cache where its ES module would be compiled at every start.
// In a child process (a fresh module cache): loading the config schema puts zod's CommonJS files in require's cache,
// and the schema still parses a config (the one zod of the process built it).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const SCHEMA = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'config', 'schema.js')).href;

describe("the config schema's zod", () => {
  it("is zod's CommonJS build, one for the process", () => {
    const script = [
      `const { configSchema } = await import(${JSON.stringify(SCHEMA)});`,
      "const { createRequire } = await import('node:module');",
      'const cache = createRequire(import.meta.url).cache;',
      'const zodFiles = Object.keys(cache).filter((file) => /[\\\\/]node_modules[\\\\/]zod[\\\\/]/.test(file));',
      "const parsed = configSchema.safeParse({ target: 'sandbox' });",
      'console.log(JSON.stringify({ commonjs: zodFiles.length > 0 && zodFiles.every((file) => file.endsWith(".cjs")), parsed: parsed.success }));',
    ].join('\n');
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(JSON.parse(child.stdout)).toEqual({ commonjs: true, parsed: true });
  });
});
