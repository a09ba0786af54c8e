// What the config asks against what the bank's discovery offers (src/pipeline/discovery-check.ts),
// and the requirement a discovery read records for the offline generate stage (flow.par "auto").

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { parseConfig } from '../../src/config/load.js';
import { discoveryMismatches } from '../../src/pipeline/discovery-check.js';
import { discoveryRecordPath, savedDiscoveryRequiresPar } from '../../src/pipeline/generate.js';
import { recordDiscovery } from '../../src/pipeline/par.js';
import { BANK_IDENTITY as IDENTITY } from '../helpers/config-fixtures.js';

const config = (flow: Record<string, unknown>, stateDir = '.obflow', authUrl = 'https://as.example') =>
  parseConfig(
    {
      target: 'bank',
      stateDir,
      flow,
      bank: { auth_url: authUrl, sandbox_base_url: 'https://rs.example', token_endpoint_auth_method: 'private_key_jwt' },
      identity: IDENTITY,
    },
    'test',
  );
const URL = 'https://as.example/.well-known/openid-configuration';
const BASE = {
  issuer: 'https://as.example',
  authorization_endpoint: 'https://as.example/auth',
  token_endpoint: 'https://as.example/token',
  pushed_authorization_request_endpoint: 'https://as.example/par',
};
const messages = (flow: Record<string, unknown>, discovery: Record<string, unknown>) =>
  discoveryMismatches(config(flow), { ...BASE, ...discovery }, URL).map((error) => `${error.code} ${error.message}`);

describe('discoveryMismatches (ERR_DISCOVERY_MISMATCH)', () => {
  it("JARM needs jwt in response_modes_supported (absent: OIDC Discovery's default, query and fragment)", () => {
    const jarm = { jarm: true, responseType: 'code' };
    expect(messages(jarm, { response_modes_supported: ['query', 'jwt'] })).toEqual([]);
    for (const discovery of [{ response_modes_supported: ['query', 'fragment'] }, {}]) {
      const [problem] = messages(jarm, discovery);
      expect(problem).toMatch(/^ERR_DISCOVERY_MISMATCH flow\.jarm .*response_modes_supported \[query, fragment\]/);
    }
    expect(messages({}, {})).toEqual([]);
  });

  it('PKCE with PAR needs S256 where code_challenge_methods_supported is published', () => {
    expect(messages({ par: 'always' }, { code_challenge_methods_supported: ['S256'] })).toEqual([]);
    expect(messages({ par: 'always' }, {})).toEqual([]);
    const [problem] = messages({ par: 'always' }, { code_challenge_methods_supported: ['plain'] });
    expect(problem).toMatch(/^ERR_DISCOVERY_MISMATCH flow\.par "always" .*code_challenge_methods_supported \[plain\]/);
    // Not pushing: nothing to say about PKCE.
    expect(messages({ par: 'never' }, { code_challenge_methods_supported: ['plain'] })).toEqual([]);
  });

  it('FAPI 2.0 needs authorization_response_iss_parameter_supported: true (RFC 9207 §3)', () => {
    const fapi2 = { fapi: '2.0', responseType: 'code' };
    expect(messages(fapi2, { authorization_response_iss_parameter_supported: true })).toEqual([]);
    const [problem] = messages(fapi2, {});
    expect(problem).toMatch(/^ERR_DISCOVERY_MISMATCH flow\.fapi "2\.0" .*authorization_response_iss_parameter_supported/);
    expect(messages({}, {})).toEqual([]);
  });
});

describe('the discovery record (flow.par "auto" in the offline generate)', () => {
  it('is read back for the same target and bank only', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'obflow-discovery-'));
    try {
      const here = config({}, dir);
      expect(await savedDiscoveryRequiresPar(here)).toBe(false);
      await recordDiscovery(here, { ...BASE, require_pushed_authorization_requests: true });
      expect(await savedDiscoveryRequiresPar(here)).toBe(true);
      expect(await savedDiscoveryRequiresPar(config({}, dir, 'https://other.example'))).toBe(false);
      expect(await savedDiscoveryRequiresPar({ ...here, target: 'sandbox' })).toBe(false);
      await recordDiscovery(here, BASE);
      expect(await savedDiscoveryRequiresPar(here)).toBe(false);
      await writeFile(discoveryRecordPath(dir), 'not json');
      expect(await savedDiscoveryRequiresPar(here)).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
