// The emulator's request log in verbose mode: one line per request plus masked bodies, and no secret of a whole flow
// (client secret, tokens, code, ID token, state, nonce, software statement, Basic credentials, PKCE verifier, the PSU's
// password) anywhere in it.

import { createHash, randomUUID } from 'node:crypto';
import { connect } from 'node:tls';

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import { userByUsername } from '../../src/sandbox/data/users.js';
import { SandboxTpp, useTestSandbox } from '../helpers/sandbox-client.js';

let tpp: SandboxTpp;
let interactive: SandboxTpp;

const sandbox = useTestSandbox({ verbose: true });

beforeAll(async () => {
  tpp = new SandboxTpp(sandbox.urls, sandbox.identity, 'permissive-headless');
  interactive = new SandboxTpp(sandbox.urls, sandbox.identity, 'permissive-interactive');
});

afterAll(async () => {
  await tpp?.close();
  await interactive?.close();
});

describe('verbose request log', () => {
  it('shows bodies with every secret masked', async () => {
    const client = await tpp.register();
    const flow = await tpp.headlessFlow({ responseType: 'code id_token' });
    const helper = await tpp.fetch('GET', `${sandbox.urls.environment_helper}?client_id=${client.client_id}`);
    expect(helper.status).toBe(200);

    const requestLines = sandbox.log.filter((line) => !line.startsWith('  '));
    // register, client_credentials, consent, authorise, code exchange, helper: one line each.
    expect(requestLines).toHaveLength(6);
    for (const line of requestLines)
      expect(line).toMatch(/^(auth|resource) (GET|POST) \/\S* \d{3} \d+\.\dms client=\S+ interaction=[0-9A-Za-z-]+$/);
    expect(sandbox.log.some((line) => line.startsWith('  > ') || line.startsWith('  < '))).toBe(true);

    const text = sandbox.log.join('\n');
    const code = flow.authorize.params.get('code') ?? '';
    const secrets = [
      client.client_secret,
      Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64'),
      flow.accessToken,
      flow.refreshToken ?? '',
      flow.idToken ?? '',
      flow.authorize.params.get('id_token') ?? '',
      code,
      flow.authorize.state ?? '',
      flow.authorize.nonce ?? '',
      sandbox.identity.softwareStatement,
    ];
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(8);
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('[redacted]');
  });

  it('masks the PKCE code_verifier of a code exchange and the password of an interactive login', async () => {
    const from = sandbox.log.length;
    await tpp.register();
    const verifier = `${randomUUID()}-${randomUUID()}`;
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const authorize = await tpp.authorize({
      consentId: await tpp.createConsent(),
      responseType: 'code',
      objectClaims: { code_challenge: challenge, code_challenge_method: 'S256' },
    });
    const code = authorize.params.get('code') ?? '';
    const exchanged = await tpp.token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: authorize.redirectUri ?? '',
      code_verifier: verifier,
    });
    expect(exchanged.status).toBe(200);

    await interactive.register();
    const jo = userByUsername('jo');
    const password = jo?.password ?? '';
    const consented = await interactive.authorizeInteractive(
      { consentId: await interactive.createConsent(), responseType: 'code' },
      { username: 'jo', password },
    );
    expect(consented.status).toBe(303);
    expect(consented.params.get('code')).not.toBeNull();

    const lines = sandbox.log.slice(from);
    // The token request's body and the login form's body are in the log, masked.
    expect(lines.some((line) => line.startsWith('  > ') && line.includes('code_verifier=[redacted]'))).toBe(true);
    expect(lines.some((line) => line.startsWith('  > ') && line.includes('username=jo') && line.includes('password=[redacted]'))).toBe(
      true,
    );
    const text = lines.join('\n');
    for (const secret of [
      verifier,
      password,
      code,
      consented.params.get('code') ?? '',
      exchanged.json<{ access_token: string }>().access_token,
    ]) {
      expect(secret.length).toBeGreaterThan(8);
      expect(text).not.toContain(secret);
    }
  });

  it('a form post the browser abandons mid-body is logged as aborted, not treated as an emulator failure', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning.message);
    };
    process.on('warning', onWarning);
    try {
      if (!interactive.client) await interactive.register();
      const built = await interactive.authorizeUrl({ consentId: await interactive.createConsent(), responseType: 'code' });
      const start = await interactive.fetch('GET', built.url);
      const page = String(start.headers.location);
      const cookie = String(start.headers['set-cookie']).split(';')[0] ?? '';
      const login = new URL(`${page}/login`);
      const { pem } = sandbox.identity;
      // Headers and part of the body, then the connection goes away (a browser closed during the post).
      await new Promise<void>((resolve, reject) => {
        const socket = connect(
          {
            host: login.hostname,
            port: Number(login.port),
            ca: [pem.rootCa, pem.issuingCa],
            cert: pem.transportCert,
            key: pem.transportKey,
          },
          () => {
            socket.write(
              `POST ${login.pathname} HTTP/1.1\r\nHost: ${login.host}\r\nCookie: ${cookie}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nusername=al`,
              () => {
                socket.destroy();
                resolve();
              },
            );
          },
        );
        socket.once('error', reject);
      });
      await vi.waitFor(() => expect(sandbox.log.some((line) => line.startsWith(`auth POST ${login.pathname} aborted `))).toBe(true), {
        timeout: 10_000,
      });
      expect(sandbox.log.some((line) => line.startsWith(`auth POST ${login.pathname} 500`))).toBe(false);
      expect(warnings.filter((message) => message.includes('obflow sandbox'))).toEqual([]);
      // The journey itself is unharmed: the PSU can log in and confirm on the same interaction.
      const loggedIn = await interactive.fetch('POST', login.toString(), {
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: 'username=alex&password=alex-sandbox-1',
      });
      expect(loggedIn.status).toBe(303);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
