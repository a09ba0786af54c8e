// The psu-consent scripts, run as rendered in a vm with the pm double (test/helpers/script-double.ts): the consent URL
// (pre-request), the redirect (test), and JARM's response JWT verified before the code is taken. Wrong state, bad hashes
// and broken signatures fail.

import { constants, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildCollections, FLOW_FILE_NAME } from '../../src/generate/collections.js';
import { loadTemplates } from '../../src/generate/templates.js';
import type { PmItem, FakeResponse } from '../helpers/script-double.js';
import { script, run, b64url, halfHash, bankKey, bankJwk, BANK_JWKS, signPs256, BANK } from '../helpers/script-double.js';

describe('psu-consent pre-request: the consent URL', () => {
  const pre = script('psu-consent: GET authorization endpoint', 'prerequest');

  it('carries the parameters and an unsigned request object asking for the consent as an essential intent id', () => {
    const now = Date.UTC(2026, 10, 22, 3, 0, 0);
    const result = run(pre, { env: { ...BANK, consent_id: 'consent-42', psu_login_hint: 'alice' }, now });
    const consentUrl = result.env.get('consent_url') ?? '';
    expect(consentUrl.startsWith(`${BANK.authEndpoint}?`)).toBe(true);
    const params = new URL(consentUrl).searchParams;
    expect([...params.keys()]).toEqual(['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'nonce', 'login_hint', 'request']);
    expect(params.get('response_type')).toBe('code id_token');
    expect(params.get('scope')).toBe('openid accounts');
    expect(params.get('state')).toBe(result.env.get('state'));
    expect(params.get('nonce')).toBe(result.env.get('nonce'));
    const [header, payload, signature] = (params.get('request') ?? '').split('.');
    expect(JSON.parse(Buffer.from(header ?? '', 'base64url').toString())).toEqual({ alg: 'none', typ: 'JWT' });
    expect(signature).toBe('');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown> & {
      claims: Record<string, Record<string, unknown>>;
    };
    expect(claims).toMatchObject({
      iss: 'client-1',
      aud: BANK.issuer,
      client_id: 'client-1',
      redirect_uri: BANK.redirectUrl,
      response_type: 'code id_token',
      scope: 'openid accounts',
      state: params.get('state'),
      nonce: params.get('nonce'),
    });
    expect(claims.iat).toBe(now / 1000);
    expect((claims.exp as number) - (claims.iat as number)).toBeGreaterThan(0);
    expect((claims.exp as number) - (claims.iat as number)).toBeLessThanOrEqual(3600);
    // FAPI 1 Advanced Part 2 §5.2.2-17 (nbf present, not in the past) and -13 (exp at most 60 minutes after nbf).
    expect(claims.nbf).toBe(now / 1000);
    expect((claims.exp as number) - (claims.nbf as number)).toBeGreaterThan(0);
    expect((claims.exp as number) - (claims.nbf as number)).toBeLessThanOrEqual(3600);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    expect(claims.claims.id_token?.openbanking_intent_id).toEqual({ value: 'consent-42', essential: true });
    expect(claims.claims.userinfo?.openbanking_intent_id).toEqual({ value: 'consent-42', essential: true });
    expect(claims.claims.id_token?.acr).toMatchObject({ essential: true });
    // A strict bank reads only the request object (FAPI 1 Advanced §5.2.2-10): login_hint is in it too.
    expect(claims.login_hint).toBe('alice');
  });

  it('interactive: the browser gets its own consent URL, same state and nonce, a fresh request-object jti', () => {
    const claimsOf = (url: string) =>
      JSON.parse(Buffer.from((new URL(url).searchParams.get('request') ?? '').split('.')[1] ?? '', 'base64url').toString()) as Record<
        string,
        unknown
      >;
    const headless = run(pre, { env: { ...BANK, consent_id: 'c' } });
    expect(headless.env.get('psu_consent_url')).toBe('');
    const result = run(pre, { env: { ...BANK, consent_id: 'c', consent_mode: 'interactive' } });
    const probe = result.env.get('consent_url') ?? '';
    const browser = result.env.get('psu_consent_url') ?? '';
    expect(browser).not.toBe(probe);
    const { jti: probeJti, ...probeRest } = claimsOf(probe);
    const { jti: browserJti, ...browserRest } = claimsOf(browser);
    expect(browserJti).not.toBe(probeJti);
    expect(browserRest).toEqual(probeRest);
    for (const key of ['state', 'nonce', 'client_id', 'redirect_uri'])
      expect(new URL(browser).searchParams.get(key)).toBe(new URL(probe).searchParams.get(key));
  });

  it('leaves login_hint out when psu_login_hint is empty', () => {
    const result = run(pre, { env: { ...BANK, consent_id: 'c' } });
    expect(new URL(result.env.get('consent_url') ?? '').searchParams.has('login_hint')).toBe(false);
    const request = new URL(result.env.get('consent_url') ?? '').searchParams.get('request') ?? '';
    expect(JSON.parse(Buffer.from(request.split('.')[1] ?? '', 'base64url').toString())).not.toHaveProperty('login_hint');
  });
});

describe('psu-consent test: the redirect', () => {
  const test = script('psu-consent: GET authorization endpoint', 'test');
  const env = { ...BANK, consent_id: 'consent-42', state: 'state-1', nonce: 'nonce-1', bank_jwks: BANK_JWKS };
  const idToken = (overrides: Record<string, unknown> = {}, code = 'code-1', state = 'state-1'): string =>
    signPs256(
      { alg: 'PS256', kid: 'k1' },
      {
        iss: BANK.issuer,
        aud: 'client-1',
        sub: 'consent-42',
        nonce: 'nonce-1',
        openbanking_intent_id: 'consent-42',
        c_hash: halfHash(code),
        s_hash: halfHash(state),
        exp: Math.floor(Date.now() / 1000) + 300,
        ...overrides,
      },
    );
  const redirect = (fragment: Record<string, string>): FakeResponse => ({
    code: 302,
    headers: { Location: `${BANK.redirectUrl}#${new URLSearchParams(fragment).toString()}` },
  });

  it('passes a correct code id_token redirect and stores code and id_token', () => {
    const token = idToken();
    const result = run(test, { env, response: redirect({ code: 'code-1', id_token: token, state: 'state-1' }) });
    expect(result.failed()).toEqual([]);
    expect(result.passed().length).toBeGreaterThanOrEqual(10);
    expect(result.env.get('auth_code')).toBe('code-1');
    expect(result.env.get('id_token')).toBe(token);
  });

  it('fails on a changed state, a wrong c_hash or s_hash, another intent id, another nonce', () => {
    expect(
      run(test, { env, response: redirect({ code: 'code-1', id_token: idToken({}, 'code-1', 'other'), state: 'other' }) }).failed(),
    ).toEqual(['state comes back unchanged']);
    expect(
      run(test, {
        env,
        response: redirect({ code: 'code-1', id_token: idToken({ c_hash: halfHash('code-2') }), state: 'state-1' }),
      }).failed(),
    ).toEqual(['id_token c_hash matches the code']);
    expect(
      run(test, { env, response: redirect({ code: 'code-1', id_token: idToken({ s_hash: halfHash('x') }), state: 'state-1' }) }).failed(),
    ).toEqual(['id_token s_hash matches the state']);
    expect(
      run(test, {
        env,
        response: redirect({ code: 'code-1', id_token: idToken({ openbanking_intent_id: 'consent-7' }), state: 'state-1' }),
      }).failed(),
    ).toEqual(['id_token openbanking_intent_id is the consent id']);
    expect(
      run(test, { env, response: redirect({ code: 'code-1', id_token: idToken({ nonce: 'n2' }), state: 'state-1' }) }).failed(),
    ).toEqual(['id_token iss, aud and nonce are right']);
  });

  it('verifies the id_token signature (RSA-PSS in plain JS): a changed claim, another key, an unknown kid fail', () => {
    const signatureTest =
      'id_token signature verifies with the jwks_uri key named by kid (OIDC Core §3.1.3.7 item 6, FAPI 1 Advanced §5.2.2.1)';
    // One exp, read from the clock once: the other token's differs from it by a second whatever the clock does
    // meanwhile (two reads of the clock a tick apart made the two tokens' claims the same, and the test fail).
    const exp = Math.floor(Date.now() / 1000) + 300;
    const good = idToken({ exp });
    expect(run(test, { env, response: redirect({ code: 'code-1', id_token: good, state: 'state-1' }) }).passed()).toContain(signatureTest);
    // The claims of another token under this token's signature: every claim check passes, only the signature fails.
    const [header, , signature] = good.split('.');
    const otherClaims = idToken({ exp: exp - 1 }).split('.')[1];
    expect(otherClaims).not.toBe(good.split('.')[1]);
    const swapped = run(test, {
      env,
      response: redirect({ code: 'code-1', id_token: `${header}.${otherClaims}.${signature}`, state: 'state-1' }),
    });
    expect(swapped.failed()).toEqual([signatureTest]);
    expect(swapped.tests.find((t) => t.name === signatureTest)?.error).toMatch(
      /the signature does not verify with kid k1 \(it signs other bytes/,
    );
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
    const foreign = run(test, {
      env: { ...env, bank_jwks: JSON.stringify([{ kid: 'k1', n: otherKey.n, e: otherKey.e }]) },
      response: redirect({ code: 'code-1', id_token: good, state: 'state-1' }),
    });
    expect(foreign.failed()).toEqual([signatureTest]);
    const unknownKid = run(test, {
      env: { ...env, bank_jwks: JSON.stringify([{ kid: 'k2', n: bankJwk.n, e: bankJwk.e }]) },
      response: redirect({ code: 'code-1', id_token: good, state: 'state-1' }),
    });
    expect(unknownKid.tests.find((t) => t.name === signatureTest)?.error).toMatch(/jwks_uri has no key with kid k1/);
  });

  // One fault per rule the collection checks as obflow's id-token step does (test/unit/run-id-token.test.ts): the
  // collection groups iss, aud and nonce in one test; it has no iat or acr test (obflow's step checks those).
  it.each([
    ['iss of another issuer', { iss: 'https://evil.example' }, 'id_token iss, aud and nonce are right'],
    ['aud of another client', { aud: 'client-2' }, 'id_token iss, aud and nonce are right'],
    ['exp in the past', { exp: Math.floor(Date.now() / 1000) - 10 }, 'id_token is not expired'],
  ] as const)('%s fails its test only', (_name, claims, failing) => {
    expect(run(test, { env, response: redirect({ code: 'code-1', id_token: idToken(claims), state: 'state-1' }) }).failed()).toEqual([
      failing,
    ]);
  });

  const SIGNATURE_TEST =
    'id_token signature verifies with the jwks_uri key named by kid (OIDC Core §3.1.3.7 item 6, FAPI 1 Advanced §5.2.2.1)';
  const claimsOf = (jwt: string): Record<string, unknown> =>
    JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;

  it('alg RS256 (same key) and alg none fail the alg test and the signature test', () => {
    const claims = claimsOf(idToken());
    const input = `${b64url({ alg: 'RS256', kid: 'k1' })}.${b64url(claims)}`;
    const rs256 = `${input}.${sign('sha256', Buffer.from(input), bankKey.privateKey).toString('base64url')}`;
    const none = `${b64url({ alg: 'none', kid: 'k1' })}.${b64url(claims)}.`;
    for (const jwt of [rs256, none]) {
      const result = run(test, { env, response: redirect({ code: 'code-1', id_token: jwt, state: 'state-1' }) });
      expect(result.failed()).toEqual(['id_token is PS256 (registered id_token_signed_response_alg)', SIGNATURE_TEST]);
    }
  });

  it('a token without kid: verified with the only key of the set, refused when the set has two (OIDC Core §10.1.1)', () => {
    const claims = claimsOf(idToken());
    const withoutKid = signPs256({ alg: 'PS256' }, claims);
    expect(run(test, { env, response: redirect({ code: 'code-1', id_token: withoutKid, state: 'state-1' }) }).failed()).toEqual([]);
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' });
    const twoKeys = JSON.stringify([{ kid: 'k0', n: otherKey.n, e: otherKey.e }, ...(JSON.parse(BANK_JWKS) as unknown[])]);
    const refused = run(test, {
      env: { ...env, bank_jwks: twoKeys },
      response: redirect({ code: 'code-1', id_token: withoutKid, state: 'state-1' }),
    });
    expect(refused.failed()).toEqual([SIGNATURE_TEST]);
    expect(refused.tests.find((t) => t.name === SIGNATURE_TEST)?.error).toMatch(/has no kid, and jwks_uri has 2 keys/);
  });

  it('an RSA key under 2048 bits is refused, however well it signs (RFC 7518 §3.5)', () => {
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const smallJwk = small.publicKey.export({ format: 'jwk' });
    const input = `${b64url({ alg: 'PS256', kid: 'k1' })}.${b64url(claimsOf(idToken()))}`;
    const signature = sign('sha256', Buffer.from(input), {
      key: small.privateKey,
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: 32,
    });
    const result = run(test, {
      env: { ...env, bank_jwks: JSON.stringify([{ kid: 'k1', n: smallJwk.n, e: smallJwk.e }]) },
      response: redirect({ code: 'code-1', id_token: `${input}.${signature.toString('base64url')}`, state: 'state-1' }),
    });
    expect(result.failed()).toEqual([SIGNATURE_TEST]);
    expect(result.tests.find((t) => t.name === SIGNATURE_TEST)?.error).toMatch(/1024 bits, fewer than 2048/);
  });

  it('fails on an error redirect and on a redirect elsewhere', () => {
    const denied = run(test, { env, response: redirect({ error: 'access_denied', state: 'state-1' }) });
    expect(denied.failed()).toContain('no error in the redirect');
    const elsewhere = run(test, {
      env,
      response: { code: 302, headers: { Location: `https://evil.example/cb#code=code-1&state=state-1&id_token=${idToken()}` } },
    });
    expect(elsewhere.failed()).toEqual(['redirect is the registered redirect URI']);
  });

  it('reads code from the query for response_type code (no id_token expected)', () => {
    const result = run(test, {
      env: { ...env, response_type: 'code' },
      response: { code: 302, headers: { Location: `${BANK.redirectUrl}?code=code-9&state=state-1` } },
    });
    expect(result.failed()).toEqual([]);
    expect(result.env.get('auth_code')).toBe('code-9');
    // …and the fragment is not where it looks:
    expect(
      run(test, { env: { ...env, response_type: 'code' }, response: redirect({ code: 'code-9', state: 'state-1' }) }).failed(),
    ).toContain('state comes back unchanged');
  });

  it('interactive mode: passes on the way to the login page, fails when it lands on the redirect URI', () => {
    const interactive = { ...env, consent_mode: 'interactive' };
    expect(
      run(test, { env: interactive, response: { code: 303, headers: { Location: 'https://auth.example:9443/interaction/abc' } } }).failed(),
    ).toEqual([]);
    expect(run(test, { env: interactive, response: redirect({ code: 'code-1', state: 'state-1', id_token: idToken() }) }).failed()).toEqual(
      ['interactive consent does not land on the redirect URI'],
    );
  });
});

// JARM (flow.jarm) — the response JWT's checks, each held by its own case.
describe('psu-consent with JARM: the response JWT is verified before the code is taken', () => {
  const jarmFlow = JSON.parse(
    buildCollections({ templates: loadTemplates(), jarm: true }).find((f) => f.fileName === FLOW_FILE_NAME)?.json ?? '{}',
  ) as { item: PmItem[] };
  const jarmItems = jarmFlow.item.flatMap((folder) => folder.item ?? []);
  const test =
    jarmItems
      .find((i) => i.name === 'psu-consent: GET authorization endpoint')
      ?.event?.find((e) => e.listen === 'test')
      ?.script.exec.join('\n') ?? '';
  const env = { ...BANK, response_type: 'code', state: 's-1', nonce: 'n-1', bank_jwks: BANK_JWKS };
  const good = { iss: BANK.issuer, aud: 'client-1', exp: Math.floor(Date.now() / 1000) + 300, state: 's-1', code: 'code-1' };
  const answer = (jwt: string) => ({ code: 303, headers: { Location: `${BANK.redirectUrl}?response=${jwt}` } });

  it('a good response: every check passes and auth_code is the JWT’s code', () => {
    const result = run(test, { env, response: answer(signPs256({ alg: 'PS256', kid: 'k1' }, good)) });
    expect(result.failed()).toEqual([]);
    expect(result.passed()).toContain('the response JWT signature verifies with the jwks_uri key named by kid (JARM §2.4 item 3)');
    expect(result.env.get('auth_code')).toBe('code-1');
  });

  it.each([
    ['iss', { iss: 'https://other.example' }, 'the response JWT iss is the issuer (JARM §2.4 item 1)'],
    ['aud', { aud: 'another-client' }, 'the response JWT aud is the client id (JARM §2.4 item 2)'],
    ['exp', { exp: Math.floor(Date.now() / 1000) - 3600 }, 'the response JWT has not expired (JARM §2.4 item 4)'],
    ['state', { state: 's-other' }, 'no error in the response JWT; state comes back unchanged; code is present'],
  ] as const)('another %s fails its own check', (_name, claims, check) => {
    expect(run(test, { env, response: answer(signPs256({ alg: 'PS256', kid: 'k1' }, { ...good, ...claims })) }).failed()).toEqual([check]);
  });

  it('a signature that does not verify fails the signature check', () => {
    const jwt = signPs256({ alg: 'PS256', kid: 'k1' }, good);
    const forged = `${jwt.split('.').slice(0, 2).join('.')}.${Buffer.from('x'.repeat(256)).toString('base64url')}`;
    expect(run(test, { env, response: answer(forged) }).failed()).toEqual([
      'the response JWT signature verifies with the jwks_uri key named by kid (JARM §2.4 item 3)',
    ]);
  });

  it('discovery: a provider without response_mode jwt fails the JARM offer check', () => {
    const discovery =
      jarmItems
        .find((i) => i.name === 'discovery: GET openid-configuration')
        ?.event?.find((e) => e.listen === 'test')
        ?.script.exec.join('\n') ?? '';
    const body = (modes: string[]) => ({ issuer: BANK.issuer, response_modes_supported: modes });
    const check = 'offers JARM (response_modes_supported includes jwt; flow.jarm)';
    const headers = { 'Content-Type': 'application/json' };
    expect(run(discovery, { env, response: { code: 200, headers, body: body(['query', 'fragment']) } }).failed()).toContain(check);
    expect(run(discovery, { env, response: { code: 200, headers, body: body(['query', 'jwt']) } }).failed()).not.toContain(check);
  });

  it('code id_token with a JARM collection: one failing check naming flow.jarm', () => {
    expect(run(test, { env: { ...env, response_type: 'code id_token' }, response: answer('x') }).failed()).toEqual([
      'response_type is code (flow.jarm collections ask JARM for code only)',
    ]);
  });
});
