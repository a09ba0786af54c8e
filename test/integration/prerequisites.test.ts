// The command-line tools some tests run (openssl, Info-ZIP unzip) are prerequisites like Chromium and the spec files
// (test/helpers/prerequisites.ts): without them on PATH those tests are reported as skipped with the reason, and
// under OBFLOW_REQUIRE_PREREQUISITES=1 (CI) they fail — never a silent early return that counts as a pass. Checked by
// running vitest on those tests with a PATH that holds only node.

import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { REPO_ROOT } from '../helpers/prerequisites.js';
import { tempDirSync } from '../helpers/temp.js';

const bin = tempDirSync('obflow-node-only-');
symlinkSync(process.execPath, join(bin, 'node'));
afterAll(() => rmSync(bin, { recursive: true, force: true }));

const TESTS = ['test/unit/workspace-write.test.ts', 'test/unit/pki-issue.test.ts', 'test/unit/pki-load.test.ts'];
const PATTERN = 'unzip -Z|verifies with openssl|opens PFX files made by openssl|SHA-256 of the DER certificate';

interface JsonReport {
  testResults: { assertionResults: { title: string; status: string; meta?: { skipReason?: string } }[] }[];
}

function vitestWithoutTools(require: string): { status: number | null; report: JsonReport } {
  const out = join(bin, `report-${require || 'none'}.json`);
  const result = spawnSync(
    process.execPath,
    [join(REPO_ROOT, 'node_modules/vitest/vitest.mjs'), 'run', ...TESTS, '-t', PATTERN, '--reporter=json', `--outputFile=${out}`],
    {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      env: { ...process.env, PATH: bin, CI: '', OBFLOW_REQUIRE_PREREQUISITES: require },
      timeout: 120_000,
    },
  );
  return { status: result.status, report: JSON.parse(readFileSync(out, 'utf8')) as JsonReport };
}

describe('openssl and unzip are prerequisites', () => {
  it('missing: each test that runs them is skipped, with the reason', () => {
    const { status, report } = vitestWithoutTools('');
    expect(status).toBe(0);
    const tests = report.testResults.flatMap((file) => file.assertionResults).filter((test) => new RegExp(PATTERN).test(test.title));
    expect(tests.map((test) => test.title)).toHaveLength(4);
    for (const test of tests) {
      expect(test.status, test.title).toBe('skipped');
      expect(test.meta?.skipReason, test.title).toMatch(/^needs (OpenSSL|Info-ZIP unzip): no `(openssl|unzip)` on PATH/);
    }
  }, 120_000);

  it('missing under OBFLOW_REQUIRE_PREREQUISITES=1: the run fails, each test that runs them failing', () => {
    const { status, report } = vitestWithoutTools('1');
    expect(status).not.toBe(0);
    const tests = report.testResults.flatMap((file) => file.assertionResults).filter((test) => new RegExp(PATTERN).test(test.title));
    expect(tests.map((test) => [test.title, test.status])).toEqual(tests.map((test) => [test.title, 'failed']));
    expect(tests).toHaveLength(4);
  }, 120_000);
});

describe('without the spec files, a test that also validates schemas runs its other assertions first', () => {
  it('the strict-rule assertions after a schema check run, then the test is reported as skipped with the reason', () => {
    const empty = tempDirSync('obflow-no-specs-');
    const out = join(empty, 'report.json');
    try {
      // x-fapi-financial-id: a schema check comes first, the strict rule's assertions after it.
      const result = spawnSync(
        process.execPath,
        [
          join(REPO_ROOT, 'node_modules/vitest/vitest.mjs'),
          'run',
          'test/integration/sandbox-ais-refusals.test.ts',
          '-t',
          'x-fapi-financial-id: required',
          '--reporter=json',
          `--outputFile=${out}`,
        ],
        {
          cwd: REPO_ROOT,
          encoding: 'utf8',
          env: { ...process.env, CI: '', OBFLOW_SPECS_DIR: empty, OBFLOW_REQUIRE_PREREQUISITES: '' },
          timeout: 120_000,
        },
      );
      expect(result.status, result.stderr).toBe(0);
      const report = JSON.parse(readFileSync(out, 'utf8')) as JsonReport;
      const test = report.testResults
        .flatMap((file) => file.assertionResults)
        .find((t) => t.title.startsWith('x-fapi-financial-id: required'));
      expect(test?.status).toBe('skipped');
      // The reason counts the expect calls that ran before the skip: all 9 of the test's (the empty schema check one of
      // them), where stopping at the schema check ran 1.
      expect(test?.meta?.skipReason).toMatch(
        /^needs the OBIE Account Information OpenAPI files: .*; the test ran to its end \(9 expect calls passed\)$/,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  }, 120_000);
});
