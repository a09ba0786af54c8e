// Edge cases of the emulator found on review, each over real mutual TLS on port 0: request targets that are not valid
// paths, registration's content-type check before reading, the verbose log's masking, timestamps, the shared consent
// expiry rule (token endpoint included), consent-page labels and login_hint lookups.

import { beforeAll, describe, expect, it } from 'vitest';

import { accountIdOf, HOLDINGS } from '../../src/sandbox/data/users.js';
import { getTestIdentity } from '../helpers/identity.js';
import { schemaProblems } from '../helpers/obie-schemas.js';
import type { TestIdentity } from '../helpers/identity.js';
import { BANK_FINANCIAL_ID, mtlsAgent, rawTarget, SandboxTpp, useTestSandbox, wire } from '../helpers/sandbox-client.js';

const SEED = 'hardening';
let identity: TestIdentity;
/** Added to the real clock by the sandbox's `now` (moved forward only by the expiry tests). */
let clockOffset = 0;
/** The sandbox's clock: never on a whole second (always .123), so a date-time that keeps milliseconds shows. */
const sandboxNow = (): Date => new Date(Math.floor((Date.now() + clockOffset) / 1000) * 1000 + 123);

function tpp(profile: ConstructorParameters<typeof SandboxTpp>[2] = 'strict-headless'): SandboxTpp {
  const client = new SandboxTpp(sandbox.urls, identity, profile);
  sandbox.track(client);
  return client;
}

/** The log lines written since `from` (the sandbox writes a request's lines when its answer finishes). */
const logSince = (from: number): string => sandbox.log.slice(from).join('\n');

const sandbox = useTestSandbox({ verbose: true, now: sandboxNow, seed: SEED });

beforeAll(async () => {
  identity = await getTestIdentity();
});

describe('request targets that are not valid paths', () => {
  const targets = ['//', '//[', '/\\'];

  it.each(targets)('resource origin answers %s with 400, an OBErrorResponse1 and the interaction id', async (target) => {
    const response = await rawTarget(identity, sandbox.urls.sandbox_base_url, 'GET', target, { 'x-fapi-interaction-id': 'target-test-1' });
    expect(response.status).toBe(400);
    expect(response.headers['x-fapi-interaction-id']).toBe('target-test-1');
    expect(response.json()).toMatchObject({ Id: 'target-test-1', Errors: [{ ErrorCode: 'UK.OBIE.Field.Invalid' }] });
  });

  it.each(targets)('authorisation origin answers %s with 400 invalid_request and the interaction id', async (target) => {
    const response = await rawTarget(identity, sandbox.urls.profiles['strict-headless'].auth_url, 'GET', target, {
      'x-fapi-interaction-id': 'target-test-2',
    });
    expect(response.status).toBe(400);
    expect(response.headers['x-fapi-interaction-id']).toBe('target-test-2');
    expect(response.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('registration checks the content type before reading the body', () => {
  it('a registration JWT posted as a form is refused and never printed by the verbose log (POST and PUT)', async () => {
    const client = tpp();
    const jwt = await client.signRegistration(client.registrationClaims());
    const [, , signature = ''] = jwt.split('.');
    const from = sandbox.log.length;
    const posted = await client.registerRaw(jwt, 'application/x-www-form-urlencoded');
    expect(posted.status).toBe(400);
    expect(posted.json()).toMatchObject({ error: 'invalid_client_metadata' });

    const registered = await client.register();
    const token = await client.clientCredentials();
    const put = await client.fetch('PUT', `${sandbox.urls.registration_endpoint}/${registered.client_id}`, {
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: await client.signRegistration(client.registrationClaims()),
    });
    expect(put.status).toBe(400);
    expect(put.json()).toMatchObject({ error: 'invalid_client_metadata' });
    const lines = logSince(from);
    expect(lines).toContain('POST /dynamic-client-registration/v3.2/register 400');
    expect(lines).not.toContain(signature);
    expect(lines).not.toContain(identity.softwareStatement.split('.')[2] ?? '');
    expect(lines).not.toMatch(/eyJ[A-Za-z0-9_-]{20,}/);
  });
});

describe('verbose log masking of JSON bodies', () => {
  it('keeps OBIE Code members (not secrets) and still masks the secret ones', async () => {
    const from = sandbox.log.length;
    const refused = await rawTarget(identity, sandbox.urls.sandbox_base_url, 'GET', '//');
    expect(refused.status).toBe(400);
    const code = refused.json<{ Code: string }>().Code;
    const client = tpp();
    await client.register();
    const token = await client.clientCredentials();
    const lines = logSince(from);
    expect(lines).toContain(`"Code":${JSON.stringify(code)}`);
    expect(lines).not.toContain('"Code":"[redacted]"');
    expect(lines).toContain('"client_secret":"[redacted]"');
    expect(lines).toContain('"access_token":"[redacted]"');
    expect(lines).not.toContain(token);
    expect(lines).not.toContain(client.client?.client_secret ?? '-');
  });
});

describe('date-times on the wire', () => {
  const WHOLE_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;

  it('writes whole seconds and +00:00 everywhere, with a clock that is never on a whole second', async () => {
    const client = tpp();
    await client.register();
    const created = await client.createConsentRaw(await client.clientCredentials());
    expect(created.status).toBe(201);
    const data = created.json<{ Data: { CreationDateTime: string; StatusUpdateDateTime: string } }>().Data;
    expect(data.CreationDateTime).toMatch(WHOLE_SECONDS);
    expect(data.StatusUpdateDateTime).toMatch(WHOLE_SECONDS);

    const flow = await client.headlessFlow();
    const read = (path: string) =>
      client.fetch('GET', `${sandbox.urls.aisp_base_url}${path}`, {
        headers: { authorization: `Bearer ${flow.accessToken}`, accept: 'application/json', 'x-fapi-financial-id': BANK_FINANCIAL_ID },
      });
    const balances = await read('/balances');
    expect(balances.status).toBe(200);
    const dates = balances.json<{ Data: { Balance: { DateTime: string }[] } }>().Data.Balance.map((balance) => balance.DateTime);
    expect(dates.length).toBeGreaterThan(0);
    for (const date of dates) expect(date).toMatch(WHOLE_SECONDS);
    const cc = await client.clientCredentials();
    const consent = await client.fetch('GET', `${sandbox.urls.aisp_base_url}/account-access-consents/${flow.consentId}`, {
      headers: { authorization: `Bearer ${cc}`, accept: 'application/json', 'x-fapi-financial-id': BANK_FINANCIAL_ID },
    });
    const after = consent.json<{ Data: { Status: string; CreationDateTime: string; StatusUpdateDateTime: string } }>().Data;
    expect(after.Status).toBe('Authorised');
    expect(after.CreationDateTime).toMatch(WHOLE_SECONDS);
    expect(after.StatusUpdateDateTime).toMatch(WHOLE_SECONDS);
  });
});

describe('one OBErrorResponse1 shape on the resource origin', () => {
  it('mutual-TLS refusals, the environment helper and AIS refusals all write Code as "<status> <reason>"', async () => {
    const bare = mtlsAgent(identity, false);
    try {
      const noCertificate = await wire(bare, 'GET', `${sandbox.urls.environment_helper}?client_id=x`, {
        headers: { 'x-fapi-interaction-id': 'one-shape-1' },
      });
      expect(noCertificate.status).toBe(401);
      expect(noCertificate.headers['x-fapi-interaction-id']).toBe('one-shape-1');
      expect(noCertificate.json()).toEqual({
        Code: '401 Unauthorized',
        Id: 'one-shape-1',
        Message: expect.any(String),
        Errors: [{ ErrorCode: 'UK.OBIE.Unauthorised', Message: expect.any(String) }],
      });
      expect(schemaProblems('OBErrorResponse1', noCertificate.json())).toEqual([]);
    } finally {
      await bare.close();
    }
    const client = tpp();
    const unknown = await client.fetch('GET', `${sandbox.urls.environment_helper}?client_id=nobody`, {
      headers: { 'x-fapi-interaction-id': 'one-shape-2' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.headers['x-fapi-interaction-id']).toBe('one-shape-2');
    expect(unknown.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(unknown.json()).toMatchObject({ Code: '404 Not Found', Id: 'one-shape-2' });
    expect(schemaProblems('OBErrorResponse1', unknown.json())).toEqual([]);
    const target = await rawTarget(identity, sandbox.urls.sandbox_base_url, 'GET', '//');
    expect(target.json()).toMatchObject({ Code: '400 Bad Request' });
    expect(schemaProblems('OBErrorResponse1', target.json())).toEqual([]);
  });
});

describe('the consent page and the resource server share one bank', () => {
  it('labels each account with its nickname, kind and the last four digits of the account number the AIS API reports', async () => {
    const client = tpp('strict-interactive');
    await client.register();
    const consentId = await client.createConsent();
    let html = '';
    const authorised = await client.authorizeInteractive(
      { consentId },
      {
        username: 'sam',
        password: 'sam-sandbox-2',
        beforeConfirm: (page) => {
          html = page;
        },
      },
    );
    const code = authorised.params.get('code') ?? '';
    expect(code).not.toBe('');
    const labels = new Map([...html.matchAll(/value="([^"]+)"> ([^<]+)<\/label>/g)].map((m) => [m[1] ?? '', m[2] ?? '']));
    const sams = HOLDINGS.filter((holding) => holding.holders.includes('psu-sam'));
    expect([...labels.keys()].sort()).toEqual(sams.map((holding) => accountIdOf(SEED, holding.key)).sort());

    const exchanged = await client.exchangeCode(code, authorised.redirectUri);
    const accounts = await client.fetch('GET', `${sandbox.urls.aisp_base_url}/accounts`, {
      headers: {
        authorization: `Bearer ${exchanged.json<{ access_token: string }>().access_token}`,
        accept: 'application/json',
        'x-fapi-financial-id': BANK_FINANCIAL_ID,
      },
    });
    const served = accounts.json<{ Data: { Account: { AccountId: string; Nickname: string; Account: { Identification: string }[] }[] } }>()
      .Data.Account;
    expect(served).toHaveLength(sams.length);
    for (const account of served) {
      const holding = sams.find((h) => accountIdOf(SEED, h.key) === account.AccountId);
      expect(holding?.nickname).toBe(account.Nickname);
      expect(labels.get(account.AccountId)).toBe(
        `${account.Nickname} (${holding?.kind ?? ''}) ending ${account.Account[0]?.Identification.slice(-4) ?? ''}`,
      );
    }
  });
});

describe('login_hint names a username, not a PSU id', () => {
  it('headless: login_hint=sam authorises as Sam; login_hint=psu-alex is refused with login_required', async () => {
    const client = tpp('strict-headless');
    await client.register();
    const bySam = await client.authorize({ consentId: await client.createConsent(), loginHint: 'sam' });
    expect(bySam.params.get('code')).toBeTruthy();
    const byPsuId = await client.authorize({ consentId: await client.createConsent(), loginHint: 'psu-alex' });
    expect(byPsuId.status).toBe(303);
    expect(byPsuId.params.get('code')).toBeNull();
    expect(byPsuId.params.get('error')).toBe('login_required');
    expect(byPsuId.params.get('state')).toBe(byPsuId.state);
  });
});

describe('consent expiry is one rule, the token endpoint included (injected clock)', () => {
  it('a refresh token and an unused code mint nothing once the consent passed its ExpirationDateTime', async () => {
    const client = tpp();
    await client.register({ grant_types: ['authorization_code', 'client_credentials', 'refresh_token'] });
    const createExpiring = async (): Promise<string> => {
      const created = await client.fetch('POST', `${sandbox.urls.aisp_base_url}/account-access-consents`, {
        headers: {
          authorization: `Bearer ${await client.clientCredentials()}`,
          'content-type': 'application/json',
          accept: 'application/json',
          'x-fapi-financial-id': BANK_FINANCIAL_ID,
        },
        body: JSON.stringify({
          Data: {
            Permissions: ['ReadAccountsDetail', 'ReadBalances'],
            ExpirationDateTime: new Date(sandboxNow().getTime() + 60_000).toISOString(),
          },
          Risk: {},
        }),
      });
      expect(created.status).toBe(201);
      return created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
    };
    const first = await client.authorize({ consentId: await createExpiring() });
    const exchanged = await client.exchangeCode(first.params.get('code') ?? '', first.redirectUri);
    expect(exchanged.status).toBe(200);
    const refresh = exchanged.json<{ refresh_token?: string }>().refresh_token ?? '';
    expect(refresh).not.toBe('');
    // Before expiry the refresh token works.
    expect((await client.token({ grant_type: 'refresh_token', refresh_token: refresh })).status).toBe(200);
    const second = await client.authorize({ consentId: await createExpiring() });
    const unusedCode = second.params.get('code') ?? '';
    expect(unusedCode).not.toBe('');

    clockOffset += 120_000;
    const refreshed = await client.token({ grant_type: 'refresh_token', refresh_token: refresh });
    expect(refreshed.status).toBe(400);
    expect(refreshed.json()).toMatchObject({ error: 'invalid_grant' });
    expect(refreshed.json<{ error_description: string }>().error_description).toContain('expired');
    const late = await client.exchangeCode(unusedCode, second.redirectUri);
    expect(late.status).toBe(400);
    expect(late.json()).toMatchObject({ error: 'invalid_grant', error_description: expect.stringContaining('consent') });
  });
});

describe('idle keep-alive connections outlive a PSU consent', () => {
  // A TPP's resource connection idles through the consent (seconds in a browser); at Node.js's 5 s the server closed
  // it just as newman reused it (ECONNRESET, "no answer from the bank", in .ci/run's browser consent on Node.js 24).
  it.each([
    ['resource', () => sandbox.urls.sandbox_base_url],
    ['authorisation', () => sandbox.urls.profiles['strict-headless'].auth_url],
  ])('the %s origin keeps an idle connection 65 s and says so (Keep-Alive: timeout=65)', async (_origin, base) => {
    const response = await rawTarget(identity, base(), 'GET', '/', { connection: 'keep-alive' });
    expect(response.headers['keep-alive']).toBe('timeout=65');
  });
});
