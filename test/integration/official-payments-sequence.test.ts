// The official model bank's payment and funds-confirmation sequences (OpenBankingUK OBL-ModelBank-Integration, extract
// obl/obl-modelbank-payments.postman_collection.json in the specs folder, provenance in its SOURCES.md) run with newman
// against the emulator over real mutual TLS, as official-sequence.test.ts does for AIS: the v4.0 and v3.1.11 "PIS Flow
// - Single Domestic Payments Headless" and "CBPII - Fund confirmation Headless" folders, in the strict-headless and
// permissive-headless profiles, unchanged but for the mappings listed below. Every request gets the standard's status
// and the body its version's OpenAPI file documents; every signed answer verifies with the key the JWKS publishes.
//
// The scripts sign their requests by calling a helper on the model bank's own server ({{rs}}/o3/v1.0/message-signature-
// detached, given the TPP's private key): this test serves a stand-in that signs with the test identity's key (jose),
// and points the scripts at it. What could not run, and why, is listed in NOT_RUN and docs/sandbox-payments.md.

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
import { ibanOf } from '../../src/sandbox/data/identification.js';
import { apiProblems } from '../helpers/obie-payments.js';
import { OfficialRun } from '../helpers/official-run.js';
import type { PaymentApi } from '../helpers/obie-payments.js';
import { OB_CRIT, OB_IAT, OB_ISS, OB_TAN, PaymentsTpp, paymentsIdentity, verifyBankSignature } from '../helpers/payments-client.js';
import { describeWith, SPEC_FILES, specFiles, specPath } from '../helpers/prerequisites.js';
import { startTestSandbox } from '../helpers/sandbox-client.js';
import type { TestSandbox } from '../helpers/sandbox-client.js';
import { tempDir } from '../helpers/temp.js';

const officialPayments = specFiles(
  "the official model bank's payment sequences and the OBIE Payment Initiation and Confirmation of Funds files",
  SPEC_FILES.oblModelBankPayments,
  SPEC_FILES.pisp3111,
  SPEC_FILES.pisp40,
  SPEC_FILES.cbpii3111,
  SPEC_FILES.cbpii40,
  SPEC_FILES.codesetInternal,
);

const SEED = 'official-payments';

/** The extract's folders, by position (obl/SOURCES.md), with the version and API each runs against. */
const FOLDERS = [
  { index: 0, label: 'v4.0 PIS', version: '4.0', api: 'pisp' },
  { index: 2, label: 'v4.0 CBPII', version: '4.0', api: 'cbpii' },
  { index: 3, label: 'v3.1.11 PIS', version: '3.1', api: 'pisp' },
  { index: 5, label: 'v3.1.11 CBPII', version: '3.1', api: 'cbpii' },
] as const satisfies readonly { index: number; label: string; version: '3.1' | '4.0'; api: PaymentApi }[];

/** Requests of every folder this test does not send: the model bank's private helpers (Ozone's), which no standard
 *  defines; the test gives the PSU's consent itself (headless, the default user) in their place. */
const OUT_OF_SCOPE: Readonly<Record<string, string>> = {
  'Step 3: GET auth-code-url': 'Ozone helper /o3/v1.0/auth-code-url: the bank builds the consent URL for the TPP (private helper)',
  '3003: O3 Call headless-heimdall auth': 'Ozone headless authorisation server (private helper, fixed Ozone bearer token)',
  '3005: O3 Retrieve a consent by its id': 'Ozone consent manager {{cs}}/…/consents (private helper)',
  '4003: O3: Patch the consent': "Ozone consent manager: authorises the consent on the PSU's behalf (private helper)",
  '4005: O3: Confirm with Heimdall': 'Ozone headless confirm: returns the authorisation code (private helper)',
};

/** Not run at all (also docs/sandbox-payments.md). */
const NOT_RUN = [
  'the VRP folders (v4.0 and v3.1.11 "VRP Flow - Variable Recurring Payments Headless"): official-vrp-sequence.test.ts runs them',
  "the model bank's message-signing helper itself ({{rs}}/o3/v1.0/message-signature-detached): it is handed the TPP's private key; a stand-in in this test signs with the test identity's key instead",
] as const;

/**
 * What the test changes in the official requests, and why (each a mapping, as official-sequence.test.ts maps the
 * model bank's fixed values): see mapItem.
 * - The signing call goes to the stand-in (`signingHelper`), and signs the body the request sends
 *   (pm.variables.replaceIn(pm.request.body.raw)) instead of `data1`, an object rebuilt in the script: serialised, it
 *   is not the body's bytes (other white space; on v4.0 other members), and a detached JWS is of the body as sent (RFC
 *   7515 Appendix F; OB R/W Data API Profile v4.0, "Process for Verifying a Signature", step 3).
 * - v4.0 PIS: the signing code is commented out and x-jws-signature disabled in the official file; both files mark
 *   x-jws-signature (and x-idempotency-key) required on these POSTs, so the code is uncommented and the headers enabled.
 * - x-idempotency-key: enabled where disabled (its official value), and added to POST /domestic-payments (a fresh guid).
 * - The model bank's fixed accounts → the default PSU's current account: the v4.0 consent's DebtorAccount (an IBAN of
 *   no bank) → its IBAN here; the CBPII consents' DebtorAccount (sort code 100001…) → its sort code and number.
 * - The CBPII consents' ExpirationDateTime (2025-05-02, past) → a day from now.
 * - Strict profiles only: the v4.0 PIS requests' Risk.ExtendedPurpose, a member OBRisk1 of the v4.0 file does not
 *   define (closed schema), is left out; permissive profiles take the requests as they are (payment-unknown-fields).
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

interface Debtor {
  iban: string;
  sortCodeAccount: string;
}

function mapItem(item: PmItem, profile: string, debtor: Debtor): PmItem {
  const copy = JSON.parse(JSON.stringify(item)) as PmItem;
  const request = copy.request;
  if (request === undefined) return copy;
  const url = typeof request.url === 'string' ? request.url : request.url.raw;
  request.url = url;
  const headers = request.header ?? [];
  for (const header of headers) if (header.key === 'x-jws-signature' || header.key === 'x-idempotency-key') header.disabled = false;
  if (request.method === 'POST' && url.endsWith('/domestic-payments') && !headers.some((header) => header.key === 'x-idempotency-key'))
    headers.push({ key: 'x-idempotency-key', value: '{{$guid}}' });
  request.header = headers;
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
    let raw = body.raw;
    raw = raw.replace('"Identification": "AB12CD34EF567890123456789012345678901"', `"Identification": "${debtor.iban}"`);
    raw = raw.replace('"Identification": "10000109010102"', `"Identification": "${debtor.sortCodeAccount}"`);
    raw = raw.replace(
      '"ExpirationDateTime": "2025-05-02T00:00:00+00:00"',
      `"ExpirationDateTime": "${new Date(Date.now() + 86_400_000).toISOString()}"`,
    );
    if (profile.startsWith('strict')) raw = raw.replace(/,\s*"ExtendedPurpose": "string"/, '');
    body.raw = raw;
  }
  return copy;
}

let sandbox: TestSandbox;
let helper: Server;
let helperOrigin = '';
let signed = 0;

describeWith(officialPayments, "the official model bank's payment and funds sequences", () => {
  beforeAll(async () => {
    sandbox = await startTestSandbox({ apis: ['accounts', 'payments', 'funds'], seed: SEED });
    const identity = await paymentsIdentity();
    const key = createPrivateKey(identity.pem.signingKey);
    // The stand-in for the model bank's signing helper: a detached JWS of the body it is given, signed with the test
    // identity's key by jose (the header the model bank's helper makes; the private key the script sends is ignored).
    helper = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        void new CompactSign(Buffer.concat(chunks))
          .setProtectedHeader({
            alg: 'PS256',
            kid: identity.manifest.kid,
            [OB_IAT]: Math.floor(Date.now() / 1000) - 1,
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
      expect(NOT_RUN).toHaveLength(2);
      const tpp = new PaymentsTpp(sandbox.urls, await paymentsIdentity(), profile);
      const registered = await tpp.register({ scope: 'openid accounts payments fundsconfirmations' });
      const helperEnvironment = (
        await tpp.fetch('GET', `${sandbox.urls.environment_helper}?client_id=${registered.client_id}`)
      ).json<PostmanEnvironment>();
      const values: { key: string; value: string }[] = [
        ...helperEnvironment.values.map(({ key, value }) => ({ key, value })),
        { key: 'signingHelper', value: helperOrigin },
      ];
      const stateDir = await tempDir('obflow-official-payments-');
      const certList: SslClientCert[] = buildSslClientCertList({ origins: bankOriginsOf(values), transport: tpp.identity.paths.transport });
      const caBundle = await writeCaBundle(join(stateDir, 'ca.pem'), [tpp.identity.pem.rootCa, tpp.identity.pem.issuingCa]);
      const account = createBank(SEED, startOfUtcDay(new Date()))
        .accountsOf('psu-alex')
        .find((candidate) => candidate.accountSubType === 'CurrentAccount');
      if (account === undefined) throw new Error('alex has no current account');
      const debtor = { iban: ibanOf(account), sortCodeAccount: `${account.sortCode}${account.accountNumber}` };
      const sequence = new OfficialRun({ collection, values, certList, caBundle, helperOrigin });
      const { valueOf, run, exchanges, failures } = sequence;

      const sentBefore = signed;
      for (const folder of FOLDERS) {
        const official = collection.item[folder.index];
        expect(official?.name, folder.label).toContain(folder.api === 'pisp' ? 'PIS Flow' : 'CBPII');
        for (const name of Object.keys(OUT_OF_SCOPE))
          expect(
            official?.item.map((item) => item.name),
            `${folder.label}: ${name}`,
          ).toContain(name);
        const items = (official?.item ?? [])
          .filter((item) => OUT_OF_SCOPE[item.name] === undefined)
          .map((item) => mapItem(item, profile, debtor));
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
        const base = `/open-banking/v${folder?.version ?? ''}/${folder?.api ?? ''}`;
        const template = x.url.pathname
          .slice(base.length)
          .replace(/^\/domestic-payment-consents\/[^/]+/, '/domestic-payment-consents/{ConsentId}')
          .replace(/^\/domestic-payments\/[^/]+/, '/domestic-payments/{DomesticPaymentId}')
          .replace(/^\/funds-confirmation-consents\/[^/]+/, '/funds-confirmation-consents/{ConsentId}');
        const expected = SUCCESS[x.method] ?? 0;
        if (x.status !== expected) {
          problems.push(`${label} → ${x.status}, expected ${expected}: ${x.body.slice(0, 300)}`);
          continue;
        }
        problems.push(...apiProblems(folder?.api ?? 'pisp', folder?.version ?? '4.0', x.method, template, x.status, x.body, x.headers));
        if (folder?.api === 'pisp' && x.body !== '') {
          try {
            verifyBankSignature(x.headers['x-jws-signature'], x.body, jwks);
          } catch (error) {
            problems.push(`${label}: ${(error as Error).message}`);
          }
        }
      }
      expect(problems).toEqual([]);
      expect(failures).toEqual([]);
      // Every request of the four folders but the helpers was sent: 2 PIS folders × 8, 2 CBPII folders × 6.
      expect(exchanges).toHaveLength(28);
      // The stand-in signed each PIS POST (consent and payment, two folders).
      expect(signed - sentBefore).toBe(4);
    },
    180_000,
  );
});
