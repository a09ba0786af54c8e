// The collections' checks, run as rendered in a vm with the pm double (test/helpers/script-double.ts): status, echo,
// Content-Type and schema; each schema travelling with its check; the standard's 404 for what a bank does not
// implement; the response body decoded and parsed once per script.

import { describe, expect, it } from 'vitest';
import { flow, script, Ajv6, SENT_ID, run, BANK } from '../helpers/script-double.js';

describe('checks: status, echo, Content-Type, schema', () => {
  const test = script('accounts: GET /accounts', 'test');
  const page = {
    Data: { Account: [{ AccountId: 'acc-1', Currency: 'GBP', AccountType: 'Personal', AccountSubType: 'CurrentAccount' }] },
    Links: { Self: 'https://rs.example:8443/open-banking/v3.1/aisp/accounts' },
    Meta: { TotalPages: 1 },
  };
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'x-fapi-interaction-id': SENT_ID };
  const env = { ...BANK };

  it('passes a valid answer', () => {
    const result = run(test, { env, response: { code: 200, headers, body: page } });
    expect(result.failed()).toEqual([]);
    expect(result.passed()).toHaveLength(6);
  });

  it('fails another status, a missing echo, another Content-Type, a body outside the schema', () => {
    expect(run(test, { env, response: { code: 201, headers, body: page } }).failed()).toEqual(['status is 200']);
    expect(
      run(test, { env, response: { code: 200, headers: { ...headers, 'x-fapi-interaction-id': 'other' }, body: page } }).failed(),
    ).toEqual(['x-fapi-interaction-id is echoed']);
    expect(
      run(test, { env, response: { code: 200, headers: { ...headers, 'Content-Type': 'application/json' }, body: page } }).failed(),
    ).toEqual(['Content-Type is application/json; charset=utf-8']);
    const broken = run(test, {
      env,
      response: { code: 200, headers, body: { ...page, Data: { Account: [{ AccountId: 'acc-1', Currency: 'pounds' }] } } },
    });
    expect(broken.failed()).toHaveLength(1);
    expect(broken.failed()[0]).toMatch(/^body is valid against/);
  });
});

describe('schemas: each travels with its check, compiled once per run', () => {
  const test = script('transactions: GET /accounts/{AccountId}/transactions', 'test');
  const cache = (): Record<string, unknown> | undefined => (Ajv6 as { obflowValidators?: Record<string, unknown> }).obflowValidators;
  const forget = (): void => void delete (Ajv6 as { obflowValidators?: unknown }).obflowValidators;
  const env = { ...BANK, account_ids: '["acc-1"]', account_index: '0', account_id: 'acc-1' };
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'x-fapi-interaction-id': SENT_ID };
  const self = 'https://rs.example:8443/open-banking/v3.1/aisp/accounts/acc-1/transactions';
  const page = (transaction: object) => ({
    Data: { Transaction: [transaction] },
    Links: { Self: self },
    Meta: { TotalPages: 1 },
  });
  const valid = {
    AccountId: 'acc-1',
    CreditDebitIndicator: 'Credit',
    Status: 'Booked',
    BookingDateTime: '2026-11-01T10:00:00+00:00',
    Amount: { Amount: '10.00', Currency: 'GBP' },
  };
  const schemaTest = 'body is valid against GET /accounts/{AccountId}/transactions 200 (OBIE AIS v3.1.1 ∩ v3.1.11)';

  it('validates with no collection variable and no validator kept (a first execution, or the Postman app)', () => {
    expect(flow.variable ?? []).toEqual([]);
    forget();
    const ok = run(test, { env, response: { code: 200, headers, body: page(valid) } });
    expect(ok.passed()).toContain(schemaTest);
    expect(ok.failed()).toEqual([]);
    forget();
    const broken = run(test, {
      env,
      response: { code: 200, headers, body: page({ ...valid, Amount: { Amount: 'ten', Currency: 'GBP' } }) },
    });
    expect(broken.failed()).toEqual([schemaTest]);
    expect(broken.tests.find((t) => t.name === schemaTest)?.error).toMatch(/Amount/);
  });

  it('compiles a schema once and keeps it for the rest of the run', () => {
    forget();
    run(test, { env, response: { code: 200, headers, body: page(valid) } });
    const kept = cache()?.['obie-account-transactions'];
    expect(kept).toBeDefined();
    const again = run(test, { env, response: { code: 200, headers, body: page({ ...valid, Status: 'Unknown' }) } });
    expect(again.failed()).toEqual([schemaTest]);
    expect(cache()?.['obie-account-transactions']).toBe(kept);
  });
});

describe('unsupported: the standard\'s 404 (OBIE R/W Data API Profile, "HTTP Status Codes")', () => {
  const test = script('unsupported: GET /beneficiaries', 'test');
  const status =
    "Beneficiaries: GET /beneficiaries answers 404 Not Found (the standard's answer for an endpoint the bank does not implement)";
  const bodyTest = 'Beneficiaries: the 404 body is JSON and valid against GET (any) 4xx (OBIE AIS v3.1.1 ∩ v3.1.11)';
  const refusal = {
    Code: '404 Not Found',
    Id: 'err-1',
    Message: 'Not found',
    Errors: [{ ErrorCode: 'UK.OBIE.Resource.NotFound', Message: 'Beneficiaries are not offered' }],
  };
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'x-fapi-interaction-id': SENT_ID };
  const env = { ...BANK };

  it('passes a 404 without a body, and a 404 with an OBErrorResponse1', () => {
    const empty = run(test, { env, response: { code: 404, headers: { 'x-fapi-interaction-id': SENT_ID } } });
    expect(empty.failed()).toEqual([]);
    expect(empty.passed()).toEqual(['x-fapi-interaction-id is echoed', status]);
    const withBody = run(test, { env, response: { code: 404, headers, body: refusal } });
    expect(withBody.failed()).toEqual([]);
    expect(withBody.passed()).toEqual(['x-fapi-interaction-id is echoed', status, bodyTest]);
  });

  it('fails 501 (or any other status) once, naming the path, the status and the rule, not the schema', () => {
    for (const [code, reason] of [
      [501, 'Not Implemented'],
      [200, 'OK'],
      [403, 'Forbidden'],
    ] as const) {
      const result = run(test, { env, response: { code, reason, headers, body: { Code: `${code}`, Something: 'else' } } });
      expect(result.failed()).toEqual([status]);
      const error = result.tests.find((t) => !t.passed)?.error ?? '';
      expect(error).toContain(`GET /beneficiaries answered ${code} ${reason}, not 404`);
      expect(error).toContain(
        'OBIE Read/Write Data API Profile, "HTTP Status Codes": "If an ASPSP has not implemented an API endpoint, it must respond with a 404 (Not Found) for requests to that URL."',
      );
    }
  });

  it('fails a missing echo, and a 404 body that is not an OBErrorResponse1 or not JSON', () => {
    expect(run(test, { env, response: { code: 404, headers: {} } }).failed()).toEqual(['x-fapi-interaction-id is echoed']);
    const invalid = run(test, { env, response: { code: 404, headers, body: { ...refusal, Errors: [] } } });
    expect(invalid.failed()).toEqual([bodyTest]);
    expect(invalid.tests.find((t) => !t.passed)?.error).toMatch(/Errors/);
    expect(
      run(test, { env, response: { code: 404, headers: { ...headers, 'Content-Type': 'text/html' }, body: refusal } }).failed(),
    ).toEqual([bodyTest]);
    expect(run(test, { env, response: { code: 404, headers, body: '<html>gone</html>' } }).failed()).toEqual([bodyTest]);
  });
});

describe('lib-body: the response body, decoded and parsed once per script', () => {
  const test = script('each-account: GET /accounts/{AccountId}', 'test');
  const headers = { 'Content-Type': 'application/json; charset=utf-8', 'x-fapi-interaction-id': SENT_ID };
  const env = { ...BANK, account_ids: '["acc-1"]', account_index: '0', account_id: 'acc-1' };
  const body = (id: string, nickname = 'Joint £ account — café 𝄞') => ({
    Data: { Account: [{ AccountId: id, Currency: 'GBP', AccountType: 'Personal', AccountSubType: 'CurrentAccount', Nickname: nickname }] },
    Links: { Self: `https://rs.example/open-banking/v3.1/aisp/accounts/${id}` },
    Meta: {},
  });

  it("reads the body once for the schema check and the step's own checks, multi-byte UTF-8 included", () => {
    const ok = run(test, { env, response: { code: 200, headers, body: body('acc-1') } });
    expect(ok.failed()).toEqual([]);
    expect(ok.passed()).toContain('exactly one account, the one asked for');
    expect(ok.bodyReads).toBe(1);
    const other = run(test, { env: { ...env, account_id: 'acc-£' }, response: { code: 200, headers, body: body('acc-£') } });
    expect(other.failed()).toEqual([]);
  });

  it('takes an all-ASCII body as its own decoding, and percent-decodes only one with other bytes', () => {
    const ascii = { calls: 0 };
    const plain = run(test, { env, escapes: ascii, response: { code: 200, headers, body: body('acc-1', 'Joint account') } });
    expect(plain.failed()).toEqual([]);
    expect(plain.passed()).toContain('exactly one account, the one asked for');
    expect(ascii.calls).toBe(0);
    const multiByte = { calls: 0 };
    expect(run(test, { env, escapes: multiByte, response: { code: 200, headers, body: body('acc-1') } }).failed()).toEqual([]);
    expect(multiByte.calls).toBe(1);
  });

  it('ignores a byte order mark, falls back to the SDK decoder for bytes that are not UTF-8', () => {
    const text = JSON.stringify(body('acc-1'));
    expect(run(test, { env, response: { code: 200, headers, bytes: Buffer.from(`\uFEFF${text}`, 'utf8') } }).failed()).toEqual([]);
    // 0xFF is never UTF-8: decodeURIComponent refuses it, text() replaces it with U+FFFD inside the Nickname string.
    const [before = '', after = ''] = text.split('café');
    const notUtf8 = Buffer.concat([Buffer.from(`${before}caf`, 'utf8'), Buffer.from([0xff]), Buffer.from(after, 'utf8')]);
    const fallback = run(test, { env, response: { code: 200, headers, bytes: notUtf8 } });
    expect(fallback.failed()).toEqual([]);
    expect(fallback.bodyReads).toBe(2);
  });

  it("a body that is not JSON: the schema check fails, then the step's script stops with the parse error", () => {
    const broken = run(test, {
      env,
      response: { code: 200, headers, bytes: Buffer.from('<html>not json</html>', 'utf8') },
      scriptErrors: true,
    });
    expect(broken.failed()).toEqual([expect.stringMatching(/^body is valid against/)]);
    expect((broken.scriptError as Error | undefined)?.name).toBe('SyntaxError'); // thrown in the vm's realm
  });
});
