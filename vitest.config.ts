// Test tiers by folder: unit (no sockets), integration (emulator + newman over real mTLS), cli (main(argv)).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One temp folder per run (TMPDIR for the workers and what they spawn), removed at the end: see test/global-setup.ts.
    globalSetup: ['test/global-setup.ts'],
    reporters: process.env.CI ? ['default', ['json', { outputFile: 'test-results/vitest.json' }]] : ['default'],
  },
});
