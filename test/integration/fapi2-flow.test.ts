// obflow's FAPI 2.0 client (flow.fapi "2.0") against the emulator's FAPI 2.0 mode (`obflow sandbox --fapi 2.0`, issue
// 30): PAR + PKCE S256, response_type code, client assertions with aud = the issuer, typed request objects, the iss
// authorization-response parameter (RFC 9207) required — through obflow's stages and newman, and the exported
// whole-flow collection through plain `newman run`, for both methods FAPI 2.0 allows. The emulator's 2.0 mode refuses
// every FAPI 1 habit (aud = token endpoint, typ JWT, a request not pushed, code id_token), so a pass proves the 2.0
// collections; the default collections are refused by the same bank.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { FAPI_PROFILES } from '../../src/fapi-profile.js';

import { environmentValue } from '../../src/environment/index.js';
import { buildCollections, loadTemplates, STEP_NAMES, stepFileName } from '../../src/generate/index.js';
import { writeSslClientCertList } from '../../src/run/index.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { newmanCli } from '../helpers/newman.js';
import { startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';
import { describeRun, prepare, runAll } from './pipeline-helpers.js';

const METHODS = ['private_key_jwt', 'tls_client_auth'] as const;
const FAPI2 = { flow: { fapi: '2.0', responseType: 'code', request_object_signing_alg: 'PS256' } };

let sandbox: TestSandbox;
let identity: TestIdentity;
const fapi2Collections: Record<string, object> = {};
let wholeFlow = '';

beforeAll(async () => {
  identity = await getTestIdentity();
  sandbox = await startTestSandbox({ fapi: '2.0' });
  const files = buildCollections({ templates: loadTemplates(), fapi: FAPI_PROFILES['2.0'] });
  for (const name of STEP_NAMES) {
    const file = files.find((candidate) => candidate.fileName === stepFileName(name));
    if (file) fapi2Collections[name] = JSON.parse(file.json) as object;
  }
  wholeFlow = files.find((file) => file.fileName === 'obflow-ais.postman_collection.json')?.json ?? '';
});
afterAll(async () => {
  await sandbox?.close();
});

describe('flow.fapi "2.0" against the emulator in its FAPI 2.0 mode', () => {
  it.each(METHODS)('%s: every step passes through obflow, and the whole-flow collection through plain newman', async (method) => {
    const prepared = await prepare(sandbox, identity, 'strict-headless', {}, { bank: { token_endpoint_auth_method: method }, ...FAPI2 });
    try {
      const result = await runAll({ ...prepared, collections: fapi2Collections });
      expect(result.passed, describeRun(result)).toBe(true);
      expect(result.steps.map((step) => step.name)).toEqual([...STEP_NAMES]);
      expect(result.steps.find((step) => step.name === 'psu-consent')?.requests).toBe(3);
      const consentUrl = new URL(environmentValue(result.environment, 'consent_url') ?? '');
      expect([...consentUrl.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);

      // The hand-over: the same bank, plain newman, the whole-flow collection and the files obflow wrote.
      const collectionPath = join(prepared.stateDir, 'obflow-ais.postman_collection.json');
      await writeFile(collectionPath, wholeFlow);
      const listPath = await writeSslClientCertList(join(prepared.stateDir, 'ssl-client-cert-list.json'), prepared.certList);
      const plain = await newmanCli(
        [
          'run',
          collectionPath,
          '--environment',
          prepared.environmentPath,
          '--ssl-client-cert-list',
          listPath,
          '--ssl-extra-ca-certs',
          prepared.caBundle,
          '--color',
          'off',
        ],
        prepared.stateDir,
      );
      expect(plain.code, `${plain.stdout.slice(-4000)}\n${plain.stderr}`).toBe(0);
      expect(plain.stdout).toMatch(/│\s+assertions\s+│\s+\d+\s+│\s+0\s+│/);
      expect(plain.stdout).toContain('iss (RFC 9207 §2) is in the redirect and is the issuer');
    } finally {
      await prepared.dispatcher.close();
    }
  });

  it('the default (FAPI 1 Advanced) collections are refused by the same bank at the pushed request', async () => {
    const prepared = await prepare(
      sandbox,
      identity,
      'strict-headless',
      {},
      { bank: { token_endpoint_auth_method: 'private_key_jwt' }, ...FAPI2 },
    );
    try {
      const result = await runAll(prepared, { select: 'psu-consent' });
      expect(result.passed).toBe(false);
    } finally {
      await prepared.dispatcher.close();
    }
  });
});
