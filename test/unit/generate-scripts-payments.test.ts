// The payments collections' scripts, run as rendered in a vm with the pm double (test/helpers/script-double.ts): the
// body signed as sent (its signature verified with Node's crypto, not obflow's signer), the bank's signatures checked
// claim by claim (made with Node's crypto), the idempotency checks, the payment checks and the skip of an endpoint
// the bank does not offer. Each test names the rule it holds; docs/notes.md lists what was deleted to see each fail.

import { constants, createPublicKey, generateKeyPairSync, sign, verify, type JsonWebKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { API_FAMILIES, type ApiFamily } from '../../src/api-families.js';
import { buildCollections } from '../../src/generate/collections.js';
import { flowFileName } from '../../src/generate/files.js';
import { loadTemplates } from '../../src/generate/templates.js';
import { createSkipWatch } from '../../src/runner-rules.js';
import { PAYMENT_VERSIONS } from '../../src/generate/steps/payments-common.js';
import { run, type FakeResponse, type PmItem } from '../helpers/script-double.js';

const templates = loadTemplates();

/** The items of a family's whole-flow collection in a version. */
function itemsOf(family: ApiFamily, apiVersion: '3.1' | '4.0'): PmItem[] {
  const file = buildCollections({ templates, family, apiVersion }).find((candidate) => candidate.fileName === flowFileName(family));
  const flow = JSON.parse(file?.json ?? '{}') as { item: PmItem[] };
  return flow.item.flatMap((folder) => folder.item ?? []);
}
const ITEMS = { '3.1': itemsOf(API_FAMILIES.payments, '3.1'), '4.0': itemsOf(API_FAMILIES.payments, '4.0') };
const FUNDS_ITEMS = itemsOf(API_FAMILIES.funds, '3.1');

interface BodyItem extends PmItem {
  request?: PmItem['request'] & { body?: { raw?: string }; header?: { key: string; value: string }[] };
}
function item(name: string, version: '3.1' | '4.0' = '3.1', items: PmItem[] = ITEMS[version]): BodyItem {
  const found = items.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no item ${name}`);
  return found as BodyItem;
}
function script(name: string, listen: 'prerequest' | 'test', version: '3.1' | '4.0' = '3.1', items?: PmItem[]): string {
  return (
    item(name, version, items)
      .event?.find((event) => event.listen === listen)
      ?.script.exec.join('\n') ?? ''
  );
}

const CONSENT_POST = 'payment-consent: POST /domestic-payment-consents';
const CONSENT_REPLAY = 'payment-consent: POST /domestic-payment-consents again, same x-idempotency-key and body';
const CONSENT_CHANGED = 'payment-consent: POST /domestic-payment-consents again, same x-idempotency-key, another amount';
const CONSENT_GET = 'payment-consent: GET /domestic-payment-consents/{ConsentId}';
const PAYMENT_POST = 'payment: POST /domestic-payments';
const PAYMENT_CHANGED = 'payment: POST /domestic-payments again, same x-idempotency-key, another amount';
const PAYMENT_NEW_KEY = 'payment: POST /domestic-payments with a new x-idempotency-key';
const PAYMENT_GET = 'payment: GET /domestic-payments/{DomesticPaymentId} at Links.Self';
const DETAILS = 'payment-details: GET /domestic-payments/{DomesticPaymentId}/payment-details';

// The TPP's signing key (as the environment carries it: a private JWK) and the bank's.
const tppKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
const TPP_JWK = JSON.stringify(tppKey.privateKey.export({ format: 'jwk' }));
const bankKey = generateKeyPairSync('rsa', { modulusLength: 2048 });
const bankJwk = bankKey.publicKey.export({ format: 'jwk' });
const BANK_SIGNING_JWKS = JSON.stringify([{ kid: 'bank-1', n: bankJwk.n, e: bankJwk.e }]);
const OB = 'http://openbanking.org.uk/';
const CRIT = [`${OB}iat`, `${OB}iss`, `${OB}tan`];

const ENV = {
  signing_key: TPP_JWK,
  signing_kid: 'tpp-kid-1',
  orgId: '0015800001ORG',
  softwareId: 'SOFTWARE1',
  jws_tan: 'openbanking.org.uk',
  obParticipantId: '0015800001041RHAAY',
  bank_signing_jwks: BANK_SIGNING_JWKS,
  consent_id: 'pdc-1',
  payment_instruction_id: 'instr-1',
  payment_end_to_end_id: 'e2e-1',
  payment_amount: '10.00',
  payment_changed_amount: '11.00',
  payment_currency: 'GBP',
  payment_creditor_scheme: 'UK.OBIE.SortCodeAccountNumber',
  payment_creditor_identification: '08080021325698',
  payment_creditor_name: 'ACME Café',
  payment_reference: 'obflow test payment',
  payment_consent_idempotency_key: 'key-1',
};

const b64 = (data: string | Buffer) => Buffer.from(data).toString('base64url');

/** A detached JWS made with Node's crypto (the bank's signer here is not obflow's). */
function bankSignature(body: string, header: Record<string, unknown> = {}, key = bankKey.privateKey): string {
  const protectedHeader: Record<string, unknown> = {
    alg: 'PS256',
    kid: 'bank-1',
    [`${OB}iat`]: Math.floor(Date.now() / 1000) - 1,
    [`${OB}iss`]: '0015800001041RHAAY',
    [`${OB}tan`]: 'openbanking.org.uk',
    crit: CRIT,
  };
  for (const [name, value] of Object.entries(header)) {
    if (value === undefined) delete protectedHeader[name];
    else protectedHeader[name] = value;
  }
  const encoded = b64(JSON.stringify(protectedHeader));
  const signature = sign('sha256', Buffer.from(`${encoded}.${b64(Buffer.from(body, 'utf8'))}`), {
    key,
    padding: constants.RSA_PKCS1_PSS_PADDING,
    saltLength: 32,
  });
  return `${encoded}..${signature.toString('base64url')}`;
}

/** An answer the bank signed (or not: `signature` given). */
function signedAnswer(code: number, body: unknown, signature?: string): FakeResponse {
  const text = JSON.stringify(body);
  return {
    code,
    body: text,
    headers: {
      'x-jws-signature': signature ?? bankSignature(text),
      'x-fapi-interaction-id': 'ia-1',
      'content-type': 'application/json; charset=utf-8',
    },
  };
}

/** Verifies obflow's detached JWS over `body` with Node's crypto: its protected header, or throws. */
function verifyTppSignature(signature: string, body: string): Record<string, unknown> {
  const [encoded = '', payload, sig = ''] = signature.split('.');
  expect(payload, 'detached: empty payload').toBe('');
  const ok = verify(
    'sha256',
    Buffer.from(`${encoded}.${b64(Buffer.from(body, 'utf8'))}`),
    {
      key: createPublicKey({ key: tppKey.publicKey.export({ format: 'jwk' }) as JsonWebKey, format: 'jwk' }),
      padding: constants.RSA_PKCS1_PSS_PADDING,
      saltLength: 32,
    },
    Buffer.from(sig, 'base64url'),
  );
  if (!ok) throw new Error('the signature does not verify');
  return JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Record<string, unknown>;
}

describe('message signing: the body signed as sent (jws-sign.prerequest)', () => {
  it.each(['3.1', '4.0'] as const)(
    'v%s: resolves the body, sets it on the request, and signs exactly those bytes (verified with Node crypto)',
    (version) => {
      const raw = item(CONSENT_POST, version).request?.body?.raw ?? '';
      expect(raw).toContain('{{payment_amount}}');
      const now = Date.UTC(2026, 5, 1, 12, 0, 0);
      const result = run(
        script(CONSENT_POST, 'prerequest', version).replace(
          /env\.set\('payment_(consent_idempotency_key|instruction_id|end_to_end_id)'.*\n/g,
          '',
        ),
        {
          env: ENV,
          body: raw,
          now,
        },
      );
      const sent = result.bodySet ?? '';
      // The body sent holds no variable and is JSON with the values of the environment (UTF-8: the payee's é).
      expect(sent).not.toMatch(/\{\{/);
      const initiation = (JSON.parse(sent) as { Data: { Initiation: Record<string, unknown> } }).Data.Initiation;
      expect(initiation).toMatchObject({ InstructedAmount: { Amount: '10.00', Currency: 'GBP' }, CreditorAccount: { Name: 'ACME Café' } });
      const header = verifyTppSignature(result.sentHeaders?.get('x-jws-signature') ?? '', sent);
      // OB R/W Data API Profile "Message Signing", Step 2: exactly these claims, no b64 (since 3.1.4), no typ.
      expect(header).toEqual({
        alg: 'PS256',
        kid: 'tpp-kid-1',
        [`${OB}iat`]: now / 1000,
        [`${OB}iss`]: '0015800001ORG/SOFTWARE1',
        [`${OB}tan`]: 'openbanking.org.uk',
        crit: CRIT,
      });
      expect(JSON.parse(result.env.get('signatures_checked') ?? '{}')).toEqual({ signed: 1 });
    },
  );

  it('signs what is sent: a body the script did not set would not verify, and another body does not', () => {
    const raw = item(PAYMENT_POST).request?.body?.raw ?? '';
    const result = run(script(PAYMENT_POST, 'prerequest'), { env: ENV, body: raw });
    const signature = result.sentHeaders?.get('x-jws-signature') ?? '';
    expect(() => verifyTppSignature(signature, raw)).toThrow('does not verify');
    expect(() => verifyTppSignature(signature, (result.bodySet ?? '').replace('10.00', '10.01'))).toThrow('does not verify');
    expect(() => verifyTppSignature(signature, result.bodySet ?? '')).not.toThrow();
  });

  it('refuses to sign a body naming a variable no setting filled (nothing would tell the bank it was not meant)', () => {
    const raw = item(CONSENT_POST).request?.body?.raw ?? '';
    const { payment_reference: _omitted, ...env } = ENV;
    const result = run(
      script(CONSENT_POST, 'prerequest').replace(/env\.set\('payment_(consent_idempotency_key|instruction_id|end_to_end_id)'.*\n/g, ''),
      {
        env,
        body: raw,
        scriptErrors: true,
      },
    );
    expect(String(result.scriptError)).toContain('{{payment_reference}}');
    expect(result.sentHeaders?.has('x-jws-signature')).toBe(false);
  });

  it('a new consent: a fresh idempotency key (≤ 40), fresh ids (≤ 35), and another amount with the same decimals', () => {
    const keys = new Set<string>();
    for (const amount of ['10.00', '0.5', '9999999999999', '9999999999999.99', '42']) {
      const result = run(script(CONSENT_POST, 'prerequest'), {
        env: { ...ENV, payment_amount: amount },
        body: item(CONSENT_POST).request?.body?.raw ?? '',
      });
      const key = result.env.get('payment_consent_idempotency_key') ?? '';
      expect(key.length).toBeGreaterThan(0);
      expect(key.length).toBeLessThanOrEqual(40);
      keys.add(key);
      for (const id of ['payment_instruction_id', 'payment_end_to_end_id'])
        expect((result.env.get(id) ?? '').length).toBeLessThanOrEqual(35);
      const changed = result.env.get('payment_changed_amount') ?? '';
      expect(changed).not.toBe(amount);
      expect(changed).toMatch(/^\d{1,13}$|^\d{1,13}\.\d{1,5}$/);
      expect(changed.split('.')[1]).toBe(amount.split('.')[1]);
    }
    expect(keys.size).toBe(5);
  });

  it('the replays send the same key variable as the first POST; the second payment another key', () => {
    const keyOf = (name: string) => item(name).request?.header?.find((header) => header.key === 'x-idempotency-key')?.value;
    expect(keyOf(CONSENT_POST)).toBe('{{payment_consent_idempotency_key}}');
    expect(keyOf(CONSENT_REPLAY)).toBe('{{payment_consent_idempotency_key}}');
    expect(keyOf(CONSENT_CHANGED)).toBe('{{payment_consent_idempotency_key}}');
    expect(keyOf(PAYMENT_POST)).toBe('{{payment_idempotency_key}}');
    expect(keyOf(PAYMENT_CHANGED)).toBe('{{payment_idempotency_key}}');
    expect(keyOf(PAYMENT_NEW_KEY)).toBe('{{$guid}}');
    // The changed body differs from the first only by its amount.
    expect(item(CONSENT_CHANGED).request?.body?.raw?.replace('{{payment_changed_amount}}', '{{payment_amount}}')).toBe(
      item(CONSENT_POST).request?.body?.raw,
    );
  });
});

describe("the bank's signature (jws-verify.test): every claim the profile lists", () => {
  const test = script(CONSENT_GET, 'test');
  const NAME = "the bank's x-jws-signature verifies: PS256, its key, iat, iss, tan, crit (OB R/W Data API Profile, Message Signing)";
  const consent = {
    Data: { ConsentId: 'pdc-1', Status: 'AwaitingAuthorisation', Initiation: {} },
    Links: { Self: 'https://rs.example/x' },
    Meta: {},
  };
  const verdict = (response: FakeResponse, env: Record<string, string> = {}) => {
    const result = run(test, { env: { ...ENV, ...env }, response });
    return result.tests.find((entry) => entry.name === NAME);
  };

  it('passes a signature over the exact bytes with the bank key, and counts it', () => {
    const result = run(test, {
      env: { ...ENV, signatures_checked: JSON.stringify({ signed: 1, verified: 0 }) },
      response: signedAnswer(200, consent),
    });
    expect(result.tests.find((entry) => entry.name === NAME)).toMatchObject({ passed: true });
    expect(JSON.parse(result.env.get('signatures_checked') ?? '{}')).toEqual({ signed: 1, verified: 1 });
  });

  const text = JSON.stringify(consent);
  const faults: [string, () => FakeResponse, string | RegExp][] = [
    ['no x-jws-signature', () => ({ ...signedAnswer(200, consent), headers: { 'x-fapi-interaction-id': 'ia-1' } }), 'no x-jws-signature'],
    ['not detached', () => signedAnswer(200, consent, bankSignature(text).replace('..', `.${b64(text)}.`)), 'not a detached JWS'],
    ['a changed byte of the body', () => ({ ...signedAnswer(200, consent), body: text.replace('pdc-1', 'pdc-2') }), 'does not verify'],
    ['another key', () => signedAnswer(200, consent, bankSignature(text, {}, tppKey.privateKey)), /does not verify|out of range/],
    ['a kid the bank does not publish', () => signedAnswer(200, consent, bankSignature(text, { kid: 'other' })), 'no key with kid other'],
    ['no kid', () => signedAnswer(200, consent, bankSignature(text, { kid: undefined })), 'no kid'],
    ['alg RS256', () => signedAnswer(200, consent, bankSignature(text, { alg: 'RS256' })), 'alg is RS256'],
    [
      'b64 (no longer allowed since 3.1.4)',
      () => signedAnswer(200, consent, bankSignature(text, { b64: false })),
      'claims the profile does not list: b64',
    ],
    ['typ JWT', () => signedAnswer(200, consent, bankSignature(text, { typ: 'JWT' })), 'typ is JWT'],
    ['cty text/plain', () => signedAnswer(200, consent, bankSignature(text, { cty: 'text/plain' })), 'cty is text/plain'],
    ['crit without tan', () => signedAnswer(200, consent, bankSignature(text, { crit: CRIT.slice(0, 2) })), 'crit is'],
    ['crit with one more', () => signedAnswer(200, consent, bankSignature(text, { crit: [...CRIT, 'b64'] })), 'crit is'],
    [
      'iat in the future',
      () => signedAnswer(200, consent, bankSignature(text, { [`${OB}iat`]: Math.floor(Date.now() / 1000) + 600 })),
      'in the future',
    ],
    ['iat not a number', () => signedAnswer(200, consent, bankSignature(text, { [`${OB}iat`]: '1700000000' })), 'iat is not a number'],
    ['iss of another bank', () => signedAnswer(200, consent, bankSignature(text, { [`${OB}iss`]: '0015800001OTHER' })), 'not the bank'],
    ['another tan', () => signedAnswer(200, consent, bankSignature(text, { [`${OB}tan`]: 'example.com' })), 'tan is example.com'],
  ];
  it.each(faults)('fails %s', (_fault, response, message) => {
    expect(verdict(response())).toMatchObject({
      passed: false,
      error: (typeof message === 'string' ? expect.stringContaining(message) : expect.stringMatching(message)) as unknown,
    });
  });

  it("takes the bank's iss from bank_jws_iss when set (a bank whose iss is not its obParticipantId)", () => {
    const response = signedAnswer(200, consent, bankSignature(text, { [`${OB}iss`]: 'BANK-ORG' }));
    expect(verdict(response)).toMatchObject({ passed: false });
    expect(verdict(response, { bank_jws_iss: 'BANK-ORG' })).toMatchObject({ passed: true });
  });

  it('checks a refusal too (the files list x-jws-signature on every answer with a body); an answer without a body has nothing to sign', () => {
    const refusal = { Code: '400', Id: 'x', Message: 'Bad', Errors: [{ ErrorCode: 'UK.OBIE.Header.Invalid', Message: 'changed body' }] };
    const changed = script(CONSENT_CHANGED, 'test');
    expect(run(changed, { env: ENV, response: signedAnswer(400, refusal) }).tests.find((entry) => entry.name === NAME)).toMatchObject({
      passed: true,
    });
    const unsigned = { ...signedAnswer(400, refusal), headers: { 'x-fapi-interaction-id': 'ia-1' } };
    expect(run(changed, { env: ENV, response: unsigned }).tests.find((entry) => entry.name === NAME)).toMatchObject({ passed: false });
    expect(
      run(changed, { env: ENV, response: { code: 401, headers: { 'x-fapi-interaction-id': 'ia-1' } } }).tests.some(
        (entry) => entry.name === NAME,
      ),
    ).toBe(false);
  });
});

describe('idempotency, checked (OB R/W Data API Profile, "Idempotency")', () => {
  const consentAnswer = (id: string, created = '2026-06-01T12:00:00+00:00') =>
    signedAnswer(201, {
      Data: { ConsentId: id, CreationDateTime: created, Status: 'AwaitingAuthorisation', StatusUpdateDateTime: created, Initiation: {} },
      Risk: {},
      Links: { Self: 'https://x/y' },
      Meta: {},
    });
  const env = { ...ENV, consent_id: 'pdc-1', payment_consent_created: '2026-06-01T12:00:00+00:00' };
  const replay = (response: FakeResponse) => run(script(CONSENT_REPLAY, 'test'), { env, response });
  const replayTests = (result: ReturnType<typeof replay>) => result.tests.filter((entry) => entry.name.startsWith('the replay answers'));

  it('the same key and body: the consent created first passes', () => {
    expect(replayTests(replay(consentAnswer('pdc-1'))).every((entry) => entry.passed)).toBe(true);
    expect(replayTests(replay(consentAnswer('pdc-1'))).length).toBe(2);
  });
  it('…a second consent (another ConsentId) fails', () => {
    expect(replay(consentAnswer('pdc-2')).failed()).toContain(
      'the replay answers the consent created first (the same ConsentId), not a second one',
    );
  });
  it('…another CreationDateTime (a resource made again) fails', () => {
    expect(replay(consentAnswer('pdc-1', '2026-06-01T12:00:05+00:00')).failed()).toContain(
      'the replay answers the consent created first (the same CreationDateTime)',
    );
  });

  const refusal = { Code: '400', Id: 'x', Message: 'Bad', Errors: [{ ErrorCode: 'UK.OBIE.Header.Invalid', Message: 'changed body' }] };
  const changedName = (statuses: string) => `the same x-idempotency-key with another body is refused (${statuses})`;
  it('the same key with another body: a refusal the file documents passes; a 201 (the body taken) fails', () => {
    const changed = script(CONSENT_CHANGED, 'test');
    expect(run(changed, { env, response: signedAnswer(400, refusal) }).passed()).toContain(changedName('400 or 403'));
    expect(run(changed, { env, response: consentAnswer('pdc-1') }).failed()).toContain(changedName('400 or 403'));
    // A 201 with a new resource fails twice: the status, and the second resource it names.
    expect(run(changed, { env, response: consentAnswer('pdc-9') }).failed()).toContain(
      'the answer names no ConsentId other than the first one (no second resource)',
    );
  });
  it('…409 is a refusal v4.0 documents for a payment (U029), neither for a v3.1 payment nor for a consent', () => {
    const conflict = { ...refusal, Code: '409', Errors: [{ ErrorCode: 'U029', Message: 'exists' }] };
    const env4 = { ...env, payment_id: 'dp-1' };
    expect(run(script(PAYMENT_CHANGED, 'test', '4.0'), { env: env4, response: signedAnswer(409, conflict) }).passed()).toContain(
      changedName('400 or 403 or 409'),
    );
    expect(run(script(PAYMENT_CHANGED, 'test', '3.1'), { env: env4, response: signedAnswer(409, conflict) }).failed()).toContain(
      changedName('400 or 403'),
    );
    expect(run(script(CONSENT_CHANGED, 'test', '4.0'), { env: env4, response: signedAnswer(409, conflict) }).failed()).toContain(
      changedName('400 or 403'),
    );
    expect(PAYMENT_VERSIONS['4.0'].refusals.payment).toContain(409);
  });
  it('a consumed consent must refuse a second payment under a new key: a 201 with a payment fails', () => {
    const test = script(PAYMENT_NEW_KEY, 'test');
    expect(run(test, { env, response: signedAnswer(400, refusal) }).failed()).toEqual([]);
    const second = signedAnswer(201, { Data: { DomesticPaymentId: 'dp-2', ConsentId: 'pdc-1' } });
    expect(run(test, { env, response: second }).failed()).toEqual([
      'the consumed consent refuses a second payment (400 or 403)',
      'the answer names no second payment',
    ]);
  });
});

describe('the payment checked against its consent', () => {
  const initiation = {
    InstructionIdentification: 'instr-1',
    EndToEndIdentification: 'e2e-1',
    InstructedAmount: { Amount: '10.00', Currency: 'GBP' },
    CreditorAccount: { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: '08080021325698', Name: 'ACME Inc' },
  };
  const T1 = '2026-06-01T12:00:00+00:00';
  const env = {
    ...ENV,
    payment_initiation: JSON.stringify(initiation),
    payment_id: 'dp-1',
    payment_created: T1,
    payment_self_url: 'https://rs.example/open-banking/v3.1/pisp/domestic-payments/dp-1',
  };
  const payment = (
    over: Record<string, unknown> = {},
    links = { Self: 'https://rs.example/open-banking/v3.1/pisp/domestic-payments/dp-1' },
  ) =>
    signedAnswer(201, {
      Data: {
        DomesticPaymentId: 'dp-1',
        ConsentId: 'pdc-1',
        CreationDateTime: T1,
        Status: 'AcceptedSettlementInProcess',
        StatusUpdateDateTime: T1,
        Initiation: initiation,
        ...over,
      },
      Links: links,
      Meta: { TotalPages: 1 },
    });

  it('a payment of the consent, as consented, passes and writes its id, Links.Self and status', () => {
    const result = run(script(PAYMENT_POST, 'test'), { env, response: payment() });
    expect(result.failed()).toEqual([]);
    expect(result.env.get('payment_id')).toBe('dp-1');
    expect(result.env.get('payment_self_url')).toBe('https://rs.example/open-banking/v3.1/pisp/domestic-payments/dp-1');
    expect(result.env.get('payment_status')).toBe('AcceptedSettlementInProcess');
  });
  it.each([
    ['another ConsentId', { ConsentId: 'pdc-2' }, "ConsentId is the consent's"],
    [
      'another amount',
      { Initiation: { ...initiation, InstructedAmount: { Amount: '11.00', Currency: 'GBP' } } },
      "the payment's InstructedAmount and CreditorAccount are the consent's",
    ],
    [
      'another payee',
      { Initiation: { ...initiation, CreditorAccount: { ...initiation.CreditorAccount, Identification: '1' } } },
      "the payment's InstructedAmount and CreditorAccount are the consent's",
    ],
    ['a rejected payment', { Status: 'Rejected' }, 'the payment is made (its Status is not Rejected)'],
  ])('fails %s', (_case, over, name) => {
    expect(run(script(PAYMENT_POST, 'test'), { env, response: payment(over) }).failed()).toEqual([name]);
  });
  it('fails a Links.Self that names another payment', () => {
    expect(run(script(PAYMENT_POST, 'test'), { env, response: payment({}, { Self: 'https://rs.example/x/dp-2' }) }).failed()).toEqual([
      'Links.Self names the payment',
    ]);
  });
  it('v4.0: RJCT is not made; the read back fails another amount (the changed body changed it) or another payment', () => {
    expect(run(script(PAYMENT_POST, 'test', '4.0'), { env, response: payment({ Status: 'RJCT' }) }).failed()).toEqual([
      'the payment is made (its Status is not RJCT or BLCK)',
    ]);
    const read = script(PAYMENT_GET, 'test');
    const readAnswer = (over: Record<string, unknown>) => ({ ...payment(over, { Self: env.payment_self_url }), code: 200 });
    expect(run(read, { env, response: readAnswer({ Status: 'AcceptedSettlementCompleted' }) }).failed()).toEqual([]);
    expect(
      run(read, {
        env,
        response: readAnswer({ Initiation: { ...initiation, InstructedAmount: { Amount: '11.00', Currency: 'GBP' } } }),
      }).failed(),
    ).toEqual(["the payment's InstructedAmount is the consent's (nothing changed it)"]);
    expect(run(read, { env, response: readAnswer({ DomesticPaymentId: 'dp-2' }) }).failed()).toEqual([
      'DomesticPaymentId, ConsentId and CreationDateTime are the payment made',
    ]);
  });
  it('the consent read back: its status, and its Initiation unchanged by the changed body', () => {
    const read = script(CONSENT_GET, 'test');
    const answer = (over: Record<string, unknown>) =>
      signedAnswer(200, {
        Data: {
          ConsentId: 'pdc-1',
          CreationDateTime: T1,
          Status: 'AwaitingAuthorisation',
          StatusUpdateDateTime: T1,
          Initiation: initiation,
          ...over,
        },
        Risk: {},
        Links: { Self: 'https://rs.example/open-banking/v3.1/pisp/domestic-payment-consents/pdc-1' },
        Meta: { TotalPages: 1 },
      });
    expect(run(read, { env, response: answer({}) }).failed()).toEqual([]);
    expect(run(read, { env, response: answer({ Status: 'Authorised' }) }).failed()).toEqual(['consent is AwaitingAuthorisation']);
    expect(
      run(read, {
        env,
        response: answer({ Initiation: { ...initiation, InstructedAmount: { Amount: '11.00', Currency: 'GBP' } } }),
      }).failed(),
    ).toEqual(["the consent's Initiation is unchanged (the amount first sent)"]);
  });
});

describe('payment-details: a 404 is a skip with its reason, never a pass or a fail', () => {
  it('on 404 the script notes the skip and checks nothing; the runner rules see a skipped item', () => {
    const logged: unknown[][] = [];
    const result = run(script(DETAILS, 'test'), {
      env: ENV,
      response: { code: 404, headers: { 'x-fapi-interaction-id': 'ia-1' } },
      console: logged,
    });
    expect(result.tests).toEqual([]);
    expect(String(logged[0]?.[0])).toMatch(
      /^skipped: the bank answered 404 to GET \/domestic-payments\/\{DomesticPaymentId\}\/payment-details/,
    );
    const watch = createSkipWatch();
    watch.begin(DETAILS);
    watch.request();
    watch.console(logged[0] ?? []);
    expect(watch.end()).toEqual({ item: DETAILS, reason: expect.stringContaining('does not offer payment details') as unknown });
  });
  it('any other answer is checked (a 500 fails; a request that was checked is not a skip)', () => {
    const result = run(script(DETAILS, 'test'), {
      env: ENV,
      response: signedAnswer(500, { Code: '500', Message: 'x', Errors: [{ ErrorCode: 'UK.OBIE.UnexpectedError', Message: 'x' }] }),
    });
    expect(result.failed()).toContain('status is 200');
    const watch = createSkipWatch();
    watch.begin(DETAILS);
    watch.request();
    watch.asserted();
    expect(watch.end()).toBeUndefined();
  });
});

describe('funds checks', () => {
  const name = 'funds-confirmation: POST /funds-confirmations, an amount the account holds';
  const beyond = 'funds-confirmation: POST /funds-confirmations, an amount beyond the account';
  const env = {
    ...ENV,
    consent_id: 'fcc-1',
    funds_available_amount: '1.00',
    funds_unavailable_amount: '9999999999.00',
    funds_currency: 'GBP',
  };
  const answer = (amount: string, available: boolean) => ({
    code: 201,
    headers: { 'x-fapi-interaction-id': 'ia-1', 'content-type': 'application/json; charset=utf-8' },
    body: {
      Data: {
        FundsConfirmationId: 'fc-1',
        ConsentId: 'fcc-1',
        CreationDateTime: '2026-06-01T12:00:00+00:00',
        FundsAvailable: available,
        Reference: 'obflow funds check',
        InstructedAmount: { Amount: amount, Currency: 'GBP' },
      },
      Links: { Self: 'https://x' },
      Meta: {},
    },
  });
  const body = (itemName: string, amount: string) =>
    (item(itemName, '3.1', FUNDS_ITEMS).request?.body?.raw ?? '')
      .replace(/\{\{funds_(un)?available_amount\}\}/, amount)
      .replace('{{consent_id}}', 'fcc-1')
      .replace('{{funds_currency}}', 'GBP');

  it('an amount within the balance must be available, one above it must not', () => {
    const test = (itemName: string) => script(itemName, 'test', '3.1', FUNDS_ITEMS);
    expect(run(test(name), { env, response: answer('1.00', true), body: body(name, '1.00') }).failed()).toEqual([]);
    expect(run(test(name), { env, response: answer('1.00', false), body: body(name, '1.00') }).failed()).toEqual([
      'FundsAvailable is true for funds_available_amount',
    ]);
    const ok = run(test(beyond), { env, response: answer('9999999999.00', false), body: body(beyond, '9999999999.00') });
    expect(ok.failed()).toEqual([]);
    expect(JSON.parse(ok.env.get('funds_checks') ?? '[]')).toEqual([
      { Amount: '9999999999.00', Currency: 'GBP', FundsAvailable: false, FundsConfirmationId: 'fc-1' },
    ]);
    expect(run(test(beyond), { env, response: answer('9999999999.00', true), body: body(beyond, '9999999999.00') }).failed()).toEqual([
      'FundsAvailable is false for funds_unavailable_amount',
    ]);
  });
});
