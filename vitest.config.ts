// Test tiers by folder: unit (no sockets), integration (emulator + newman over real mTLS), cli (main(argv)).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { defineConfig } from 'vitest/config';

import SkipReasons from './test/reporters/skip-reasons.js';

/**
 * The test files that run each in a fresh worker (see `projects`): those that replace a module, a method or a global
 * for their own run (vi.mock, vi.spyOn, vi.stubEnv, fake timers, …) or change the process's cwd or environment. Read
 * from the files themselves, so a new file of that kind is isolated without a list to keep.
 */
const NEEDS_ISOLATION =
  /\bvi\.(?:mock|doMock|unmock|spyOn|stubEnv|stubGlobal|useFakeTimers|hoisted)\b|\bprocess\.chdir\(|\bprocess\.env\.\w+\s*=(?!=)|\bdelete process\.env\b/;
const ROOT = fileURLToPath(new URL('.', import.meta.url));
const ISOLATED = readdirSync(join(ROOT, 'test'), { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.test.ts'))
  .map((file) => `test/${file.split('\\').join('/')}`)
  .filter((file) => NEEDS_ISOLATION.test(readFileSync(join(ROOT, file), 'utf8')))
  .sort();

export default defineConfig({
  test: {
    // Two projects, the same tests: ISOLATED keeps a fresh worker per file; every other file shares its worker's
    // module graph with the files run there before it (isolate: false), so the source, newman, oidc-provider and the
    // test identity are loaded and issued once per worker instead of once per file: a third of the suite's CPU, which
    // is what bounds the run on a 2-core machine (docs/notes.md, "CI time: the test passes' CPU").
    projects: [
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
      { extends: true, test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: ISOLATED, isolate: false } },
    ],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One temp folder per run (TMPDIR for the workers and what they spawn), removed at the end: see test/global-setup.ts.
    globalSetup: ['test/global-setup.ts'],
    // Skipped tests are listed with their reason after the summary (test/helpers/prerequisites.ts). In CI also a JSON
    // report (.ci/run's counts) and a JUnit file (published by .github/workflows/ci.yml).
    reporters: [
      'default',
      new SkipReasons(),
      ...(process.env.CI
        ? [
            ['json', { outputFile: 'test-results/vitest.json' }] as ['json', object],
            ['junit', { outputFile: 'test-results/junit.xml' }] as ['junit', object],
          ]
        : []),
    ],
  },
});
