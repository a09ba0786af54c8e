// The family-agnostic machinery of payments (docs/sandbox-payments.md), unit by unit: idempotency keys (24 hours per
// client and operation, the same body or another), the consent state machine per kind, the balance overlay and the
// bank's one funds rule, account identification (sort code, IBAN), and the validation of PISP and CBPII requests.

import { rmSync } from 'node:fs';

import { afterAll, describe, expect, it } from 'vitest';

import { ConsentStateError } from '../../src/sandbox/contracts.js';
import type { AnyConsentRecord, PaymentConsentRecord } from '../../src/sandbox/contracts.js';
import { createBank, startOfUtcDay } from '../../src/sandbox/data/bank.js';
import { ibanOf, identifies } from '../../src/sandbox/data/identification.js';
import { bodyFingerprint, IdempotencyKeys, IDEMPOTENCY_WINDOW_MS, keyProblem } from '../../src/sandbox/idempotency.js';
import {
  firstDifference,
  validateFundsConfirmation,
  validateFundsConsent,
  validatePayment,
  validatePaymentConsent,
} from '../../src/sandbox/resource/payment-request.js';
import { ConsentBook } from '../../src/sandbox/store/consents.js';
import { SandboxDb } from '../../src/sandbox/store/db.js';
import { fundsAvailable, ledgerEnd, Postings, withPostings } from '../../src/sandbox/store/postings.js';
import type { Posting } from '../../src/sandbox/store/postings.js';
import { tempDirSync } from '../helpers/temp.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const dataDir = tempDirSync('obflow-payments-unit-');
const db = SandboxDb.open(dataDir);
afterAll(() => {
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('idempotency keys', () => {
  const keys = new IdempotencyKeys(db);
  const scope = { clientId: 'client-1', operation: 'POST /open-banking/v4.0/pisp/domestic-payments', key: 'key-1' };

  it('refuse a key over 40 characters or with white space at either end; take one of 40', () => {
    expect(keyProblem('k'.repeat(40))).toBeUndefined();
    expect(keyProblem('k'.repeat(41))).toMatch(/at most 40/);
    expect(keyProblem(' key')).toMatch(/white space/);
    expect(keyProblem('key ')).toMatch(/white space/);
  });

  it('answer a replay of the same body with the resource, another body as a conflict, for 24 hours', () => {
    const body = bodyFingerprint({ Data: { a: 1, b: [1, 2] }, Risk: {} });
    expect(keys.recall(scope, body, NOW)).toEqual({ outcome: 'new' });
    keys.remember(scope, body, 'dp-1', NOW);
    // Member order and white space are not another body.
    expect(keys.recall(scope, bodyFingerprint({ Risk: {}, Data: { b: [1, 2], a: 1 } }), NOW)).toEqual({
      outcome: 'replay',
      resourceId: 'dp-1',
    });
    expect(keys.recall(scope, bodyFingerprint({ Data: { a: 2, b: [1, 2] }, Risk: {} }), NOW)).toEqual({ outcome: 'conflict' });
    const later = new Date(NOW.getTime() + IDEMPOTENCY_WINDOW_MS - 1000);
    expect(keys.recall(scope, body, later).outcome).toBe('replay');
    const expired = new Date(NOW.getTime() + IDEMPOTENCY_WINDOW_MS);
    expect(keys.recall(scope, body, expired)).toEqual({ outcome: 'new' });
  });

  it('are per client and per operation', () => {
    const body = bodyFingerprint({ x: 1 });
    keys.remember({ ...scope, key: 'shared' }, body, 'dp-2', NOW);
    expect(keys.recall({ ...scope, key: 'shared', clientId: 'client-2' }, body, NOW)).toEqual({ outcome: 'new' });
    expect(
      keys.recall({ ...scope, key: 'shared', operation: 'POST /open-banking/v4.0/pisp/domestic-payment-consents' }, body, NOW),
    ).toEqual({
      outcome: 'new',
    });
  });
});

describe('the consent state machine, per kind', () => {
  const book = new ConsentBook(db);
  const base = { clientId: 'c', CreationDateTime: 'x', StatusUpdateDateTime: 'x' };
  const payment = (id: string): PaymentConsentRecord => ({
    ...base,
    kind: 'domestic-payment',
    ConsentId: id,
    Status: 'AwaitingAuthorisation',
    Data: {},
    Risk: {},
    amountMinor: 100,
  });

  it('a payment consent: AwaitingAuthorisation → Authorised → Consumed, once; never Revoked', () => {
    book.insert(payment('pdc-1'));
    expect(() => book.transition('pdc-1', 'consume', NOW)).toThrow(ConsentStateError);
    book.transition('pdc-1', 'authorise', NOW, { psuId: 'psu-alex', accountIds: ['a'] });
    expect(() => book.transition('pdc-1', 'revoke', NOW)).toThrow(ConsentStateError);
    expect(book.transition('pdc-1', 'consume', NOW, { paymentId: 'dp-9' })).toMatchObject({ Status: 'Consumed', paymentId: 'dp-9' });
    expect(() => book.transition('pdc-1', 'consume', NOW)).toThrow(ConsentStateError);
  });

  it('an account-access and a funds-confirmation consent are revoked by the TPP, never consumed', () => {
    const funds: AnyConsentRecord = {
      ...base,
      kind: 'funds-confirmation',
      ConsentId: 'fcc-1',
      Status: 'AwaitingAuthorisation',
      DebtorAccount: { SchemeName: 'UK.OBIE.IBAN', Identification: 'GB' },
    };
    const access: AnyConsentRecord = { ...base, ConsentId: 'aac-1', Status: 'AwaitingAuthorisation', Permissions: [] };
    for (const consent of [funds, access]) {
      book.insert(consent);
      book.transition(consent.ConsentId, 'authorise', NOW);
      expect(() => book.transition(consent.ConsentId, 'consume', NOW)).toThrow(ConsentStateError);
      expect(book.transition(consent.ConsentId, 'revoke', NOW).Status).toBe('Revoked');
    }
  });
});

describe('the balance overlay and the funds rule', () => {
  const bank = createBank('machinery', startOfUtcDay(NOW));
  const postings = new Postings(db);
  const overlaid = withPostings(bank, postings);
  const account = bank.accountsOf('psu-alex')[0];
  if (account === undefined) throw new Error('alex has no account');
  const posting = (id: string, amountMinor: number, time: number): Posting => ({
    transactionId: id,
    accountId: account.accountId,
    time,
    credit: false,
    amountMinor,
    codeName: 'paymentOut',
    information: 'FASTER PAYMENT TO ACME',
    reference: 'INV-1',
  });

  it('leaves an account nothing was posted to exactly as generated (the same ledger object)', () => {
    expect(overlaid.ledger(account.accountId)).toBe(bank.ledger(account.accountId));
  });

  it('lays postings after the generated entries, moving the balance, never before the newest entry', () => {
    const generated = bank.ledger(account.accountId);
    const end = ledgerEnd(generated);
    postings.post(posting('dp-a', 1234, NOW.getTime()), end);
    // A clock moved back: booked at the newest entry's time, not before it.
    postings.post(posting('dp-b', 100, end - 86_400_000), ledgerEnd(overlaid.ledger(account.accountId)));
    const ledger = overlaid.ledger(account.accountId);
    expect(ledger.transactions.length).toBe(generated.transactions.length + 2);
    expect(ledger.availableMinor).toBe(generated.availableMinor - 1334);
    const [first, second] = ledger.transactions.slice(-2);
    expect(first).toMatchObject({ transactionId: 'dp-a', status: 'Booked', credit: false, proprietaryCode: 'FPO', reference: 'INV-1' });
    expect(first?.balanceMinor).toBe(generated.availableMinor - 1234);
    expect(second?.time).toBe(NOW.getTime());
    // The generated ledger itself is untouched (the seed's bank stays the seed's).
    expect(bank.ledger(account.accountId).availableMinor).toBe(generated.availableMinor);
    // Read again without a new posting: the same overlaid ledger.
    expect(overlaid.ledger(account.accountId)).toBe(ledger);
  });

  it('finds funds within the available balance plus the pre-agreed overdraft, not beyond', () => {
    const limit = overlaid.ledger(account.accountId).availableMinor + account.creditLimitMinor;
    expect(fundsAvailable(overlaid, account, limit)).toBe(true);
    expect(fundsAvailable(overlaid, account, limit + 1)).toBe(false);
  });
});

describe('account identification', () => {
  const account = { sortCode: '401234', accountNumber: '12345678' };

  it('writes an IBAN ISO 13616 checks (mod 97 of the rearranged number is 1)', () => {
    const iban = ibanOf(account);
    expect(iban).toMatch(/^GB\d{2}OBFL40123412345678$/);
    const digits = `${iban.slice(4)}${iban.slice(0, 4)}`.replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
    expect(BigInt(digits) % 97n).toBe(1n);
  });

  it('names the account by sort code and account number, or IBAN (spaces and case aside), and nothing else', () => {
    expect(identifies(account, { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: '40123412345678' })).toBe(true);
    expect(
      identifies(account, {
        SchemeName: 'UK.OBIE.IBAN',
        Identification: ibanOf(account)
          .toLowerCase()
          .replace(/(.{4})/g, '$1 '),
      }),
    ).toBe(true);
    expect(identifies(account, { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: '40123412345679' })).toBe(false);
    expect(identifies(account, { SchemeName: 'UK.OBIE.BBAN', Identification: '40123412345678' })).toBe(false);
  });
});

describe('payment and funds requests', () => {
  const consent = (initiation: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): unknown => ({
    Data: {
      Initiation: {
        InstructionIdentification: 'I-1',
        EndToEndIdentification: 'E-1',
        InstructedAmount: { Amount: '10.50', Currency: 'GBP' },
        CreditorAccount: { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: '08080021325698', Name: 'ACME' },
        ...initiation,
      },
      ...extra,
    },
    Risk: {},
  });
  const errorsOf = (result: { ok: boolean; errors?: { ErrorCode: string; Path?: string }[] }): string[] =>
    (result.errors ?? []).map((error) => `${error.ErrorCode} ${error.Path ?? ''}`);

  it('a valid consent: its amount in pence', () => {
    const result = validatePaymentConsent(consent(), '3.1', 'strict-headless');
    expect(result).toMatchObject({ ok: true, value: { amountMinor: 1050 } });
  });

  it.each([
    ['no Data', { Risk: {} }, ['UK.OBIE.Field.Missing Data']],
    ['no Risk', { Data: (consent() as { Data: unknown }).Data }, ['UK.OBIE.Field.Missing Risk']],
    [
      'a member v3.1 does not define',
      consent({ UltimateCreditor: { Name: 'x' } }),
      ['UK.OBIE.Field.Unexpected Data.Initiation.UltimateCreditor'],
    ],
    [
      'an amount that is no amount',
      consent({ InstructedAmount: { Amount: '10,50', Currency: 'GBP' } }),
      ['UK.OBIE.Field.Invalid Data.Initiation.InstructedAmount.Amount'],
    ],
    [
      'three decimals of GBP',
      consent({ InstructedAmount: { Amount: '10.505', Currency: 'GBP' } }),
      ['UK.OBIE.Field.Invalid Data.Initiation.InstructedAmount.Amount'],
    ],
    [
      'zero',
      consent({ InstructedAmount: { Amount: '0.00', Currency: 'GBP' } }),
      ['UK.OBIE.Field.Invalid Data.Initiation.InstructedAmount.Amount'],
    ],
    [
      'EUR',
      consent({ InstructedAmount: { Amount: '1', Currency: 'EUR' } }),
      ['UK.OBIE.Unsupported.Currency Data.Initiation.InstructedAmount.Currency'],
    ],
    [
      'a creditor without a name',
      consent({ CreditorAccount: { SchemeName: 'UK.OBIE.IBAN', Identification: 'GB1' } }),
      ['UK.OBIE.Field.Missing Data.Initiation.CreditorAccount.Name'],
    ],
    [
      'a sort code account of 13 digits',
      consent({ CreditorAccount: { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: '0808002132569', Name: 'A' } }),
      ['UK.OBIE.Field.Invalid Data.Initiation.CreditorAccount.Identification'],
    ],
    [
      'a debtor as a PAN',
      consent({ DebtorAccount: { SchemeName: 'UK.OBIE.PAN', Identification: '5555' } }),
      ['UK.OBIE.Unsupported.Scheme Data.Initiation.DebtorAccount.SchemeName'],
    ],
    [
      'an unknown scheme',
      consent({ DebtorAccount: { SchemeName: 'UK.OBIE.Bitcoin', Identification: 'x' } }),
      ['UK.OBIE.Field.Invalid Data.Initiation.DebtorAccount.SchemeName'],
    ],
    ['ReadRefundAccount Maybe', consent({}, { ReadRefundAccount: 'Maybe' }), ['UK.OBIE.Field.Invalid Data.ReadRefundAccount']],
    [
      'an InstructionIdentification of 36 characters',
      consent({ InstructionIdentification: 'x'.repeat(36) }),
      ['UK.OBIE.Field.Invalid Data.Initiation.InstructionIdentification'],
    ],
  ])('a consent with %s is refused, the fault at its path', (_case, body, errors) => {
    expect(errorsOf(validatePaymentConsent(body, '3.1', 'strict-headless'))).toEqual(errors);
  });

  it('a member of v4.0 is one there; unknown members are dropped where tolerated (payment-unknown-fields), not echoed', () => {
    expect(validatePaymentConsent(consent({ UltimateCreditor: { Name: 'x' } }), '4.0', 'strict-headless').ok).toBe(true);
    const tolerated = validatePaymentConsent(
      consent({ Colour: 'blue', InstructedAmount: { Amount: '1', Currency: 'GBP', Extra: 1 } }),
      '4.0',
      'permissive-headless',
    );
    expect(tolerated.ok).toBe(true);
    const initiation = (tolerated as unknown as { value: { Data: { Initiation: Record<string, unknown> } } }).value.Data.Initiation;
    expect(initiation).not.toHaveProperty('Colour');
    expect(initiation.InstructedAmount).toEqual({ Amount: '1', Currency: 'GBP' });
    expect(errorsOf(validatePaymentConsent(consent({ Colour: 'blue' }), '4.0', 'strict-headless'))).toEqual([
      'UK.OBIE.Field.Unexpected Data.Initiation.Colour',
    ]);
  });

  it('a payment needs its ConsentId, Initiation and Risk; the first difference from the consent is named by path', () => {
    expect(errorsOf(validatePayment({ Data: { Initiation: {} }, Risk: {} }, '4.0', 'strict-headless'))).toEqual([
      'UK.OBIE.Field.Missing Data.ConsentId',
    ]);
    expect(firstDifference({ a: { b: '1', c: [1] } }, { a: { c: [1], b: '1' } }, 'Data.Initiation')).toBeUndefined();
    expect(firstDifference({ a: { b: '1.00' } }, { a: { b: '1.0' } }, 'Data.Initiation')).toBe('Data.Initiation.a.b');
    expect(firstDifference({ a: [1, 2] }, { a: [1] }, 'Risk')).toBe('Risk.a');
    expect(firstDifference({}, { extra: 1 }, 'Risk')).toBe('Risk.extra');
  });

  it('a funds consent names its debtor in a scheme of this bank, with an expiry in the future (an offset required)', () => {
    const debtor = { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: '40123412345678' };
    expect(
      validateFundsConsent(
        { Data: { DebtorAccount: debtor, ExpirationDateTime: '2026-04-01T10:00:00.5+01:00' } },
        '3.1',
        'strict-headless',
        NOW,
      ),
    ).toEqual({
      ok: true,
      value: { DebtorAccount: debtor, ExpirationDateTime: '2026-04-01T09:00:00.5+00:00' },
    });
    expect(
      errorsOf(
        validateFundsConsent(
          { Data: { DebtorAccount: debtor, ExpirationDateTime: '2026-02-01T10:00:00Z' } },
          '3.1',
          'strict-headless',
          NOW,
        ),
      ),
    ).toEqual(['UK.OBIE.Field.InvalidDate Data.ExpirationDateTime']);
    expect(
      errorsOf(
        validateFundsConsent({ Data: { DebtorAccount: debtor, ExpirationDateTime: '2026-04-01T10:00:00' } }, '3.1', 'strict-headless', NOW),
      ),
    ).toEqual(['UK.OBIE.Field.InvalidDate Data.ExpirationDateTime']);
    expect(
      validateFundsConsent(
        { Data: { DebtorAccount: debtor, ExpirationDateTime: '2026-04-01T10:00:00' } },
        '3.1',
        'permissive-headless',
        NOW,
      ).ok,
    ).toBe(true);
    expect(errorsOf(validateFundsConsent({ Data: {} }, '4.0', 'strict-headless', NOW))).toEqual([
      'UK.OBIE.Field.Missing Data.DebtorAccount',
    ]);
  });

  it('a funds confirmation: ConsentId, a Reference of at most 35 characters, an amount in GBP', () => {
    const data = { ConsentId: 'fcc-1', Reference: 'R', InstructedAmount: { Amount: '19.27', Currency: 'GBP' } };
    expect(validateFundsConfirmation({ Data: data }, '4.0', 'strict-headless')).toMatchObject({ ok: true, value: { amountMinor: 1927 } });
    expect(errorsOf(validateFundsConfirmation({ Data: { ...data, Reference: 'x'.repeat(36) } }, '4.0', 'strict-headless'))).toEqual([
      'UK.OBIE.Field.Invalid Data.Reference',
    ]);
    expect(
      errorsOf(
        validateFundsConfirmation({ Data: { ...data, InstructedAmount: { Amount: '1', Currency: 'USD' } } }, '4.0', 'strict-headless'),
      ),
    ).toEqual(['UK.OBIE.Unsupported.Currency Data.InstructedAmount.Currency']);
  });
});
