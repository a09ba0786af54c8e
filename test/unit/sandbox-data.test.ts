// The sandbox bank's generated data: deterministic from the seed, every account kind, joint holdings, UK
// identifications, and ledgers whose running balance ends at the InterimAvailable balance.

import { describe, expect, it } from 'vitest';

import { createBank, formatAmount, startOfUtcDay } from '../../src/sandbox/data/bank.js';
import { randomStream } from '../../src/sandbox/data/random.js';
import {
  accountIdOf,
  DEFAULT_TEST_USER,
  HOLDINGS,
  holdingsOf,
  TEST_USERS,
  userByPsuId,
  userByUsername,
} from '../../src/sandbox/data/users.js';

const AS_OF = new Date('2026-03-15T00:00:00Z');

describe('random streams', () => {
  it('repeat for the same seed and stream, differ otherwise', () => {
    const draw = (seed: string, stream: string): number[] => {
      const random = randomStream(seed, stream);
      return Array.from({ length: 8 }, () => random.int(0, 1_000_000));
    };
    expect(draw('a', 's')).toEqual(draw('a', 's'));
    expect(draw('a', 's')).not.toEqual(draw('b', 's'));
    expect(draw('a', 's')).not.toEqual(draw('a', 't'));
  });
});

describe('users and holdings', () => {
  it('keeps the login-page exports: three users, the default one, holdings by user', () => {
    expect(TEST_USERS.map((user) => user.username)).toEqual(['alex', 'sam', 'jo']);
    expect(userByUsername(DEFAULT_TEST_USER)?.psuId).toBe('psu-alex');
    // Usernames and PSU ids are separate lookups: a login form or login_hint never accepts a psuId.
    expect(userByUsername('psu-alex')).toBeUndefined();
    expect(userByPsuId('psu-alex')?.username).toBe('alex');
    expect(userByPsuId('alex')).toBeUndefined();
    expect(holdingsOf('psu-sam')).toHaveLength(3);
    expect(accountIdOf('s', 'alex/personal')).toMatch(/^7\d{21}$/);
  });

  it('covers every account kind of bank-interface §2.2, with joint accounts held by two users', () => {
    expect(new Set(HOLDINGS.map((holding) => holding.kind))).toEqual(
      new Set([
        'Personal Account',
        'Personal Savings Account',
        'Joint Account',
        'Joint Savings Account',
        'Business Current Account',
        'Business Savings Account',
      ]),
    );
    for (const holding of HOLDINGS) expect(holding.holders).toHaveLength(holding.kind.startsWith('Joint') ? 2 : 1);
    expect(Math.max(...HOLDINGS.map((holding) => holding.transactionCount))).toBeGreaterThanOrEqual(10_000);
  });
});

describe('createBank', () => {
  const bank = createBank('unit-seed', AS_OF);

  it('gives every account a sort code, an account number and the seed-derived AccountId', () => {
    const accounts = bank.accounts();
    expect(accounts.map((account) => account.key)).toEqual(HOLDINGS.map((holding) => holding.key));
    for (const account of accounts) {
      expect(account.accountId).toBe(accountIdOf('unit-seed', account.key));
      expect(account.sortCode).toMatch(/^\d{6}$/);
      expect(account.accountNumber).toMatch(/^[1-9]\d{7}$/);
      expect(account.name.length).toBeLessThanOrEqual(70);
      expect(account.description.length).toBeLessThanOrEqual(35);
    }
    expect(new Set(accounts.map((account) => `${account.sortCode}${account.accountNumber}`)).size).toBe(accounts.length);
    expect(bank.accountsOf('psu-sam').map((account) => account.key)).toEqual(['alex-sam/joint', 'alex-sam/joint-savings', 'sam/personal']);
  });

  it('is deterministic: the same seed gives the same data, another seed other data', () => {
    const again = createBank('unit-seed', AS_OF);
    const other = createBank('other-seed', AS_OF);
    const key = (b: typeof bank): string => b.accounts()[0]?.accountId ?? '';
    expect(again.ledger(key(again))).toEqual(bank.ledger(key(bank)));
    expect(again.accounts()).toEqual(bank.accounts());
    expect(other.accounts()[0]?.accountNumber).not.toBe(bank.accounts()[0]?.accountNumber);
    expect(other.ledger(key(other)).transactions.map((t) => t.amountMinor)).not.toEqual(
      bank.ledger(key(bank)).transactions.map((t) => t.amountMinor),
    );
  });

  it('keeps amounts and ids when only the day moves; the history ends before asOf', () => {
    const later = createBank('unit-seed', new Date(AS_OF.getTime() + 7 * 86_400_000));
    const id = bank.accounts()[0]?.accountId ?? '';
    const a = bank.ledger(id).transactions;
    const b = later.ledger(id).transactions;
    expect(b.map((t) => [t.transactionId, t.amountMinor, t.credit])).toEqual(a.map((t) => [t.transactionId, t.amountMinor, t.credit]));
    expect((b[0]?.time ?? 0) - (a[0]?.time ?? 0)).toBe(7 * 86_400_000);
    expect(startOfUtcDay(new Date('2026-03-15T17:45:12.345Z')).toISOString()).toBe('2026-03-15T00:00:00.000Z');
  });

  it.each(HOLDINGS.map((holding) => holding.key))('%s: a consistent ledger', (key) => {
    const account = bank.accounts().find((candidate) => candidate.key === key);
    if (!account) throw new Error(key);
    const ledger = bank.ledger(account.accountId);
    const entries = ledger.transactions;
    expect(entries).toHaveLength(account.transactionCount);
    let balance = ledger.openingMinor;
    let previous = Number.NEGATIVE_INFINITY;
    for (const entry of entries) {
      balance += entry.credit ? entry.amountMinor : -entry.amountMinor;
      expect(entry.balanceMinor).toBe(balance);
      expect(entry.amountMinor).toBeGreaterThan(0);
      expect(entry.time).toBeGreaterThan(previous);
      expect(entry.time).toBeLessThan(AS_OF.getTime());
      expect(entry.time % 1000).toBe(0);
      expect(entry.code.length).toBeLessThanOrEqual(4);
      expect(entry.subCode.length).toBeLessThanOrEqual(4);
      expect(entry.balanceMinor).toBeGreaterThanOrEqual(-account.creditLimitMinor);
      previous = entry.time;
    }
    expect(ledger.availableMinor).toBe(balance);
    expect(new Set(entries.map((entry) => entry.transactionId)).size).toBe(entries.length);
    expect(entries.some((entry) => entry.credit)).toBe(true);
    expect(entries.some((entry) => !entry.credit)).toBe(true);
    if (account.accountSubType === 'CurrentAccount') {
      expect(entries.some((entry) => entry.status === 'Pending')).toBe(true);
      expect(entries.some((entry) => entry.merchant !== undefined && entry.card !== undefined)).toBe(true);
      expect(new Set(entries.map((entry) => entry.proprietaryCode)).size).toBeGreaterThan(3);
    }
    // Pending entries are the most recent ones.
    const firstPending = entries.findIndex((entry) => entry.status === 'Pending');
    if (firstPending >= 0) expect(entries.slice(firstPending).every((entry) => entry.status === 'Pending')).toBe(true);
  });

  it('formats pence as OBIE amounts', () => {
    expect(formatAmount(0)).toBe('0.00');
    expect(formatAmount(5)).toBe('0.05');
    expect(formatAmount(-123_456)).toBe('1234.56');
    expect(formatAmount(100_000_000_00)).toBe('100000000.00');
  });
});
