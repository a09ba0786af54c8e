// DCR v3.2 GET / PUT / DELETE /register/{ClientId} over real mutual TLS, in every profile: only a client_credentials
// token of that client, presented over the certificate it was issued to, manages the registration (RFC 8705 §3).
// Another TPP's certificate with the right token, another client's token and an authorization-code token are refused,
// and the refusal neither shows the client_secret nor removes the client.

import { beforeAll, describe, expect, it } from 'vitest';

import { PROFILE_NAMES } from '../../src/sandbox/contracts.js';
import type { ProfileName } from '../../src/sandbox/contracts.js';
import { userByUsername } from '../../src/sandbox/data/users.js';
import { getTestIdentity } from '../helpers/identity.js';
import type { TestIdentity } from '../helpers/identity.js';
import { SandboxTpp, useTestSandbox } from '../helpers/sandbox-client.js';
import type { WireResponse } from '../helpers/sandbox-client.js';

let identity: TestIdentity;
let other: TestIdentity;

const sandbox = useTestSandbox();

beforeAll(async () => {
  [identity, other] = await Promise.all([getTestIdentity(), getTestIdentity('second-tpp')]);
});

async function registered(profile: ProfileName): Promise<{ tpp: SandboxTpp; url: string; secret: string }> {
  const tpp = new SandboxTpp(sandbox.urls, identity, profile);
  sandbox.track(tpp);
  const client = await tpp.register();
  return { tpp, url: `${sandbox.urls.registration_endpoint}/${client.client_id}`, secret: client.client_secret };
}

const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` });

/** The refusal of DCR v3.2's 401Error: invalid_token with an RFC 6750 challenge, and nothing of the registration. */
function expectInvalidToken(response: WireResponse, secret: string): void {
  expect(response.status, response.text).toBe(401);
  expect(response.json()).toMatchObject({ error: 'invalid_token' });
  expect(String(response.headers['www-authenticate'])).toMatch(/^Bearer error="invalid_token"/);
  expect(response.text).not.toContain(secret);
}

/** The client still works: its own token over its own certificate reads it, and it still gets tokens. */
async function expectStillRegistered(tpp: SandboxTpp, url: string, secret: string): Promise<void> {
  const read = await tpp.fetch('GET', url, { headers: bearer(await tpp.clientCredentials()) });
  expect(read.status, read.text).toBe(200);
  expect(read.json()).toMatchObject({ client_secret: secret });
}

describe.each(PROFILE_NAMES)('%s: DCR management needs a client_credentials token of that client, bound to the certificate', (profile) => {
  it("refuses the client's own token over another TPP's certificate (GET shows no secret, DELETE removes nothing, PUT changes nothing)", async () => {
    const { tpp, url, secret } = await registered(profile);
    const token = await tpp.clientCredentials();
    const thief = tpp.withIdentity(other);
    sandbox.track(thief);

    expectInvalidToken(await thief.fetch('GET', url, { headers: bearer(token) }), secret);
    expectInvalidToken(await thief.fetch('DELETE', url, { headers: bearer(token) }), secret);
    const jwt = await tpp.signRegistration(tpp.registrationClaims({ redirect_uris: [identity.manifest.redirect_uris[1]] }));
    expectInvalidToken(
      await thief.fetch('PUT', url, { headers: { ...bearer(token), 'content-type': 'application/jwt' }, body: jwt }),
      secret,
    );

    await expectStillRegistered(tpp, url, secret);
    const read = await tpp.fetch('GET', url, { headers: bearer(token) });
    expect(read.json()).toMatchObject({ redirect_uris: identity.manifest.redirect_uris });
    const again = await tpp.token({ grant_type: 'client_credentials', scope: 'accounts' });
    expect(again.status).toBe(200);
  });

  it("refuses another client's token with 403 (even over that client's own certificate)", async () => {
    const { tpp, url, secret } = await registered(profile);
    const stranger = new SandboxTpp(sandbox.urls, identity, profile);
    sandbox.track(stranger);
    await stranger.register();
    const strangers = await stranger.clientCredentials();
    for (const method of ['GET', 'DELETE'] as const) {
      const refused = await stranger.fetch(method, url, { headers: bearer(strangers) });
      expect(refused.status, `${method} ${refused.text}`).toBe(403);
      expect(refused.text).not.toContain(secret);
    }
    await expectStillRegistered(tpp, url, secret);
  });

  it('refuses an authorization-code token of the same client, over its own certificate', async () => {
    const { tpp, url, secret } = await registered(profile);
    const consentId = await tpp.createConsent();
    const alex = userByUsername('alex');
    const result = profile.endsWith('headless')
      ? await tpp.authorize({ consentId })
      : await tpp.authorizeInteractive({ consentId }, { username: alex?.username ?? '', password: alex?.password ?? '' });
    const exchanged = await tpp.exchangeCode(result.params.get('code') ?? '', result.redirectUri);
    expect(exchanged.status, exchanged.text).toBe(200);
    const codeToken = exchanged.json<{ access_token: string }>().access_token;

    expectInvalidToken(await tpp.fetch('GET', url, { headers: bearer(codeToken) }), secret);
    expectInvalidToken(await tpp.fetch('DELETE', url, { headers: bearer(codeToken) }), secret);
    await expectStillRegistered(tpp, url, secret);
  });
});
