// zod loads as its CommonJS build (src/config/zod.ts), one for the process.
// In a child process (a fresh module cache): loading the config schema puts zod's CommonJS files in require's cache,
// and the schema still parses a config (the one zod of the process built it).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { packageFilesAfter } from '../helpers/package-files.js';

const SCHEMA = pathToFileURL(join(import.meta.dirname, '..', '..', 'dist', 'config', 'schema.js')).href;

describe("the config schema's zod", () => {
  it("is zod's CommonJS build, one for the process", () => {
    const { files, value } = packageFilesAfter('zod', [
      `const { configSchema } = await import(${JSON.stringify(SCHEMA)});`,
      "value = configSchema.safeParse({ target: 'sandbox' }).success;",
    ]);
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((file) => !file.endsWith('.cjs'))).toEqual([]);
    expect(value).toBe(true);
  });
});
