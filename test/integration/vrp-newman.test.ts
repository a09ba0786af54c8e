// The VRP hand-over works without obflow: the checked-in whole-flow VRP collections (v3.1.11 and v4.0) run unchanged
// with the plain `newman run` CLI, given the environment file and certificate list obflow wrote for flow.apis vrp,
// against the real emulator over mutual TLS: the consent, its authorisation, a payment, the mandate walk (its refusals
// the bank's own) and the DELETE, every assertion passing. The JUnit report names each refusal's limit. And obflow's own
// run of the same flow: its pages (junit, obflow-run.json, report.html, the merged page) carry the mandate and no key,
// token or signature; report.html read in Chromium shows each limit and the payment that hit it.

import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { API_FAMILIES } from '../../src/api-families.js';
import { collectionsDirOf } from '../../src/pipeline/generate.js';
import { SECRET_VARIABLE_KEYS } from '../../src/generate/index.js';
import { mergeRunReports } from '../../src/report/merge-files.js';
import { buildRunPlan, readStepCollections, runSteps, writeSslClientCertList, type JsonReport } from '../../src/run/index.js';
import { issuedSecrets } from '../helpers/secrets.js';
import { chromium as chromiumPrerequisite, CHROMIUM_PATH, presentOrSkipAtTheEnd } from '../helpers/prerequisites.js';
import { newmanCli } from '../helpers/newman.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { COLLECTIONS_DIR, prepare, type Prepared } from './pipeline-helpers.js';

const fixture = {} as { sandbox: TestSandbox; prepared: Prepared; identity: TestIdentity };
beforeAll(async () => {
  fixture.sandbox = await startTestSandbox({ apis: ['accounts', 'vrp'] });
  fixture.identity = await getTestIdentity();
  fixture.prepared = await prepare(fixture.sandbox, fixture.identity, 'strict-headless', {}, { flow: { apis: ['vrp'] } });
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

describe("obflow's own run of the VRP flow: the mandate on every page, no secret in any", () => {
  it('junit, obflow-run.json, report.html and the merged page show each limit and the payment that hit it; none holds a key, a token or a signature', async () => {
    const { prepared, identity } = fixture;
    const reportDir = join(prepared.stateDir, 'obflow-vrp-reports');
    const collections = await readStepCollections(join(COLLECTIONS_DIR, 'vrp'), API_FAMILIES.vrp.steps);
    const result = await runSteps({
      steps: buildRunPlan({ stepNames: API_FAMILIES.vrp.steps, collections }),
      environment: prepared.environment,
      cwd: prepared.stateDir,
      sslClientCertList: prepared.certList,
      sslExtraCaCerts: prepared.caBundle,
      reporters: ['junit', 'json', 'html'],
      reportDir,
      secretKeys: SECRET_VARIABLE_KEYS,
      target: { name: 'sandbox', profile: 'strict-headless', families: ['vrp'] },
      log: () => undefined,
    });
    expect(result.passed).toBe(true);
    const merged = join(prepared.stateDir, 'obflow-vrp-merged');
    await mergeRunReports({ inputs: [reportDir], out: merged, slowerThreshold: '50%', cwd: prepared.stateDir });
    const files = [reportDir, merged].flatMap((dir) =>
      readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name)),
    );
    const secrets = issuedSecrets({
      environments: [result.environment.values],
      keyPems: [identity.pem.signingKey, identity.pem.transportKey],
    });
    expect(secrets.size).toBeGreaterThan(10);
    // The limit the walk's first refusal names, as each page says it (src/runner-rules.ts vrpLimitText).
    const refusal = /10\.01 GBP refused after 10\.00 \(UK\.OBIE\.Rules\.FailsControlParameters\)/;
    const showing: string[] = [];
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      if (refusal.test(text)) showing.push(file.slice(prepared.stateDir.length));
      for (const secret of secrets) expect(text.includes(secret), `${file} holds a secret (${secret.slice(0, 8)}…)`).toBe(false);
      // A detached JWS (x-jws-signature, obflow's or the bank's) in any form: header, empty payload, signature.
      expect(text, file).not.toMatch(/eyJ[A-Za-z0-9_-]{20,}\.\.[A-Za-z0-9_-]{40,}/);
    }
    expect(showing.map((file) => file.split('/').at(-1)).sort()).toEqual(
      expect.arrayContaining(['discovery--vrp-consent-delete.xml', 'report.html', 'index.html', 'obflow-merged.json']),
    );
    // obflow-run.json holds the mandate as data: the same refusal, by limit.
    const run = JSON.parse(await readFile(join(reportDir, 'obflow-run.json'), 'utf8')) as JsonReport;
    expect(run.vrp?.limits[0]).toMatchObject({
      member: 'MaximumIndividualAmount',
      refused: [{ amount: '10.01', beforeMinor: 1000, errorCode: 'UK.OBIE.Rules.FailsControlParameters' }],
      madePast: [],
    });
    if (!presentOrSkipAtTheEnd(chromiumPrerequisite)) return;
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ['--no-sandbox'] });
    try {
      const tab = await browser.newPage();
      await tab.goto(pathToFileURL(join(reportDir, 'report.html')).href);
      const rows = await tab.locator('#vrp-mandate tbody tr').allInnerTexts();
      expect(rows).toHaveLength(2);
      expect(rows[0]).toMatch(/^at most 10\.00 GBP a payment\s+MaximumIndividualAmount\s+largest payment 10\.00 GBP; 10\.01 GBP refused/);
      expect(rows[1]).toMatch(
        /^25\.00 GBP a Day \(Consent\)\s+PeriodicLimits\[0\]\s+25\.00 of 25\.00 GBP used; 10\.00 GBP refused after 20\.00/,
      );
      expect(await tab.locator('#vrp-mandate .pill.bad').count()).toBe(0);
    } finally {
      await browser.close();
    }
  });
});
