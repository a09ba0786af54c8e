// The pipeline stages the CLI runs (src/pipeline), end to end against the real emulator over mTLS: with the PEM
// transport certificate, and with a legacy-encoded PFX that Node's OpenSSL 3 cannot open (newman gets PEM copies).

import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import { parseConfig } from '../../src/config/load.js';
import { openTargetSession, type Session } from '../../src/pipeline/session.js';
import { environmentStage } from '../../src/pipeline/environment.js';
import { registerStage } from '../../src/pipeline/register.js';
import { runStage } from '../../src/pipeline/run.js';
import { consentInBrowser, spkiPinOf } from '../../src/run/consent/browser.js';
import { SANDBOX_CONSENT_SCRIPT } from '../../src/run/consent/script.js';
import { chromium, CHROMIUM_PATH, needs, openssl } from '../helpers/prerequisites.js';
import { sandboxTarget } from '../../src/pipeline/target.js';
import type { IdentityPaths } from '../../src/pki/types.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { useTestSandbox } from '../helpers/sandbox-client.js';
import { tempDir } from '../helpers/temp.js';

const COLLECTIONS = join(import.meta.dirname, '..', '..', 'collections');

let identity: TestIdentity;

const sandbox = useTestSandbox();

beforeAll(async () => {
  identity = await getTestIdentity();
});

async function runWhole(transport: IdentityPaths['transport'], options: { profile?: string; consent?: string; ask?: Session['ask'] } = {}) {
  const work = await tempDir('obflow-stages-');
  const config = parseConfig(
    {
      stateDir: join(work, 'state'),
      output: { collections: COLLECTIONS, reports: join(work, 'reports') },
      sandbox: { profile: options.profile ?? 'strict-headless' },
      flow: { consent: options.consent ?? 'auto' },
    },
    'test',
  );
  const target = sandboxTarget(config, sandbox.urls, [identity.pem.rootCa, identity.pem.issuingCa]);
  const session = await openTargetSession(config, target, { ...identity.paths, transport }, options.ask ? { ask: options.ask } : {});
  try {
    const mark = sandbox.log.length;
    const registered = await registerStage(session, { force: true });
    if (registered.kind === 'dry-run') throw new TypeError('not a dry run');
    const { environment } = await environmentStage(session, registered.registration);
    // Registration (the auth methods) and the environment (the addresses) share one read of discovery.
    expect(sandbox.log.slice(mark).filter((line) => line.includes('/.well-known/openid-configuration'))).toHaveLength(1);
    const result = await runStage(session, { environment, reporters: ['junit'] });
    return { result, stateDir: config.stateDir };
  } finally {
    await session.close();
  }
}

describe('pipeline stages', () => {
  it("register asks for §2.1's two grants; refresh_token only with registration.refresh_token_grant", async () => {
    const grants = async (registration: Record<string, unknown>): Promise<unknown> => {
      const work = await tempDir('obflow-stages-');
      const config = parseConfig({ stateDir: join(work, 'state'), registration }, 'test');
      const target = sandboxTarget(config, sandbox.urls, [identity.pem.rootCa, identity.pem.issuingCa]);
      const session = await openTargetSession(config, target, identity.paths);
      try {
        const dry = await registerStage(session, { dryRun: true });
        if (dry.kind !== 'dry-run') throw new TypeError('a dry run');
        return dry.request.claims.grant_types;
      } finally {
        await session.close();
      }
    };
    expect(await grants({})).toEqual(['authorization_code', 'client_credentials']);
    expect(await grants({ refresh_token_grant: true })).toEqual(['authorization_code', 'client_credentials', 'refresh_token']);
  });

  it('run every step with the PEM transport certificate', async () => {
    const { result } = await runWhole(identity.paths.transport);
    expect(result.passed, result.failedStep).toBe(true);
  });

  it('manual consent: the PSU opens their own consent URL and pastes the redirect back; the run goes on', async () => {
    needs(chromium);
    const shown: string[] = [];
    const ticked: number[] = [];
    // The "person": a real browser on the bank's pages (sam shares two of his three accounts), then a paste.
    const ask: Session['ask'] = async (consentUrl, redirectUri) => {
      shown.push(consentUrl);
      const done = await consentInBrowser({
        consentUrl,
        redirectUri,
        script: SANDBOX_CONSENT_SCRIPT,
        credentials: { username: 'sam', password: 'sam-sandbox-2' },
        trustedSpki: [identity.pem.rootCa, identity.pem.issuingCa].map(spkiPinOf),
        executablePath: CHROMIUM_PATH,
      });
      ticked.push(done.selectedAccounts);
      return `${redirectUri}#code=${done.code}&id_token=${done.idToken ?? ''}&state=${done.state ?? ''}`;
    };
    const { result } = await runWhole(identity.paths.transport, { profile: 'strict-interactive', consent: 'manual', ask });
    expect(result.passed, result.failedStep).toBe(true);
    expect(shown).toHaveLength(1);
    // The default script ticked every account sam holds (three), counted even when the redirect came first.
    expect(ticked).toEqual([3]);
    expect(result.steps.map((step) => step.name)).toContain('psu-consent-manual');
  });

  it('manual consent with nobody to paste: a usage error before the code exchange', async () => {
    await expect(
      runWhole(identity.paths.transport, { profile: 'strict-interactive', consent: 'manual' }).then(({ result }) => result),
    ).rejects.toMatchObject({ code: 'ERR_USAGE' });
  });

  it('run every step with a legacy PFX: newman reads a PEM copy that the run removes', async () => {
    needs(openssl);
    const work = await tempDir('obflow-legacy-pfx-');
    const pfx = join(work, 'transport-legacy.p12');
    execFileSync(
      'openssl',
      [
        'pkcs12',
        '-export',
        '-legacy',
        '-in',
        join(identity.dir, identity.manifest.files.transport_certificate),
        '-inkey',
        join(identity.dir, identity.manifest.files.transport_key),
        '-passout',
        'pass:pw',
        '-out',
        pfx,
      ],
      { stdio: 'pipe' },
    );
    const before = new Set(readdirSync(tmpdir()));
    const { result, stateDir } = await runWhole({ pfx, passphrase: 'pw' });
    expect(result.passed, result.failedStep).toBe(true);
    // The decrypted key lived in the run's own temporary folder and went with the run: nothing under the state folder
    // and no new temporary folder holds it (a secret never stays in a file obflow writes unless asked).
    const keyBody = identity.pem.transportKey.split('\n')[1] ?? '';
    expect(keyBody.length).toBeGreaterThan(20);
    const holding = (dir: string): string[] =>
      readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .map((name) => join(dir, name))
        .filter((path) => statSync(path, { throwIfNoEntry: false })?.isFile() === true && readFileSync(path, 'utf8').includes(keyBody));
    expect(holding(stateDir)).toEqual([]);
    expect(existsSync(join(stateDir, 'run', 'transport-from-pfx.key'))).toBe(false);
    const left = readdirSync(tmpdir()).filter((name) => !before.has(name) && name.startsWith('obflow-transport-'));
    expect(left).toEqual([]);
  });
});
