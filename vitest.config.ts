// Test tiers by folder: unit (no sockets), integration (emulator + newman over real mTLS), cli (main(argv)).
import { defineConfig } from 'vitest/config';

import SkipReasons from './test/reporters/skip-reasons.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
