// The official model bank's VRP sequences (OpenBankingUK OBL-ModelBank-Integration, extract
// obl/obl-modelbank-payments.postman_collection.json in the specs folder, provenance in its SOURCES.md) run with newman
// against the emulator over real mutual TLS, as official-payments-sequence.test.ts does for domestic payments: the
// v4.0 and v3.1.11 "VRP Flow - Variable Recurring Payments Headless" folders, in the strict-headless and
// permissive-headless profiles, unchanged but for the mappings listed below. Every request gets the standard's status
// and the body its version's OpenAPI file documents; every signed answer verifies with the key the JWKS publishes.
//
// The sequences' consents have hard-coded validity dates long past (v4.0: 17 June to 17 August 2024; v3.1.11: 5 June
// 2017 to 5 June 2025): rather than edit them, the test moves the bank's clock into each window (startSandbox({ now }),
// the emulator's one clock seam) before the folder runs — the stand-in signer signs with that clock's iat.

import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { CompactSign } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { bankOriginsOf, buildSslClientCertList, writeCaBundle } from '../../src/run/index.js';
import type { SslClientCert } from '../../src/run/index.js';
import type { PostmanEnvironment } from '../../src/sandbox/contracts.js';
import { createBank, startOfUtcDay } from '../../src/sandbox/data/bank.js';
import { apiProblems } from '../helpers/obie-payments.js';
import { OfficialRun } from '../helpers/official-run.js';
import { OB_CRIT, OB_IAT, OB_ISS, OB_TAN, paymentsIdentity, verifyBankSignature } from '../helpers/payments-client.js';
import { describeWith, SPEC_FILES, specFiles, specPath } from '../helpers/prerequisites.js';
import { startTestSandbox } from '../helpers/sandbox-client.js';
import type { TestSandbox } from '../helpers/sandbox-client.js';
import { tempDir } from '../helpers/temp.js';
import { BankClock, VrpTpp } from '../helpers/vrp-client.js';

const officialVrp = specFiles(
  "the official model bank's VRP sequences and the OBIE VRP files",
  SPEC_FILES.oblModelBankPayments,
  SPEC_FILES.vrp3111,
  SPEC_FILES.vrp40,
  SPEC_FILES.codesetInternal,
);

const SEED = 'official-vrp';

/** The extract's VRP folders, by position (obl/SOURCES.md), the version each runs against, and a bank time inside the
 *  validity window of its consent. */
const FOLDERS = [
  { index: 1, label: 'v4.0 VRP', version: '4.0', at: '2024-07-01T10:00:00Z' },
  { index: 4, label: 'v3.1.11 VRP', version: '3.1', at: '2025-01-15T10:00:00Z' },
] as const;

/** Requests of each folder this test does not send: the model bank's private helpers (Ozone's), which no standard
 *  defines; the test gives the PSU's consent itself (headless, the default user) in their place. */
const OUT_OF_SCOPE: Readonly<Record<string, string>> = {
  'Step 3: GET auth-code-url': 'Ozone helper /o3/v1.0/auth-code-url: the bank builds the consent URL for the TPP (private helper)',
  '3003: O3 Call headless-heimdall auth': 'Ozone headless authorisation server (private helper, fixed Ozone bearer token)',
  '3005: O3 Retrieve a consent by its id': 'Ozone consent manager {{cs}}/…/consents (private helper)',
  '4003: O3: Patch the consent': "Ozone consent manager: authorises the consent on the PSU's behalf (private helper)",
  '4005: O3: Confirm with Heimdall': 'Ozone headless confirm: returns the authorisation code (private helper)',
};

/** Not run at all (also docs/sandbox-vrp.md). */
const NOT_RUN = [
  "the model bank's message-signing helper itself ({{rs}}/o3/v1.0/message-signature-detached): it is handed the TPP's private key; a stand-in in this test signs with the test identity's key instead",
] as const;

/**
 * What the test changes in the official requests, and why (each a mapping; docs/sandbox-vrp.md lists them):
 * - Signing: the call goes to the stand-in (`signingHelper`) and signs the body the request sends, not `data1` (an object
 *   rebuilt in the script whose serialisation is not the body); v4.0: the commented-out signing code is uncommented and
 *   x-jws-signature enabled (the files mark it required on these POSTs).
 * - x-idempotency-key: enabled where disabled (its official value).
 * - The consent's DebtorAccount (the model bank's sort code 100001 09010102) → the default PSU's current account.
 * - Creditor sort codes named "SortCodeAccountNumber" → UK.OBIE.SortCodeAccountNumber (the schemes of the files'
 *   OBExternalAccountIdentification4Code / OBInternalAccountIdentification4Code).
 * - v4.0 PSUInteractionTypes "UK.OB.InSession" (no value of OBVRPInteractionTypes) → "InSession", and the payment says
 *   "PSUInteractionType": "InSession" (without it a payment is OffSession, "If not provided the default is OffSession",
 *   which that consent does not allow).
 * - The payment's Instruction.CreditorAccount (another account than the consent's creditor) → the consent's creditor,
 *   and it carries the consent's RemittanceInformation ("the same Remittance Information MUST be provided by the PISP in
 *   the Initiation and Instruction section of each VRP Payment", VRP v4.0 domestic-vrp-consents).
 */
interface PmHeader {
  key: string;
  value: string;
  disabled?: boolean;
}
interface PmItem {
  name: string;
  event?: { listen: string; script: { exec: string[] } }[];
  request?: { method: string; url: string | { raw: string }; header?: PmHeader[]; body?: { mode: string; raw?: string } };
}
interface PmCollection {
  item: { name: string; item: PmItem[] }[];
  event?: unknown[];
  variable?: unknown[];
}

type Json = Record<string, unknown>;

/** The consent request of a folder as JSON (its {{…}} variables as strings). */
function consentRequestOf(items: readonly PmItem[]): Json {
  const raw =
    items.find((item) => item.request?.method === 'POST' && /consents$/.test(String(item.request.url)))?.request?.body?.raw ?? '{}';
  return JSON.parse(raw.replace(/"\{\{[^}]+\}\}"/g, '"x"')) as Json;
}

/** The item mapped (see above); `consent` is the folder's consent request, mapped (undefined: the payment is left). */
function mapItem(item: PmItem, debtor: string, consent: Json | undefined): PmItem {
  const copy = JSON.parse(JSON.stringify(item)) as PmItem;
  const request = copy.request;
  if (request === undefined) return copy;
  const url = typeof request.url === 'string' ? request.url : request.url.raw;
  request.url = url;
  for (const header of request.header ?? [])
    if (header.key === 'x-jws-signature' || header.key === 'x-idempotency-key') header.disabled = false;
  for (const event of copy.event ?? []) {
    if (event.listen !== 'prerequest') continue;
    const lines = event.script.exec;
    const start = lines.findIndex((line) => line.includes('const mesgSigning'));
    if (start < 0) continue;
    event.script.exec = lines.map((line, index) => {
      let mapped = index >= start ? line.replace(/^(\s*)\/\/ ?/, '$1') : line;
      mapped = mapped.replace(
        /pm\.environment\.get\('rs'\) \+ '\/o3\/v1\.0\/message-signature-detached'/,
        "pm.environment.get('signingHelper') + '/o3/v1.0/message-signature-detached'",
      );
      return mapped.replace(/raw: data1\b/, 'raw: pm.variables.replaceIn(pm.request.body.raw)');
    });
  }
  const body = request.body;
  if (body?.mode === 'raw' && typeof body.raw === 'string') {
    let raw = body.raw.replace(/"SchemeName": "SortCodeAccountNumber"/g, '"SchemeName": "UK.OBIE.SortCodeAccountNumber"');
    if (url.endsWith('/domestic-vrp-consents')) {
      raw = raw.replace(
        /("DebtorAccount": \{\s*"SchemeName": "UK\.OBIE\.SortCodeAccountNumber",\s*"Identification": ")10000109010102"/,
        `$1${debtor}"`,
      );
      raw = raw.replace('"UK.OB.InSession"', '"InSession"');
    }
    if (url.endsWith('/domestic-vrps') && consent !== undefined) {
      const initiation = (consent.Data as { Initiation: Json }).Initiation;
      const control = (consent.Data as { ControlParameters: Json }).ControlParameters;
      const parsed = JSON.parse(raw.replace('{{Initiation}}', '"{{Initiation}}"')) as { Data: Json & { Instruction: Json } };
      parsed.Data.Instruction.CreditorAccount = initiation.CreditorAccount;
      if (initiation.RemittanceInformation !== undefined) parsed.Data.Instruction.RemittanceInformation = initiation.RemittanceInformation;
      if (Array.isArray(control.PSUInteractionTypes)) parsed.Data.PSUInteractionType = 'InSession';
      raw = JSON.stringify(parsed, null, 2).replace('"{{Initiation}}"', '{{Initiation}}');
    }
    body.raw = raw;
  }
  return copy;
}

const clock = new BankClock();
let sandbox: TestSandbox;
let helper: Server;
let helperOrigin = '';
let signed = 0;

describeWith(officialVrp, "the official model bank's VRP sequences", () => {
  beforeAll(async () => {
    sandbox = await startTestSandbox({ apis: ['accounts', 'vrp'], seed: SEED, now: clock.now });
    const identity = await paymentsIdentity();
    const key = createPrivateKey(identity.pem.signingKey);
    // The stand-in for the model bank's signing helper: a detached JWS of the body it is given, signed with the test
    // identity's key by jose, its iat the bank's clock (the private key the script sends is ignored).
    helper = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        void new CompactSign(Buffer.concat(chunks))
          .setProtectedHeader({
            alg: 'PS256',
            kid: identity.manifest.kid,
            [OB_IAT]: Math.floor(clock.now().getTime() / 1000) - 1,
            [OB_ISS]: `${identity.manifest.org_id}/${identity.manifest.software_id}`,
            [OB_TAN]: 'openbanking.org.uk',
            crit: OB_CRIT,
          })
          .sign(key, { crit: Object.fromEntries(OB_CRIT.map((name) => [name, true])) })
          .then((jws) => {
            signed++;
            const [header, , signature] = jws.split('.');
            res.writeHead(200, { 'content-type': 'text/plain' }).end(`${header ?? ''}..${signature ?? ''}`);
          });
      });
    });
    await new Promise<void>((resolve) => helper.listen(0, '127.0.0.1', resolve));
    helperOrigin = `http://127.0.0.1:${(helper.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => helper?.close(resolve));
    await sandbox?.close();
  });

  it.each(['strict-headless', 'permissive-headless'] as const)(
    '%s: every request gets the answer the standard defines; the helpers are listed as out of scope',
    async (profile) => {
      const collection = JSON.parse(readFileSync(specPath(SPEC_FILES.oblModelBankPayments), 'utf8')) as PmCollection;
      expect(NOT_RUN).toHaveLength(1);
      const tpp = await VrpTpp.openVrp(sandbox, clock, profile);
      const registered = tpp.client ?? { client_id: '' };
      const helperEnvironment = (
        await tpp.fetch('GET', `${sandbox.urls.environment_helper}?client_id=${registered.client_id}`)
      ).json<PostmanEnvironment>();
      const values: { key: string; value: string }[] = [
        ...helperEnvironment.values.map(({ key, value }) => ({ key, value })),
        { key: 'signingHelper', value: helperOrigin },
      ];
      const stateDir = await tempDir('obflow-official-vrp-');
      const certList: SslClientCert[] = buildSslClientCertList({ origins: bankOriginsOf(values), transport: tpp.identity.paths.transport });
      const caBundle = await writeCaBundle(join(stateDir, 'ca.pem'), [tpp.identity.pem.rootCa, tpp.identity.pem.issuingCa]);
      const account = createBank(SEED, startOfUtcDay(new Date()))
        .accountsOf('psu-alex')
        .find((candidate) => candidate.accountSubType === 'CurrentAccount');
      if (account === undefined) throw new Error('alex has no current account');
      const debtor = `${account.sortCode}${account.accountNumber}`;
      const sequence = new OfficialRun({ collection, values, certList, caBundle, helperOrigin });
      const { valueOf, run, exchanges, failures } = sequence;

      const sentBefore = signed;
      for (const folder of FOLDERS) {
        const official = collection.item[folder.index];
        expect(official?.name, folder.label).toContain('VRP Flow');
        for (const name of Object.keys(OUT_OF_SCOPE))
          expect(
            official?.item.map((item) => item.name),
            `${folder.label}: ${name}`,
          ).toContain(name);
        const inScope = (official?.item ?? []).filter((item) => OUT_OF_SCOPE[item.name] === undefined);
        const consent = consentRequestOf(inScope.map((item) => mapItem(item, debtor, undefined)));
        const items = inScope.map((item) => mapItem(item, debtor, consent));
        // The bank's clock inside the consent's validity window, for the whole folder.
        clock.set(folder.at);
        const exchange = items.findIndex((item) => /Auth Code Grant/.test(item.name));
        await run(folder.label, items.slice(0, exchange));
        // The PSU's consent, in place of the Ozone helpers: the default user authorises the consent the sequence made.
        const code = (await tpp.authorize({ consentId: valueOf('intent-id'), scope: `openid ${valueOf('request-scope')}` })).params.get(
          'code',
        );
        expect(code, folder.label).toBeTruthy();
        sequence.set('authorizationCode', code ?? '');
        await run(folder.label, items.slice(exchange));
      }
      clock.reset();
      const jwks = await tpp.jwks();
      await tpp.close();

      const problems: string[] = [];
      const tokenUrl = valueOf('tokenEndpoint');
      const SUCCESS: Readonly<Record<string, number>> = { POST: 201, GET: 200, DELETE: 204 };
      for (const x of exchanges) {
        const label = `${x.folder} › ${x.item}: ${x.method} ${x.url.pathname}`;
        if (`${x.url.origin}${x.url.pathname}` === tokenUrl) {
          if (x.status !== 200) problems.push(`${label} → ${x.status} ${x.body.slice(0, 200)}`);
          continue;
        }
        const folder = FOLDERS.find((candidate) => candidate.label === x.folder);
        const template = x.url.pathname
          .slice(`/open-banking/v${folder?.version ?? ''}/pisp`.length)
          .replace(/^\/domestic-vrp-consents\/[^/]+/, '/domestic-vrp-consents/{ConsentId}')
          .replace(/^\/domestic-vrps\/[^/]+/, '/domestic-vrps/{DomesticVRPId}');
        const expected = SUCCESS[x.method] ?? 0;
        if (x.status !== expected) {
          problems.push(`${label} → ${x.status}, expected ${expected}: ${x.body.slice(0, 300)}`);
          continue;
        }
        problems.push(...apiProblems('vrp', folder?.version ?? '4.0', x.method, template, x.status, x.body, x.headers));
        if (x.body !== '') {
          try {
            verifyBankSignature(x.headers['x-jws-signature'], x.body, jwks);
          } catch (error) {
            problems.push(`${label}: ${(error as Error).message}`);
          }
        }
      }
      expect(problems).toEqual([]);
      expect(failures).toEqual([]);
      // Every request of the two folders but the helpers was sent: 9 each.
      expect(exchanges).toHaveLength(18);
      // The stand-in signed each signed POST (consent, funds confirmation, payment; two folders).
      expect(signed - sentBefore).toBe(6);
    },
    180_000,
  );
});
