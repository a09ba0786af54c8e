// Secrets never reach the reports: an assertion whose failure message quotes a secret (the Basic credentials, a
// token) ends up in newman's JUnit file — obflow redacts every secret value of the run from it.

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { environmentValue } from '../../src/environment/index.js';
import { SECRET_VARIABLE_KEYS } from '../../src/generate/index.js';
import { buildRunPlan, runSteps } from '../../src/run/index.js';
import { describeRun, usePreparedSandbox } from './pipeline-helpers.js';

const fixture = usePreparedSandbox('permissive-headless');

/** A step whose test fails with the secrets in its message (chai prints the actual value). */
const leaky = {
  info: { name: 'leaky', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
  item: [{
    name: 'leaky: GET discovery',
    request: { method: 'GET', url: '{{configEndpoint}}' },
    event: [{ listen: 'test', script: { type: 'text/javascript', exec: [
      "pm.test('basicToken is not quoted in reports', function () { pm.expect(pm.environment.get('basicToken')).to.eql('nope'); });",
      "pm.test('client_credentials_token is not quoted in reports', function () { pm.expect(pm.environment.get('client_credentials_token')).to.eql('nope'); });",
    ] } }],
  }],
};

describe('reports', () => {
  it('JUnit files carry the failing assertion but [redacted] instead of any secret value', async () => {
    const reportDir = join(fixture.prepared.stateDir, 'reports');
    const lines: string[] = [];
    const result = await runSteps({
      steps: [...buildRunPlan({ stepNames: ['discovery', 'client-credentials'], collections: fixture.prepared.collections }), { name: 'leaky', collection: leaky }],
      environment: fixture.prepared.environment,
      cwd: fixture.prepared.stateDir,
      sslClientCertList: fixture.prepared.certList,
      sslExtraCaCerts: fixture.prepared.caBundle,
      reporters: ['cli', 'junit'],
      reportDir,
      secretKeys: SECRET_VARIABLE_KEYS,
      log: (line) => lines.push(line),
    });
    expect(result.failedStep, describeRun(result)).toBe('leaky');
    expect(result.steps.find((step) => step.name === 'leaky')?.assertions, describeRun(result)).toEqual({ total: 2, failed: 2 });
    const basic = environmentValue(result.environment, 'basicToken') ?? '';
    const token = environmentValue(result.environment, 'client_credentials_token') ?? '';
    expect(basic.length).toBeGreaterThan(8);
    expect(token.length).toBeGreaterThan(8);
    // chai quotes the actual values in the failure messages (truncated, so a prefix of each secret would leak):
    // the messages obflow returns (the CLI prints the first) are redacted like the reports.
    const messages = result.steps.flatMap((step) => step.failures.map((failure) => failure.message)).join('\n');
    expect(messages).toMatch(/expected '\[redacted\]…?' to deeply equal 'nope'/);
    for (const secret of [basic, token]) expect(messages.includes(secret.slice(0, 12))).toBe(false);
    const reports = [...new Set(result.steps.flatMap((step) => step.reports))];
    expect(reports).toHaveLength(1);
    const text = await readFile(reports[0] as string, 'utf8');
    expect(text).toContain('basicToken is not quoted in reports');
    expect(text).toContain('[redacted]');
    for (const secret of [basic, token]) {
      expect(text.includes(secret)).toBe(false);
      expect(text.includes(secret.slice(0, 12))).toBe(false);
    }

    // The cli progress lines (obflow's own reporter, through the log seam) are redacted the same way.
    const progress = lines.join('\n');
    expect(progress).toContain('▸ client-credentials');
    expect(progress).toMatch(/client-credentials: POST token\s+POST \/\S+\/token → 200/);
    expect(progress).toContain('✓ status is 200');
    expect(progress).toMatch(/✗ basicToken is not quoted in reports: expected '\[redacted\]/);
    for (const secret of [basic, token]) expect(progress.includes(secret.slice(0, 12))).toBe(false);
  });
});
