// The balance overlay, family-agnostic: entries a payment (or, later, a VRP) posts to an account, stored one row each
// and laid over the generated ledger, so the seeded bank stays deterministic (data/bank.ts derives it from the seed
// alone) while balances and transactions read through AIS show what was paid. A posting is written in the transaction
// of the payment that made it (store/db.ts SandboxDb.transaction).

import type { Bank, BankAccount, BankTransaction, Counterparty, Ledger } from '../data/bank.js';
import { CODES } from '../data/catalog.js';
import type { CodeName } from '../data/catalog.js';
import { SORT_CODE_SCHEME } from '../data/identification.js';
import type { Collection, SandboxDb } from './db.js';

/** One entry posted to an account by the bank itself (not generated from the seed). */
export interface Posting {
  /** The AIS TransactionId it reads as (the payment's id). */
  transactionId: string;
  accountId: string;
  /** Booking time, epoch milliseconds (whole seconds, never before the account's last entry). */
  time: number;
  credit: boolean;
  /** Positive, in minor units (pence). */
  amountMinor: number;
  /** Its bank transaction code (data/catalog.ts CODES): a Faster Payment out is `paymentOut`. */
  codeName: CodeName;
  information: string;
  reference?: string;
  counterparty?: Counterparty;
}

/** How many postings an account has: read on every ledger read (a cached value), so an account nothing was posted to
 *  costs one map look-up and reads its generated ledger unchanged. */
interface PostingHead {
  count: number;
  /** The newest posting's time: the next one is never earlier (the ledger stays in booking order). */
  lastTime: number;
}

/** The postings of one data directory. */
export class Postings {
  private readonly entries: Collection<Posting>;
  private readonly heads: Collection<PostingHead>;

  constructor(db: SandboxDb) {
    // Tagged with the account: an account's postings are one index look-up, in the order they were made.
    this.entries = db.collection<Posting>({ name: 'postings', tag: (posting) => posting.accountId });
    this.heads = db.collection<PostingHead>({ name: 'posting-heads' });
  }

  /** How many postings `accountId` has (0: none). */
  count(accountId: string): number {
    return this.heads.get(accountId)?.count ?? 0;
  }

  /** The account's postings, oldest first. */
  of(accountId: string): Posting[] {
    if (this.count(accountId) === 0) return [];
    return this.entries.withTag(accountId).map(([, posting]) => posting);
  }

  /**
   * Posts `posting` (call it inside the transaction that makes the payment). Its time is moved up to the account's
   * newest entry when the clock says earlier (a test clock moved back), so the ledger stays in booking order.
   */
  post(posting: Posting, ledgerEnd: number): Posting {
    const head = this.heads.get(posting.accountId);
    const time = Math.max(posting.time, head?.lastTime ?? Number.NEGATIVE_INFINITY, ledgerEnd);
    const stored: Posting = { ...posting, time };
    this.entries.set(posting.transactionId, stored);
    this.heads.set(posting.accountId, { count: (head?.count ?? 0) + 1, lastTime: time });
    return stored;
  }
}

/**
 * `bank` with every account's postings laid over its generated ledger: the same accounts, each ledger the generated
 * entries followed by the postings (running balance carried on), its available balance moved by them. A ledger with
 * postings is rebuilt only when another posting was made; one without is the generated ledger itself.
 */
export function withPostings(bank: Bank, postings: Postings): Bank {
  const laid = new Map<string, { count: number; ledger: Ledger }>();
  return {
    accounts: () => bank.accounts(),
    accountsOf: (psuId) => bank.accountsOf(psuId),
    ledger(accountId) {
      const base = bank.ledger(accountId);
      const count = postings.count(accountId);
      if (count === 0) return base;
      const kept = laid.get(accountId);
      if (kept !== undefined && kept.count === count) return kept.ledger;
      const ledger = overlay(base, postings.of(accountId));
      laid.set(accountId, { count, ledger });
      return ledger;
    },
  };
}

/** The generated ledger followed by the postings, each with the running balance after it. */
export function overlay(base: Ledger, posted: readonly Posting[]): Ledger {
  const transactions: BankTransaction[] = [...base.transactions];
  let balance = base.availableMinor;
  for (const posting of posted) {
    balance += posting.credit ? posting.amountMinor : -posting.amountMinor;
    const codes = CODES[posting.codeName];
    transactions.push({
      transactionId: posting.transactionId,
      time: posting.time,
      // A Faster Payment the bank has accepted is booked at once.
      status: 'Booked',
      credit: posting.credit,
      amountMinor: posting.amountMinor,
      balanceMinor: balance,
      code: codes.code,
      subCode: codes.subCode,
      proprietaryCode: codes.proprietary,
      information: posting.information,
      reference: posting.reference,
      merchant: undefined,
      counterparty: posting.counterparty,
      card: undefined,
    });
  }
  return { transactions, availableMinor: balance, openingMinor: base.openingMinor };
}

/** The time of the ledger's newest entry (a posting is never booked before it). */
export function ledgerEnd(ledger: Ledger): number {
  return ledger.transactions.at(-1)?.time ?? Number.NEGATIVE_INFINITY;
}

/**
 * The debit a Faster Payment out posts to its debtor account (data/catalog.ts paymentOut), for a domestic payment and
 * a VRP alike: `FASTER PAYMENT TO <PAYEE>`, the payee's sort code and account number when it is named by them, and
 * the reference the creditor sees (at most 35 characters).
 */
export function fasterPaymentOut(payment: {
  transactionId: string;
  accountId: string;
  time: number;
  amountMinor: number;
  creditor: { SchemeName?: string; Identification?: string; Name?: string } | undefined;
  reference: string | undefined;
}): Posting {
  const creditor = payment.creditor ?? {};
  const name = creditor.Name ?? 'PAYEE';
  const sortCodeAccount =
    creditor.SchemeName === SORT_CODE_SCHEME && creditor.Identification !== undefined ? creditor.Identification : undefined;
  return {
    transactionId: payment.transactionId,
    accountId: payment.accountId,
    time: payment.time,
    credit: false,
    amountMinor: payment.amountMinor,
    codeName: 'paymentOut',
    information: `FASTER PAYMENT TO ${name.toUpperCase()}`.slice(0, 500),
    ...(payment.reference === undefined ? {} : { reference: payment.reference.slice(0, 35) }),
    counterparty: {
      name,
      ...(sortCodeAccount === undefined ? {} : { sortCode: sortCodeAccount.slice(0, 6), accountNumber: sortCodeAccount.slice(6) }),
    },
  };
}

/**
 * Whether `account` can pay `amountMinor` now: its available balance plus its pre-agreed overdraft (the CreditLine the
 * AIS balance shows as not included) covers it. The one funds rule of the bank: a payment consent's funds check, a
 * payment (refused for want of funds otherwise) and a CBPII funds confirmation all ask it.
 */
export function fundsAvailable(bank: Bank, account: BankAccount, amountMinor: number): boolean {
  return bank.ledger(account.accountId).availableMinor + account.creditLimitMinor >= amountMinor;
}
