// obflow's registration is the source of truth for its own client: against the emulator's plain
// helper (`/plain-helper/…`, which names the client `client_id`/`client_secret`/`redirect_uri` and has no basicToken),
// the merged environment still carries _clientId, basicToken and redirectUrl from the stored registration, and the
// whole flow is green. A variable the flow needs that is still empty after the merge is ERR_ENVIRONMENT_INCOMPLETE.

import { describe, expect, it } from 'vitest';

import { buildObflowEnvironment, environmentValue } from '../../src/environment/index.js';
import { isObflowError } from '../../src/errors.js';
import { checkEnvironmentComplete } from '../../src/pipeline/client-values.js';
import { openTargetSession } from '../../src/pipeline/session.js';
import { environmentStage } from '../../src/pipeline/environment.js';
import { registerStage } from '../../src/pipeline/register.js';
import { runStage } from '../../src/pipeline/run.js';
import { bankTarget } from '../../src/pipeline/target.js';
import type { StoredRegistration } from '../../src/registration/index.js';
import { describeRun, useEmulatorAsBank } from './pipeline-helpers.js';

const bank = useEmulatorAsBank('obflow-merge-');

describe('a helper that names the client differently', () => {
  it('still yields a green run: the client id, Basic credentials and redirect URI come from the registration', async () => {
    const { sandbox, identity } = bank;
    const config = bank.config({ environment_helper_path: '/plain-helper/v1.0/postman/environment' });
    const session = await openTargetSession(config, await bankTarget(config), identity.paths);
    try {
      const registered = await registerStage(session, { force: true });
      if (registered.kind === 'dry-run') throw new TypeError('not a dry run');
      const { environment } = await environmentStage(session, registered.registration);
      expect(sandbox.log.some((line) => line.includes('/plain-helper/v1.0/postman/environment'))).toBe(true);
      // The helper's own names are there, and obflow's names are filled from the registration.
      expect(environmentValue(environment, 'client_id')).toBe(registered.registration.client_id);
      expect(environmentValue(environment, '_clientId')).toBe(registered.registration.client_id);
      expect(environmentValue(environment, 'basicToken')).toBe(
        Buffer.from(`${registered.registration.client_id}:${registered.registration.client_secret ?? ''}`).toString('base64'),
      );
      expect(environmentValue(environment, 'redirectUrl')).toBe(identity.manifest.redirect_uris[0]);
      const result = await runStage(session, { environment, reporters: ['junit'] });
      expect(result.passed, describeRun(result)).toBe(true);
    } finally {
      await session.close();
    }
  });
});

describe('checkEnvironmentComplete', () => {
  const registration = (method: StoredRegistration['token_endpoint_auth_method'], alg: 'none' | 'PS256' = 'none'): StoredRegistration => ({
    version: 1,
    software_id: 's',
    target: 'bank',
    profile: 'sandbox',
    auth_url: 'https://bank.example',
    registration_endpoint: 'https://bank.example/register',
    registered_at: '2026-11-25T00:00:00.000Z',
    client_id: 'c',
    ...(method === undefined ? {} : { token_endpoint_auth_method: method }),
    request_object_signing_alg: alg,
    metadata: { client_id: 'c' },
  });
  const complete = {
    rs: 'https://rs.example',
    issuer: 'https://bank.example',
    authEndpoint: 'https://bank.example/authorize',
    tokenEndpoint: 'https://bank.example/token',
    _clientId: 'c',
    redirectUrl: 'https://tpp.example/cb',
  };
  const codeAndMessage = (run: () => void): [string | undefined, string] => {
    try {
      run();
    } catch (error) {
      return [isObflowError(error) ? error.code : undefined, (error as Error).message];
    }
    return [undefined, ''];
  };
  const env = (overrides: Record<string, string>) =>
    buildObflowEnvironment({ name: 't', bank: { values: [] }, overrides: { ...complete, ...overrides } });

  it('names each variable the method needs that is still empty', () => {
    expect(codeAndMessage(() => checkEnvironmentComplete(env({}), registration(undefined)))).toEqual([
      'ERR_ENVIRONMENT_INCOMPLETE',
      expect.stringContaining('basicToken') as unknown as string,
    ]);
    expect(codeAndMessage(() => checkEnvironmentComplete(env({ redirectUrl: '' }), registration('tls_client_auth')))[1]).toMatch(
      /redirectUrl/,
    );
    expect(codeAndMessage(() => checkEnvironmentComplete(env({}), registration('private_key_jwt')))[1]).toMatch(/signing_key, signing_kid/);
    expect(codeAndMessage(() => checkEnvironmentComplete(env({}), registration('tls_client_auth', 'PS256')))[1]).toMatch(/signing_key/);
  });

  it('passes when the method has what it needs (tls_client_auth: no secret at all)', () => {
    expect(codeAndMessage(() => checkEnvironmentComplete(env({}), registration('tls_client_auth')))).toEqual([undefined, '']);
    expect(codeAndMessage(() => checkEnvironmentComplete(env({ basicToken: 'Yzpz' }), registration('client_secret_basic')))).toEqual([
      undefined,
      '',
    ]);
  });
});
