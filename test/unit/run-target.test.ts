// The sandbox target refuses a PSU who is not one of its test users (alex, sam, jo) when it is resolved — before any
// request, whatever the consent mode (pure, no sockets).

import { describe, expect, it } from 'vitest';

import { configSchema } from '../../src/config/schema.js';
import { isObflowError } from '../../src/errors.js';
import { sandboxPsuUser, sandboxTarget, type SandboxAddresses } from '../../src/pipeline/target.js';

const urls = { auth_url: 'https://127.0.0.1:2/strict-headless', token_url: 'https://127.0.0.1:2/strict-headless/token', discovery_url: 'https://127.0.0.1:2/strict-headless/.well-known/openid-configuration', authorization_endpoint: 'https://127.0.0.1:2/strict-headless/authorize' };
const addresses: SandboxAddresses = {
  sandbox_base_url: 'https://127.0.0.1:1',
  registration_endpoint: 'https://127.0.0.1:1/dynamic-client-registration/v3.2/register',
  environment_helper: 'https://127.0.0.1:1/sandbox-helper/v1.0/postman/environment',
  aisp_base_url: 'https://127.0.0.1:1/open-banking/v3.1/aisp',
  profiles: { 'strict-headless': urls },
};

describe('sandbox PSU user', () => {
  it.each(['alex', 'sam', 'jo', undefined])('accepts %s (undefined → alex)', (psuUser) => {
    const config = configSchema.parse(psuUser === undefined ? {} : { flow: { psuUser } });
    expect(sandboxPsuUser(config).username).toBe(psuUser ?? 'alex');
    expect(sandboxTarget(config, addresses, []).consent).toBe('headless');
  });

  it.each(['nobody', 'toString', 'Alex'])('refuses %s with ERR_CONFIG_INVALID naming flow.psuUser, headless too', (psuUser) => {
    const config = configSchema.parse({ flow: { psuUser, consent: 'headless' } });
    let error: unknown;
    try {
      sandboxTarget(config, addresses, []);
    } catch (caught) {
      error = caught;
    }
    expect(isObflowError(error) && error.code).toBe('ERR_CONFIG_INVALID');
    expect(String((error as Error).message)).toContain('flow.psuUser');
  });
});
