// The hand-over works without obflow: the checked-in whole-flow collection runs unchanged with the plain `newman run`
// CLI (a subprocess), given the environment file and certificate list obflow wrote, against the real emulator.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { writeSslClientCertList } from '../../src/run/index.js';
import { COLLECTIONS_DIR, usePreparedSandbox } from './pipeline-helpers.js';
import { newmanCli } from '../helpers/newman.js';

const fixture = usePreparedSandbox('strict-headless');

describe('newman run (CLI subprocess)', () => {
  // v4.0: the same command, naming collections/v4.0/'s whole-flow file, against the same emulator.
  it.each([
    ['3.1', COLLECTIONS_DIR],
    ['4.0', join(COLLECTIONS_DIR, 'v4.0')],
  ])(
    "AIS v%s: runs the exported whole-flow collection with obflow's environment and certificate list, every assertion passing",
    async (version, dir) => {
      const listPath = await writeSslClientCertList(
        join(fixture.prepared.stateDir, 'ssl-client-cert-list.json'),
        fixture.prepared.certList,
      );
      const junit = join(fixture.prepared.stateDir, `cli-report-${version}.xml`);
      const result = await newmanCli(
        [
          'run',
          join(dir, 'obflow-ais.postman_collection.json'),
          '--environment',
          fixture.prepared.environmentPath,
          '--ssl-client-cert-list',
          listPath,
          '--ssl-extra-ca-certs',
          fixture.prepared.caBundle,
          '--reporters',
          'cli,junit',
          '--reporter-junit-export',
          junit,
          '--color',
          'off',
        ],
        fixture.prepared.stateDir,
      );
      expect(result.code, `${result.stdout.slice(-4000)}\n${result.stderr}`).toBe(0);
      // Every folder (step) ran and nothing failed: newman's own summary table says so.
      expect(result.stdout).toMatch(/│\s+assertions\s+│\s+\d+\s+│\s+0\s+│/);
      expect(result.stdout).toMatch(/│\s+requests\s+│\s+\d+\s+│\s+0\s+│/);
      expect(result.stdout).not.toMatch(/certificate "(key|cert)" load error/);
      const report = await readFile(junit, 'utf8');
      expect(report).toContain('transactions');
      expect(report).not.toMatch(/(failures|errors)="[1-9]/);
    },
  );
});
