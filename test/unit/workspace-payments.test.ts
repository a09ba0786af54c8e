// A payments workspace (obflow workspace --apis payments): its guide names the API and says the payment is the
// sandbox's unless pointed at a bank on purpose; its run and report are the payment flow's. Pure (buildWorkspace).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_FAMILIES, type ApiFamily } from '../../src/api-families.js';
import { buildCollections, loadTemplates } from '../../src/generate/index.js';
import { flowFileName } from '../../src/generate/files.js';
import { reportModuleDir } from '../../src/run/reporters/page.js';
import { buildWorkspace, COPIED_FILES, workspaceEnvironment } from '../../src/workspace/build.js';
import { parseConfig } from '../../src/config/load.js';
import type { Session } from '../../src/pipeline/session.js';
import { makeWorkspace } from '../../src/pipeline/workspace.js';
import { errorOf } from '../helpers/errors.js';

const templates = loadTemplates();
const dir = reportModuleDir();

function guideOf(family: ApiFamily): string {
  const files = buildWorkspace({
    target: { name: 'sandbox', profile: 'strict-headless', consent: 'headless' },
    environment: { id: 'e', name: 'sandbox-strict-headless', values: [] } as never,
    collections: buildCollections({ templates, family, apiVersion: '3.1' }),
    flowCollection: flowFileName(family),
    apiVersion: '3.1',
    family,
    transport: { certPem: 'CERT', chainPem: [], keyPem: 'KEY' },
    serverCaPem: [],
    includeSecrets: false,
    psu: { username: 'alex', password: 'x' },
    clientId: 'client-1',
    registrationFile: 'registration.json',
    keyFiles: { transport: 'transport.key', signing: 'signing.key' },
    obflowVersion: '0',
    builtAt: '2026-01-01T00:00:00.000Z',
    templates: {
      guide: readFileSync(join(dir, 'index.html.hbs'), 'utf8'),
      copied: Object.fromEntries(COPIED_FILES.map((name) => [name, readFileSync(join(dir, name), 'utf8')])),
    },
  });
  const manifest = files.find((file) => file.path.endsWith('workspace.json') || file.path.endsWith('manifest.json'));
  if (manifest !== undefined) expect(String(manifest.contents)).toContain(flowFileName(family));
  return String(files.find((file) => file.path === 'index.html')?.contents ?? '');
}

describe('the payments workspace', () => {
  it("its guide says the payment is the sandbox's unless pointed at a bank on purpose, and names the API", () => {
    const guide = guideOf(API_FAMILIES.payments);
    expect(guide).toContain('id="sandbox-only"');
    expect(guide).toContain('flow.payments.allowLiveBank');
    expect(guide).toContain('Payment Initiation API');
    expect(guide).toContain('/open-banking/v3.1/pisp');
    expect(guide).not.toContain("reads a test customer's accounts");
  });
  it('a flow that moves no money says nothing of payments (accounts, funds)', () => {
    expect(guideOf(API_FAMILIES.accounts)).not.toContain('id="sandbox-only"');
    expect(guideOf(API_FAMILIES.accounts)).toContain("reads a test customer's accounts");
    expect(guideOf(API_FAMILIES.funds)).not.toContain('id="sandbox-only"');
  });
});

describe('the VRP workspace', () => {
  it('its guide says what the VRP flow does (the mandate walked to its limits, then revoked) and that its payments are sandbox-only', () => {
    const guide = guideOf(API_FAMILIES.vrp);
    expect(guide).toContain('Domestic VRP API');
    expect(guide).toContain(`with a registered client: ${API_FAMILIES.vrp.journey}.`);
    expect(guide).toContain('each payment past a limit refused by the bank');
    expect(guide).toContain('id="sandbox-only"');
    expect(guide).toContain('flow.payments.allowLiveBank');
    expect(guide).toContain('the VRP mandate walked');
    expect(guide).not.toContain('a signed, idempotent domestic payment, checked against its consent');
  });
});

describe('obflow workspace with several families', () => {
  it('is refused before anything is read or written (ERR_USAGE naming them), not narrowed to one', async () => {
    const config = parseConfig({ flow: { apis: ['payments', 'funds'] } }, 'test');
    const error = await errorOf(() =>
      makeWorkspace({ config } as Session, { includeSecrets: false, force: false, run: false, now: new Date(0), cwd: '/' }),
    );
    expect(error?.code).toBe('ERR_USAGE');
    expect(error?.message).toContain('flow.apis names payments, funds');
  });
});

describe("the workspace's environment", () => {
  it("starts without obflow's run state of any family (a payment id, a consent's status, a mandate's walk), keeps the rest", () => {
    const values = [
      { key: 'consent_id', value: 'consent-of-obflows-run', type: 'default' },
      { key: 'payment_id', value: 'pay-1', type: 'default' },
      { key: 'payment_consent_status', value: 'Consumed', type: 'default' },
      { key: 'funds_checks', value: '[{"Available":true}]', type: 'default' },
      { key: 'vrp_walk', value: '[{"Outcome":"made"}]', type: 'default' },
      { key: 'vrp_payment_id', value: 'vrp-1', type: 'default' },
      { key: 'sandbox_base_url', value: 'https://bank.example', type: 'default' },
      { key: 'client_id', value: 'client-1', type: 'default' },
    ];
    const shipped = workspaceEnvironment({ id: 'e', name: 'n', values } as never, false);
    const value = (key: string) => shipped.values.find((entry) => entry.key === key)?.value;
    for (const key of ['consent_id', 'payment_id', 'payment_consent_status', 'funds_checks', 'vrp_walk', 'vrp_payment_id']) {
      expect(value(key), key).not.toBe(values.find((entry) => entry.key === key)?.value);
    }
    expect(value('sandbox_base_url')).toBe('https://bank.example');
    expect(value('client_id')).toBe('client-1');
  });
});
