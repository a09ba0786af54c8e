// obflow against an authorisation server nobody here wrote: panva's oidc-provider as a UK open-banking bank
// (test/oidc-bank), over real mutual TLS on port 0. Through the CLI as a TPP runs it — doctor → register →
// environment → generate → run all — with a config that points target "bank" at it; then plain `newman run` of the
// generated whole-flow collection. One row per (client authentication method × request-object alg) obflow supports.

import { readdirSync } from 'node:fs';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { STEP_NAMES } from '../../src/generate/index.js';
import { DEFAULT_UNSUPPORTED_CALLS } from '../../src/generate/steps/unsupported.js';
import type { TokenEndpointAuthMethod } from '../../src/config/schema.js';
import { environmentValue } from '../../src/environment/index.js';
import type { PostmanEnvironment } from '../../src/environment/merge.js';
import type { JsonReport } from '../../src/run/reporters/json.js';
import { getTestIdentity, type TestIdentity } from '../helpers/identity.js';
import { runCli } from '../helpers/cli.js';
import type { OidcBank, OidcBankProfile } from '../oidc-bank/index.js';
import { startBankFor, writeBankConfig } from '../oidc-bank/target.js';
import { newmanCli } from '../helpers/newman.js';
import { tempDir } from '../helpers/temp.js';

const AISP = '/open-banking/v3.1/aisp';

/** The matrix: a row per client authentication method × request-object alg (docs/pipeline.md §1), each in the bank
 *  profile that takes it. The strict profile (FAPI 1 Advanced) refuses client_secret_basic and `none` (§5.2.2-14,
 *  §5.2.2-1; the last case below), and plain `code` without JARM (§5.2.2-2): its rows run `code id_token` only. */
const MATRIX: readonly {
  auth: TokenEndpointAuthMethod;
  requestObjectAlg: 'none' | 'PS256';
  profile: OidcBankProfile;
  par?: true;
  jarm?: true;
  fapi2?: true;
}[] = [
  { auth: 'client_secret_basic', requestObjectAlg: 'none', profile: 'sandbox' },
  { auth: 'private_key_jwt', requestObjectAlg: 'none', profile: 'sandbox' },
  { auth: 'tls_client_auth', requestObjectAlg: 'none', profile: 'sandbox' },
  { auth: 'client_secret_basic', requestObjectAlg: 'PS256', profile: 'sandbox' },
  { auth: 'private_key_jwt', requestObjectAlg: 'PS256', profile: 'strict' },
  { auth: 'tls_client_auth', requestObjectAlg: 'PS256', profile: 'strict' },
  // The strict bank requiring pushed authorization requests (RFC 9126), obflow with flow.par "always".
  { auth: 'private_key_jwt', requestObjectAlg: 'PS256', profile: 'strict', par: true },
  { auth: 'tls_client_auth', requestObjectAlg: 'PS256', profile: 'strict', par: true },
  // Plain `code` at the strict bank (FAPI 1.0 Final) with JARM (flow.jarm), with and without PAR.
  { auth: 'private_key_jwt', requestObjectAlg: 'PS256', profile: 'strict', jarm: true },
  { auth: 'tls_client_auth', requestObjectAlg: 'PS256', profile: 'strict', par: true, jarm: true },
  // oidc-provider's FAPI 2.0 profile, obflow with flow.fapi "2.0" (PAR by "auto", PKCE, `code`, iss checked,
  // client assertions with aud = the issuer, which this bank requires under 2.0).
  { auth: 'private_key_jwt', requestObjectAlg: 'PS256', profile: 'fapi2', fapi2: true },
  { auth: 'tls_client_auth', requestObjectAlg: 'PS256', profile: 'fapi2', fapi2: true },
];
type Row = (typeof MATRIX)[number];

let identity: TestIdentity;
beforeAll(async () => {
  identity = await getTestIdentity();
});

/** The last JSON line of a `--json` command. */
const lastJson = (stdout: string): Record<string, unknown> =>
  JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as Record<string, unknown>;

const startBank = (profile: OidcBankProfile, requirePar = false): Promise<OidcBank> => startBankFor(identity, { profile, requirePar });

/** A folder whose obflow.config.json points target "bank" at `bank`, registering as `row` says. */
async function folderFor(bank: OidcBank, row: Pick<Row, 'auth' | 'requestObjectAlg' | 'par' | 'jarm' | 'fapi2'>): Promise<string> {
  const cwd = await tempDir('obflow-oidc-bank-');
  await writeBankConfig(cwd, bank, identity, {
    bank: { token_endpoint_auth_method: row.auth },
    flow: {
      request_object_signing_alg: row.requestObjectAlg,
      ...(row.par ? { par: 'always' } : {}),
      ...(row.jarm ? { jarm: true, responseType: 'code' } : {}),
      ...(row.fapi2 ? { fapi: '2.0', responseType: 'code' } : {}),
    },
    // oidc-provider allows the refresh_token grant only to a client that registered it (RFC 7591 §2 grant_types);
    // docs/notes.md, "proven against oidc-provider".
    registration: { refresh_token_grant: true },
  });
  return cwd;
}

// One bank process per profile, shared by its rows; the rows run one after another.
describe('oidc-provider bank: the matrix of client authentication × request-object alg', () => {
  const banks = new Map<string, OidcBank>();
  const folders: string[] = [];
  beforeAll(async () => {
    for (const profile of ['sandbox', 'strict', 'fapi2'] as const) banks.set(profile, await startBank(profile));
    banks.set('strict-par', await startBank('strict', true));
  });
  afterAll(async () => {
    for (const bank of banks.values()) await bank.close();
    for (const cwd of folders) await rm(cwd, { recursive: true, force: true });
  });
  const bankOf = (profile: OidcBankProfile, par = false): OidcBank => {
    const bank = banks.get(par ? `${profile}-par` : profile);
    if (bank === undefined) throw new Error(`no ${profile} bank`);
    return bank;
  };

  it.each(MATRIX)(
    '$auth × request object $requestObjectAlg ($profile, PAR $par, JARM $jarm, FAPI 2.0 $fapi2): doctor → register → environment → generate → run all; plain newman run',
    async (row) => {
      const bank = bankOf(row.profile, row.par === true);
      const cwd = await folderFor(bank, row);
      folders.push(cwd);
      const printed: string[] = [];
      const cli = async (...argv: string[]) => {
        const result = await runCli([...argv, '--json'], { cwd });
        printed.push(result.stdout, result.stderr);
        expect(result.code, `${argv.join(' ')}\n${result.stderr}\n${result.stdout.slice(-3000)}\n${bank.log.slice(-20).join('\n')}`).toBe(
          0,
        );
        return lastJson(result.stdout);
      };
      expect((await cli('doctor')).ok).toBe(true);
      const registered = bank.log.length;
      expect(await cli('register')).toMatchObject({ client_id: expect.stringMatching(/\S/) });
      expect(bank.log.slice(registered)).toContain('POST /dynamic-client-registration/v3.2/register');
      await cli('environment');
      await cli('generate');
      const environmentFile = join(cwd, 'state', 'environments', 'oidc-bank-sandbox.postman_environment.json');
      const environment = JSON.parse(await readFile(environmentFile, 'utf8')) as PostmanEnvironment;
      expect(environmentValue(environment, 'token_endpoint_auth_method')).toBe(row.auth);
      expect(environmentValue(environment, 'request_object_signing_alg')).toBe(row.requestObjectAlg);

      // FAPI 1 Advanced §5.2.2-2: the strict profile takes plain `code` only with JARM, which obflow does not ask for.
      const responseTypes = row.jarm || row.fapi2 ? ['code'] : row.profile === 'strict' ? ['code id_token'] : ['code id_token', 'code'];
      for (const responseType of responseTypes) {
        const from = bank.log.length;
        const summary = await cli('run', 'all', '--response-type', responseType, '--reporters', 'json');
        expect(summary.passed, JSON.stringify(summary)).toBe(true);
        // Every step and both id_token checks (after psu-consent and code-exchange) passed.
        // With plain `code` the front channel carries no id_token: the plan has no id-token step after the consent (a
        // step that can never run is neither passed nor skipped, so --no-skips holds for a FAPI 2.0 or JARM flow).
        const local = responseType === 'code' ? 1 : 2;
        expect(summary.steps).toEqual({ passed: STEP_NAMES.length + local, skipped: 0, total: STEP_NAMES.length + local });
        // Paging to the end: 250 transactions are three pages of the first account; the second has one page.
        expect(summary.accounts).toMatchObject([
          { accountId: 'acc-current', transactions: 250 },
          { accountId: 'acc-savings', transactions: 3 },
        ]);
        const calls = bank.log.slice(from);
        // RFC 9126: the request was pushed (oidc-provider's PAR route is /request), then named by request_uri.
        if (row.par || row.fapi2) expect(calls).toContain('POST /request');
        expect(calls.filter((line) => line === `GET ${AISP}/accounts/acc-current/transactions`)).toHaveLength(3);
        expect(calls).toContain(`grant client_credentials`);
        expect(calls).toContain(`grant authorization_code`);
        expect(calls).toContain(`grant refresh_token`);
        for (const call of DEFAULT_UNSUPPORTED_CALLS) expect(calls).toContain(`GET ${AISP}${call.path} → 404`);
        // obflow's own id_token checks (signature, acr, openbanking_intent_id, …) ran on the bank's id_tokens.
        const report = JSON.parse(await readFile(join(cwd, 'reports', 'obflow-run.json'), 'utf8')) as JsonReport;
        const checked = (name: string) => report.steps.find((step) => step.name === name)?.assertions;
        expect(checked('id-token-token')).toMatchObject({ total: expect.any(Number), failed: 0 });
        expect(checked('id-token-token')?.total).toBeGreaterThan(5);
        // The front-channel id_token (with c_hash and s_hash) comes only with `code id_token`.
        if (responseType === 'code') expect(report.steps.map((step) => step.name)).not.toContain('id-token');
        else {
          expect(checked('id-token')).toMatchObject({ failed: 0 });
          expect(checked('id-token')?.total).toBeGreaterThan(checked('id-token-token')?.total ?? 0);
        }
      }

      // The hand-over: the generated whole-flow collection under plain `newman run`, with the files obflow wrote (the
      // collection signs client assertions and request objects itself with the environment's signing_key).
      const run = join(cwd, 'state', 'run');
      const from = bank.log.length;
      const newman = await newmanCli(
        [
          'run',
          join(cwd, 'collections', 'obflow-ais.postman_collection.json'),
          ...['--environment', environmentFile],
          ...['--ssl-client-cert-list', join(run, 'ssl-client-cert-list.json'), '--ssl-extra-ca-certs', join(run, 'target-ca.pem')],
          ...['--reporters', 'cli', '--color', 'off'],
        ],
        cwd,
      );
      expect(newman.code, `${newman.stdout.slice(-4000)}\n${newman.stderr}`).toBe(0);
      expect(newman.stdout).toMatch(/│\s+assertions\s+│\s+\d+\s+│\s+0\s+│/);
      expect(newman.stdout).toMatch(/│\s+requests\s+│\s+\d+\s+│\s+0\s+│/);
      expect(bank.log.slice(from)).toEqual(expect.arrayContaining(['grant client_credentials', 'grant authorization_code']));

      // No secret — client secret, registration access token, any token or code the bank issued, the signing key — is in
      // what obflow printed, its reports or the collections.
      const [registration] = await readdir(join(cwd, 'state', 'registrations'));
      const stored = JSON.parse(await readFile(join(cwd, 'state', 'registrations', registration ?? ''), 'utf8')) as {
        client_secret?: string;
        metadata: { registration_access_token: string };
      };
      expect(stored.client_secret !== undefined).toBe(row.auth === 'client_secret_basic');
      const signingKey = environmentValue(environment, 'signing_key') ?? '';
      expect(signingKey !== '').toBe(row.auth === 'private_key_jwt' || row.requestObjectAlg === 'PS256');
      const secrets = [
        ...(stored.client_secret === undefined ? [] : [stored.client_secret]),
        stored.metadata.registration_access_token,
        ...(signingKey === '' ? [] : [(JSON.parse(signingKey) as { d: string }).d]),
        ...bank.issued,
      ];
      expect(secrets.length).toBeGreaterThan(10);
      const written = await Promise.all(
        ['reports', 'collections'].flatMap((dir) =>
          readdirSync(join(cwd, dir), { recursive: true, encoding: 'utf8' }).map((file) =>
            readFile(join(cwd, dir, file), 'utf8').catch(() => ''),
          ),
        ),
      );
      const haystack = [...printed, ...written].join('\n');
      expect(secrets.filter((secret) => haystack.includes(secret))).toEqual([]);
    },
    180_000,
  );

  // What FAPI 1 Advanced refuses, in obflow's coded errors: client_secret_basic is not in the strict bank's discovery
  // (§5.2.2-14), so obflow stops before registering; an unsigned request object is the bank's refusal (§5.2.2-1).
  it('strict profile: obflow refuses client_secret_basic itself; the bank refuses request objects `none`', async () => {
    const bank = bankOf('strict');
    const refusal = async (row: Pick<Row, 'auth' | 'requestObjectAlg'>) => {
      const cwd = await folderFor(bank, row);
      folders.push(cwd);
      const result = await runCli(['register', '--json'], { cwd });
      expect(result.code).not.toBe(0);
      return (lastJson(result.stderr) as { error: { code: string; message: string; hint: string } }).error;
    };
    const basic = await refusal({ auth: 'client_secret_basic', requestObjectAlg: 'PS256' });
    expect(basic.code).toBe('ERR_AUTH_METHOD_UNSUPPORTED');
    expect(basic.message).toMatch(/client_secret_basic.*private_key_jwt.*tls_client_auth/s);
    const none = await refusal({ auth: 'private_key_jwt', requestObjectAlg: 'none' });
    expect(none.code).toBe('ERR_REGISTRATION_REJECTED');
    expect(none.message).toMatch(/invalid_client_metadata: request_object_signing_alg none/);
    // RFC 7591 §3.2.2 invalid_client_metadata is about a metadata value: the hint must not send the user to aud/exp only.
    expect(none.hint).toContain('request_object_signing_alg');
  });

  // Plain `code` at a FAPI 1 Advanced bank is the standard's refusal of obflow's request (an error
  // redirect, §5.2.2-2): the hint names obflow's side and the setting, not the bank.
  it("strict bank, flow.responseType code: the error redirect is a refusal on obflow's side naming flow.responseType", async () => {
    const bank = bankOf('strict');
    const cwd = await folderFor(bank, { auth: 'private_key_jwt', requestObjectAlg: 'PS256' });
    folders.push(cwd);
    for (const argv of [['register'], ['environment'], ['generate']]) expect((await runCli([...argv, '--json'], { cwd })).code).toBe(0);
    const run = await runCli(['run', 'all', '--response-type', 'code', '--json'], { cwd });
    expect(run.code).not.toBe(0);
    const { error } = lastJson(run.stderr) as { error: { code: string; message: string; hint: string } };
    expect(error.hint).toContain('response_mode');
    expect(error.hint).toContain("obflow's side");
    expect(error.hint).toContain('flow.responseType to "code id_token"');
    expect(error.hint).toContain('flow.jarm to true');
    expect(error.hint).not.toContain("bank's side");
  });

  // `obflow doctor` reads the bank's discovery and lists what does not match the config, before any
  // request of the flow (here flow.par "never" at a bank requiring PAR, and client_secret_basic at a FAPI bank).
  it('doctor reads discovery: flow.par never and client_secret_basic against the strict PAR bank, in one line, nothing else sent', async () => {
    const bank = bankOf('strict', true);
    const cwd = await folderFor(bank, { auth: 'client_secret_basic', requestObjectAlg: 'PS256' });
    folders.push(cwd);
    const config = JSON.parse(await readFile(join(cwd, 'obflow.config.json'), 'utf8')) as { flow: Record<string, unknown> };
    await writeFile(join(cwd, 'obflow.config.json'), JSON.stringify({ ...config, flow: { ...config.flow, par: 'never' } }));
    const from = bank.log.length;
    const doctor = await runCli(['doctor', '--json'], { cwd });
    expect(doctor.code).not.toBe(0);
    const { checks } = lastJson(doctor.stdout) as { checks: { name: string; ok: boolean; code?: string; message?: string }[] };
    const line = checks.find((check) => check.name === "the bank's discovery offers what the config asks");
    expect(line).toMatchObject({ ok: false, code: 'ERR_PAR_UNAVAILABLE' });
    expect(line?.message).toMatch(/require_pushed_authorization_requests: true.*flow\.par "never"/);
    expect(line?.message).toMatch(/token_endpoint_auth_method client_secret_basic/);
    expect(checks.filter((check) => !check.ok)).toHaveLength(1);
    expect(bank.log.slice(from)).toEqual(['GET /.well-known/openid-configuration']);
  });

  // A bank whose discovery says require_pushed_authorization_requests. flow.par "auto" follows it (the
  // environment stage records it, the offline generate reads it): the psu-consent step pushes and passes. "never" is
  // a configuration error naming both, before any request of the flow.
  it('strict bank requiring PAR: flow.par auto pushes (read from discovery); never is ERR_PAR_UNAVAILABLE', async () => {
    const bank = bankOf('strict', true);
    const auto = await folderFor(bank, { auth: 'private_key_jwt', requestObjectAlg: 'PS256' });
    folders.push(auto);
    for (const argv of [['register'], ['environment'], ['generate']])
      expect((await runCli([...argv, '--json'], { cwd: auto })).code).toBe(0);
    const from = bank.log.length;
    const consent = await runCli(['run', 'all', '--json'], { cwd: auto });
    expect(consent.code, `${consent.stderr}\n${bank.log.slice(from).join('\n')}`).toBe(0);
    expect(bank.log.slice(from)).toContain('POST /request');
    const cwd = await folderFor(bank, { auth: 'private_key_jwt', requestObjectAlg: 'PS256' });
    folders.push(cwd);
    const config = JSON.parse(await readFile(join(cwd, 'obflow.config.json'), 'utf8')) as { flow: Record<string, unknown> };
    await writeFile(join(cwd, 'obflow.config.json'), JSON.stringify({ ...config, flow: { ...config.flow, par: 'never' } }));
    const register = await runCli(['register', '--json'], { cwd });
    const failed = register.code === 0 ? await runCli(['environment', '--json'], { cwd }) : register;
    expect(failed.code).toBe(2);
    const { error } = lastJson(failed.stderr) as { error: { code: string; message: string; hint: string } };
    expect(error.code).toBe('ERR_PAR_UNAVAILABLE');
    expect(error.message).toMatch(/require_pushed_authorization_requests: true.*flow\.par "never"/);
    expect(error.hint).toContain('"always"');
  });
});
