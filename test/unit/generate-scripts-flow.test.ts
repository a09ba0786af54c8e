// The whole flow's scripts, run as rendered in a vm with the pm double (test/helpers/script-double.ts): discovery,
// consent, code exchange, accounts.

import { describe, expect, it } from 'vitest';
import { script, SENT_ID, run, b64url, BANK_JWKS, signPs256, BANK } from '../helpers/script-double.js';

describe('discovery, consent, code exchange, accounts', () => {
  const json = { 'Content-Type': 'application/json; charset=utf-8' };

  it('discovery: takes the endpoints, fails another issuer or no unsigned request objects', () => {
    const test = script('discovery: GET openid-configuration', 'test');
    const config = {
      issuer: BANK.issuer,
      authorization_endpoint: `${BANK.issuer}/auth`,
      token_endpoint: `${BANK.issuer}/token`,
      jwks_uri: `${BANK.issuer}/jwks`,
      response_types_supported: ['code', 'code id_token'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['PS256'],
      request_object_signing_alg_values_supported: ['none', 'PS256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
      scopes_supported: ['openid', 'accounts'],
      claims_supported: ['openbanking_intent_id', 'acr'],
    };
    const ok = run(test, { env: { ...BANK, authEndpoint: '', tokenEndpoint: '' }, response: { code: 200, headers: json, body: config } });
    expect(ok.failed()).toEqual([]);
    expect(ok.env.get('authEndpoint')).toBe(`${BANK.issuer}/auth`);
    expect(ok.env.get('tokenEndpoint')).toBe(`${BANK.issuer}/token`);
    expect(
      run(test, { env: BANK, response: { code: 200, headers: json, body: { ...config, issuer: 'https://other.example' } } }).failed(),
    ).toEqual(["issuer is the environment's issuer"]);
    expect(
      run(test, {
        env: BANK,
        response: { code: 200, headers: json, body: { ...config, request_object_signing_alg_values_supported: ['PS256'] } },
      }).failed(),
    ).toEqual(['accepts unsigned request objects (request_object_signing_alg none)']);
  });

  it('consent creation: stores the ConsentId and forgets older codes and tokens; fails another status', () => {
    const test = script('account-access-consent: POST /account-access-consents', 'test');
    const body = {
      Data: {
        ConsentId: 'c-1',
        Status: 'AwaitingAuthorisation',
        Permissions: ['ReadAccountsDetail', 'ReadBalances', 'ReadTransactionsCredits', 'ReadTransactionsDebits', 'ReadTransactionsDetail'],
        CreationDateTime: '2026-11-22T03:00:00+00:00',
        StatusUpdateDateTime: '2026-11-22T03:00:00+00:00',
      },
      Risk: {},
      Links: { Self: 'https://rs.example/open-banking/v3.1/aisp/account-access-consents/c-1' },
      Meta: {},
    };
    const env = { ...BANK, access_token: 'old', auth_code: 'old' };
    const headers = { ...json, 'x-fapi-interaction-id': SENT_ID };
    const ok = run(test, { env, response: { code: 201, headers, body } });
    expect(ok.failed()).toEqual([]);
    expect(ok.env.get('consent_id')).toBe('c-1');
    expect(ok.env.get('access_token')).toBe('');
    expect(ok.env.get('auth_code')).toBe('');
    expect(
      run(test, { env, response: { code: 201, headers, body: { ...body, Data: { ...body.Data, Status: 'Authorised' } } } }).failed(),
    ).toEqual(['consent is AwaitingAuthorisation']);
    expect(
      run(test, {
        env,
        response: { code: 201, headers, body: { ...body, Data: { ...body.Data, Permissions: ['ReadBalances'] } } },
      }).failed(),
    ).toEqual(['consent has the requested permissions']);
  });

  it('code exchange: stores the access token, forgets the code; fails an id_token for another consent', () => {
    const test = script('code-exchange: POST token', 'test');
    const env = { ...BANK, consent_id: 'c-1', nonce: 'n-1', auth_code: 'code-1', bank_jwks: BANK_JWKS };
    const idToken = (claims: Record<string, unknown>) =>
      signPs256({ alg: 'PS256', kid: 'k1' }, { iss: BANK.issuer, aud: 'client-1', nonce: 'n-1', openbanking_intent_id: 'c-1', ...claims });
    const issued = idToken({});
    const ok = run(test, {
      env,
      response: { code: 200, headers: json, body: { access_token: 'at-1', token_type: 'Bearer', expires_in: 300, id_token: issued } },
    });
    expect(ok.failed()).toEqual([]);
    expect(ok.passed()).toContain('token id_token signature verifies with the jwks_uri key named by kid (OIDC Core §3.1.3.7 item 6)');
    expect(ok.env.get('token_id_token')).toBe(issued);
    const [header, , signature] = issued.split('.');
    const tampered = `${header}.${b64url({ iss: BANK.issuer, aud: 'client-1', nonce: 'n-1', openbanking_intent_id: 'c-1', extra: 1 })}.${signature}`;
    expect(
      run(test, {
        env,
        response: { code: 200, headers: json, body: { access_token: 'at-1', token_type: 'Bearer', id_token: tampered } },
      }).failed(),
    ).toEqual(['token id_token signature verifies with the jwks_uri key named by kid (OIDC Core §3.1.3.7 item 6)']);
    expect(ok.env.get('access_token')).toBe('at-1');
    expect(ok.env.get('auth_code')).toBe('');
    expect(
      run(test, {
        env,
        response: {
          code: 200,
          headers: json,
          body: { access_token: 'at-1', token_type: 'Bearer', id_token: idToken({ openbanking_intent_id: 'c-2' }) },
        },
      }).failed(),
    ).toEqual(['id_token names the consent, the client and our nonce']);
    expect(run(test, { env, response: { code: 400, headers: json, body: { error: 'invalid_grant' } } }).failed()).toContain(
      'status is 200',
    );
  });

  // Each claim the code exchange's id_token check compares is held by its own case (with one of the
  // three lines removed from code-exchange.test.js, its case passes and this test fails).
  it.each([
    ['iss', { iss: 'https://other-issuer.example' }],
    ['aud', { aud: 'another-client' }],
    ['aud (an array without our client)', { aud: ['another-client', 'third-client'] }],
    ['nonce', { nonce: 'n-other' }],
    ['nonce (absent)', { nonce: undefined }],
  ] as const)('code exchange: fails a token id_token with another %s', (_claim, claims) => {
    const test = script('code-exchange: POST token', 'test');
    const env = { ...BANK, consent_id: 'c-1', nonce: 'n-1', auth_code: 'code-1', bank_jwks: BANK_JWKS };
    const payload: Record<string, unknown> = { iss: BANK.issuer, aud: 'client-1', nonce: 'n-1', openbanking_intent_id: 'c-1', ...claims };
    for (const [name, value] of Object.entries(claims)) if (value === undefined) delete payload[name];
    const idToken = signPs256({ alg: 'PS256', kid: 'k1' }, payload);
    const result = run(test, {
      env,
      response: { code: 200, headers: json, body: { access_token: 'at-1', token_type: 'Bearer', expires_in: 300, id_token: idToken } },
    });
    expect(result.failed()).toEqual(['id_token names the consent, the client and our nonce']);
  });

  it('accounts: stores the ids, fails duplicates or none', () => {
    const test = script('accounts: GET /accounts', 'test');
    const env = { ...BANK, interim_balances: '{"old":{}}' };
    const headers = { ...json, 'x-fapi-interaction-id': SENT_ID };
    const account = (id: string) => ({ AccountId: id, Currency: 'GBP', AccountType: 'Personal', AccountSubType: 'CurrentAccount' });
    const body = (ids: string[]) => ({
      Data: { Account: ids.map(account) },
      Links: { Self: 'https://rs.example/open-banking/v3.1/aisp/accounts' },
      Meta: {},
    });
    const ok = run(test, { env, response: { code: 200, headers, body: body(['a', 'b']) } });
    expect(ok.failed()).toEqual([]);
    expect(ok.env.get('account_ids')).toBe('["a","b"]');
    expect(ok.env.get('interim_balances')).toBe('');
    expect(run(test, { env, response: { code: 200, headers, body: body(['a', 'a']) } }).failed()).toEqual(['AccountIds are unique']);
    expect(run(test, { env, response: { code: 200, headers, body: body([]) } }).failed()).toEqual(['at least one account']);
  });
});
