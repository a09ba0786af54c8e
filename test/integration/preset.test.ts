// bank.preset "ozone-model-bank" end to end, offline: the preset's shape (the model bank's helper path with Basic
// client credentials, its organisation-id registration `aud`) against the emulator, which serves both; the addresses
// are overridden key by key with the emulator's, the rest comes from the preset.

import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';

import { parseConfig } from '../../src/config/load.js';
import { BANK_PRESETS } from '../../src/config/presets.js';
import { openTargetSession } from '../../src/pipeline/session.js';
import { environmentStage } from '../../src/pipeline/environment.js';
import { registerStage } from '../../src/pipeline/register.js';
import { runStage } from '../../src/pipeline/run.js';
import { bankTarget } from '../../src/pipeline/target.js';
import { describeRun, useEmulatorAsBank } from './pipeline-helpers.js';

const bank = useEmulatorAsBank('obflow-preset-');

describe('bank.preset ozone-model-bank', () => {
  it("fills the model bank's helper path and aud, and runs the whole flow against the emulator serving them", async () => {
    const { sandbox, identity } = bank;
    const strict = sandbox.urls.profiles['strict-headless'];
    const config = bank.config({ preset: 'ozone-model-bank', token_url: strict.token_url });
    const preset = BANK_PRESETS['ozone-model-bank'].values;
    expect(config.bank).toMatchObject({
      name: preset.name,
      environment_helper_path: '/ozone/v1.0/postman/environment',
      registration_aud: '0015800001041RHAAY',
      auth_url: strict.auth_url,
    });

    const session = await openTargetSession(config, await bankTarget(config), identity.paths);
    try {
      const dry = await registerStage(session, { dryRun: true });
      if (dry.kind !== 'dry-run') throw new TypeError('a dry run');
      expect(decodeJwt(dry.request.jwt).aud).toBe('0015800001041RHAAY');

      const registered = await registerStage(session, { force: true });
      if (registered.kind === 'dry-run') throw new TypeError('not a dry run');
      const { environment } = await environmentStage(session, registered.registration);
      // The helper was asked at the model bank's path, the client named by Basic credentials only.
      expect(sandbox.log.some((line) => line.includes('/ozone/v1.0/postman/environment'))).toBe(true);
      const result = await runStage(session, { environment, reporters: ['junit'] });
      expect(result.passed, describeRun(result)).toBe(true);
      expect(result.steps.map((step) => step.name)).toContain('id-token');
      expect(result.steps.find((step) => step.name === 'refresh')?.requests).toBe(2);
    } finally {
      await session.close();
    }
  });

  it('every key the config sets wins over the preset; an unknown preset is refused with the config path', () => {
    const config = parseConfig(
      {
        target: 'bank',
        bank: { preset: 'ozone-model-bank', environment_helper_path: '/other/helper', registration_aud: 'https://aud.example' },
        identity: bank.identity.paths,
      },
      'test',
    );
    expect(config.bank).toMatchObject({
      auth_url: 'https://auth1.obie.uk.ozoneapi.io',
      token_url: 'https://as1.obie.uk.ozoneapi.io/token',
      sandbox_base_url: 'https://rs1.obie.uk.ozoneapi.io',
      environment_helper_path: '/other/helper',
      registration_aud: 'https://aud.example',
    });
    expect(() => parseConfig({ target: 'bank', bank: { preset: 'no-such-bank' }, identity: bank.identity.paths }, 'test')).toThrow(
      /bank\.preset/,
    );
    expect(() => parseConfig({ target: 'bank', bank: { name: 'x' }, identity: bank.identity.paths }, 'test')).toThrow(
      /bank\.auth_url is required/,
    );
  });
});
