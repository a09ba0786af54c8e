// The VRP hand-over works without obflow: the checked-in whole-flow VRP collections (v3.1.11 and v4.0) run unchanged
// with the plain `newman run` CLI, given the environment file and certificate list obflow wrote for flow.apis vrp,
// against the real emulator over mutual TLS: the consent, its authorisation, a payment, the mandate walk (its refusals
// the bank's own) and the DELETE, every assertion passing. The JUnit report names each refusal's limit.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { API_FAMILIES } from '../../src/api-families.js';
import { collectionsDirOf } from '../../src/pipeline/generate.js';
import { writeSslClientCertList } from '../../src/run/index.js';
import { newmanCli } from '../helpers/newman.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { getTestIdentity } from '../helpers/identity.js';
import { COLLECTIONS_DIR, prepare, type Prepared } from './pipeline-helpers.js';

const fixture = {} as { sandbox: TestSandbox; prepared: Prepared };
beforeAll(async () => {
  fixture.sandbox = await startTestSandbox({ apis: ['accounts', 'vrp'] });
  fixture.prepared = await prepare(fixture.sandbox, await getTestIdentity(), 'strict-headless', {}, { flow: { apis: ['vrp'] } });
});
afterAll(async () => {
  await fixture.prepared?.dispatcher.close();
  await fixture.sandbox?.close();
});

describe('newman run of the VRP whole-flow collection (CLI subprocess)', () => {
  it.each(['3.1', '4.0'] as const)('VRP v%s: every assertion passes, the walk refused where the mandate says', async (version) => {
    const dir = collectionsDirOf(COLLECTIONS_DIR, version, API_FAMILIES.vrp);
    const listPath = await writeSslClientCertList(join(fixture.prepared.stateDir, 'ssl-client-cert-list.json'), fixture.prepared.certList);
    const junit = join(fixture.prepared.stateDir, `vrp-report-${version}.xml`);
    const result = await newmanCli(
      [
        'run',
        join(dir, `${API_FAMILIES.vrp.flowCollection}.postman_collection.json`),
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
    expect(result.code, `${result.stdout.slice(-6000)}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/│\s+assertions\s+│\s+\d+\s+│\s+0\s+│/);
    const report = await readFile(junit, 'utf8');
    expect(report).not.toMatch(/(failures|errors)="[1-9]/);
    // The refusals ran and passed: each names its limit.
    expect(report).toContain('10.01 GBP breaches MaximumIndividualAmount (at most 10.00 GBP a payment): the bank refuses it (400)');
    expect(report).toContain('10.00 GBP breaches PeriodicLimits[0] (25.00 GBP a day');
    expect(report).toContain('the deleted consent refuses a payment of 0.01 GBP');
  });
});
