// The sandbox bank's data, generated from a seed (no fixtures): every holding of users.ts becomes an account with a
// UK sort code and account number, and a ledger of plausible transactions (card spending, direct debits, standing
// orders, Faster Payments, salary, interest, charges) whose running balance ends at the InterimAvailable balance.
// Ledgers are generated lazily per account and cached: the 10,250-entry business ledger takes a few milliseconds.

import {
  CODES,
  BUSINESS_CUSTOMERS,
  BUSINESS_DIRECT_DEBITS,
  BUSINESS_MERCHANTS,
  BUSINESS_SUPPLIERS,
  EMPLOYERS,
  PEOPLE,
  PERSONAL_MERCHANTS,
  UTILITIES,
} from './catalog.js';
import type { CodeName, Merchant } from './catalog.js';
import { randomStream } from './random.js';
import type { Random } from './random.js';
import { HOLDINGS, accountIdOf, userByPsuId } from './users.js';
import type { AccountHolding, AccountKind } from './users.js';

const DAY_MS = 86_400_000;

/** One account as the bank knows it (names follow OBAccount where they map onto it). */
export interface BankAccount {
  accountId: string;
  key: string;
  kind: AccountKind;
  /** psuIds of the holders; joint accounts have two. */
  holders: string[];
  accountType: 'Personal' | 'Business';
  accountSubType: 'CurrentAccount' | 'Savings';
  currency: 'GBP';
  /** OBAccount Description (≤ 35): the product, i.e. the account kind. */
  description: string;
  nickname: string;
  /** The account name (holders' names or the company's), ≤ 70 as OBCashAccount5 Name allows in v3.1.1. */
  name: string;
  sortCode: string;
  accountNumber: string;
  /** Pre-agreed overdraft in pence (0 for none); shown as a CreditLine that is not included in the balance. */
  creditLimitMinor: number;
  transactionCount: number;
}

export interface Counterparty {
  name: string;
  sortCode?: string;
  accountNumber?: string;
}

export interface CardUse {
  scheme: 'VISA' | 'MasterCard';
  authorisation: 'Contactless' | 'PIN' | 'ConsumerDevice';
  /** Masked PAN as printed on statements. */
  masked: string;
  holderName: string;
}

export interface BankTransaction {
  transactionId: string;
  /** Booking time, epoch milliseconds (whole seconds). */
  time: number;
  status: 'Booked' | 'Pending';
  credit: boolean;
  /** Positive, in pence. */
  amountMinor: number;
  /** Available balance after this entry, in pence (negative when overdrawn). */
  balanceMinor: number;
  code: string;
  subCode: string;
  proprietaryCode: string;
  information: string;
  reference: string | undefined;
  merchant: { name: string; categoryCode: string } | undefined;
  /** The other party: the creditor for a debit, the debtor for a credit. */
  counterparty: Counterparty | undefined;
  card: CardUse | undefined;
}

export interface Ledger {
  /** Oldest first; booking times strictly increasing. */
  transactions: BankTransaction[];
  /** InterimAvailable: booked and pending entries applied to the opening balance, in pence. */
  availableMinor: number;
  openingMinor: number;
}

export interface Bank {
  accounts(): readonly BankAccount[];
  /** The accounts a PSU holds (solely or jointly), in HOLDINGS order. */
  accountsOf(psuId: string): BankAccount[];
  /** The account's ledger, generated on first use and cached. */
  ledger(accountId: string): Ledger;
}

interface KindProfile {
  accountType: BankAccount['accountType'];
  accountSubType: BankAccount['accountSubType'];
  historyDays: number;
  opening: [number, number];
  creditLimit: number;
  /** Lowest available balance a generated debit may leave, as a fraction of the credit limit (0: never overdrawn). */
  overdraftUse: number;
  /** Entries in the last `pendingDays` days before asOf are still Pending (card authorisations, uncleared payments). */
  pendingDays: number;
}

const PROFILES: Record<AccountKind, KindProfile> = {
  'Personal Account': {
    accountType: 'Personal',
    accountSubType: 'CurrentAccount',
    historyDays: 365,
    opening: [150_000, 420_000],
    creditLimit: 50_000,
    overdraftUse: 0,
    pendingDays: 2,
  },
  'Personal Savings Account': {
    accountType: 'Personal',
    accountSubType: 'Savings',
    historyDays: 730,
    opening: [400_000, 1_500_000],
    creditLimit: 0,
    overdraftUse: 0,
    pendingDays: 0,
  },
  'Joint Account': {
    accountType: 'Personal',
    accountSubType: 'CurrentAccount',
    historyDays: 365,
    opening: [200_000, 600_000],
    creditLimit: 100_000,
    overdraftUse: 0,
    pendingDays: 2,
  },
  'Joint Savings Account': {
    accountType: 'Personal',
    accountSubType: 'Savings',
    historyDays: 730,
    opening: [600_000, 2_500_000],
    creditLimit: 0,
    overdraftUse: 0,
    pendingDays: 0,
  },
  'Business Current Account': {
    accountType: 'Business',
    accountSubType: 'CurrentAccount',
    historyDays: 730,
    opening: [2_500_000, 6_000_000],
    creditLimit: 1_000_000,
    overdraftUse: 0.5,
    pendingDays: 2,
  },
  'Business Savings Account': {
    accountType: 'Business',
    accountSubType: 'Savings',
    historyDays: 730,
    opening: [5_000_000, 15_000_000],
    creditLimit: 0,
    overdraftUse: 0,
    pendingDays: 0,
  },
};

/** Start of the UTC day of `now`: the generated history ends there, so it is the same all day for a seed. */
export function startOfUtcDay(now: Date): Date {
  return new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
}

export function createBank(seed: string, asOf: Date): Bank {
  const accounts = HOLDINGS.map((holding) => describeAccount(seed, holding));
  const byId = new Map(accounts.map((account) => [account.accountId, account]));
  const ledgers = new Map<string, Ledger>();
  const party = counterpartyBook(seed);
  return {
    accounts: () => accounts,
    accountsOf: (psuId) => accounts.filter((account) => account.holders.includes(psuId)),
    ledger(accountId) {
      let ledger = ledgers.get(accountId);
      if (!ledger) {
        const account = byId.get(accountId);
        if (!account) throw new TypeError(`unknown account ${accountId}`);
        ledger = generateLedger(seed, account, asOf, party);
        ledgers.set(accountId, ledger);
      }
      return ledger;
    },
  };
}

function describeAccount(seed: string, holding: AccountHolding): BankAccount {
  const random = randomStream(seed, `account/${holding.key}`);
  const profile = PROFILES[holding.kind];
  const names = holding.holders.map((psuId) => userByPsuId(psuId)?.displayName ?? psuId);
  return {
    accountId: accountIdOf(seed, holding.key),
    key: holding.key,
    kind: holding.kind,
    holders: [...holding.holders],
    accountType: profile.accountType,
    accountSubType: profile.accountSubType,
    currency: 'GBP',
    description: holding.kind,
    nickname: holding.nickname,
    name: (holding.accountName ?? names.join(' & ')).slice(0, 70),
    sortCode: `40${random.digits(4)}`,
    accountNumber: `${random.int(1, 9)}${random.digits(7)}`,
    creditLimitMinor: profile.creditLimit,
    transactionCount: holding.transactionCount,
  };
}

// ---- ledger generation ------------------------------------------------------------------------------------------

interface Draft {
  credit: boolean;
  amountMinor: number;
  codeName: CodeName;
  information: string;
  reference?: string;
  merchant?: Merchant;
  counterparty?: Counterparty;
  card?: boolean;
}

interface GenState {
  account: BankAccount;
  balanceMinor: number;
  /** Three-letter month of the entry being generated (references like "PAY NOV"). */
  month: string;
  party: (name: string) => Counterparty;
}

type Maker = (random: Random, state: GenState) => Draft;

interface MonthlyEvent {
  /** Day (1-30) of each 30-day cycle from which the event is due; it replaces the first entry on or after it. */
  day: number;
  make: Maker;
}

interface KindPlan {
  random: (readonly [Maker, number])[];
  monthly: MonthlyEvent[];
  /** A credit used instead of a debit that would take the balance under its floor. */
  topUp: Maker;
}

const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'] as const;
const FP_REFERENCES = ['DINNER', 'RENT SHARE', 'BIRTHDAY', 'THANKS', 'TICKETS', 'LOAN', 'HOLIDAY', 'BILLS', 'GIFT'];

/** Every payee and payer keeps one sort code and account number for the whole seed, as real counterparties do. */
function counterpartyBook(seed: string): (name: string) => Counterparty {
  const known = new Map<string, Counterparty>();
  return (name) => {
    let party = known.get(name);
    if (!party) {
      const random = randomStream(seed, `counterparty/${name}`);
      party = { name, sortCode: random.digits(6), accountNumber: `${random.int(1, 9)}${random.digits(7)}` };
      known.set(name, party);
    }
    return party;
  };
}

function person(random: Random, state: GenState): Counterparty {
  return state.party(random.pick(PEOPLE));
}

const card =
  (merchants: readonly Merchant[]): Maker =>
  (random) => {
    const merchant = random.pick(merchants);
    return {
      credit: false,
      amountMinor: random.int(merchant.min, merchant.max),
      codeName: 'cardPurchase',
      information: `${merchant.name} ${merchant.town} GB`,
      merchant,
      card: true,
    };
  };

const refund =
  (merchants: readonly Merchant[]): Maker =>
  (random) => {
    const merchant = random.pick(merchants);
    return {
      credit: true,
      amountMinor: random.int(merchant.min, merchant.max),
      codeName: 'cardRefund',
      information: `${merchant.name} REFUND`,
      merchant,
      card: true,
    };
  };

const directDebit =
  (payees: readonly { name: string; min: number; max: number }[]): Maker =>
  (random) => {
    const payee = random.pick(payees);
    return {
      credit: false,
      amountMinor: random.int(payee.min, payee.max),
      codeName: 'directDebit',
      information: `${payee.name} DD`,
      reference: random.digits(10),
      counterparty: { name: payee.name },
    };
  };

const cash: Maker = (random) => ({
  credit: false,
  amountMinor: random.pick([1000, 2000, 3000, 5000, 10_000]),
  codeName: 'cashWithdrawal',
  information: `CASH ${random.pick(['LINK ATM HIGH ST', 'POST OFFICE ATM', 'SAINSBURYS ATM', 'STATION RD ATM'])}`,
  card: true,
});

const paymentOut =
  (min: number, max: number): Maker =>
  (random, state) => {
    const to = person(random, state);
    const reference = random.pick(FP_REFERENCES);
    return {
      credit: false,
      amountMinor: random.int(min, max),
      codeName: 'paymentOut',
      information: `${to.name} ${reference}`,
      reference,
      counterparty: to,
    };
  };

const paymentIn =
  (min: number, max: number): Maker =>
  (random, state) => {
    const from = person(random, state);
    const reference = random.pick(FP_REFERENCES);
    return {
      credit: true,
      amountMinor: random.int(min, max),
      codeName: 'paymentIn',
      information: `${from.name} ${reference}`,
      reference,
      counterparty: from,
    };
  };

const transferIn =
  (min: number, max: number, label: string): Maker =>
  (random, state) => ({
    credit: true,
    amountMinor: random.int(min, max),
    codeName: 'transferIn',
    information: label,
    reference: `TFR ${state.month}`,
    counterparty: { name: state.account.name },
  });

const transferOut =
  (min: number, max: number, label: string): Maker =>
  (random, state) => ({
    credit: false,
    amountMinor: random.int(min, max),
    codeName: 'transferOut',
    information: label,
    reference: `TFR ${state.month}`,
    counterparty: { name: state.account.name },
  });

const salary =
  (employer: string, amountMinor: number): Maker =>
  (random, state) => ({
    credit: true,
    amountMinor: amountMinor + random.int(0, 4) * 1_250,
    codeName: 'salary',
    information: `${employer} SALARY`,
    reference: `PAY ${state.month}`,
    counterparty: state.party(employer),
  });

const interest =
  (annualRate: number): Maker =>
  (_random, state) => ({
    credit: true,
    amountMinor: Math.max(1, Math.round((Math.max(state.balanceMinor, 0) * annualRate) / 12)),
    codeName: 'interest',
    information: 'GROSS INTEREST',
  });

function planFor(account: BankAccount, seed: string): KindPlan {
  const fixed = randomStream(seed, `plan/${account.key}`);
  switch (account.kind) {
    case 'Personal Account': {
      const employer = fixed.pick(EMPLOYERS);
      return {
        random: [
          [card(PERSONAL_MERCHANTS), 62],
          [directDebit(UTILITIES), 9],
          [cash, 5],
          [paymentOut(1_000, 25_000), 8],
          [paymentIn(1_000, 20_000), 6],
          [refund(PERSONAL_MERCHANTS), 2],
        ],
        monthly: [
          { day: 25, make: salary(employer, fixed.int(170, 210) * 1_000) },
          {
            day: 1,
            make: (random, state) => ({
              credit: false,
              amountMinor: 95_000,
              codeName: 'standingOrder',
              information: 'TAILSPIN LETTINGS RENT',
              reference: `RENT ${state.month}`,
              counterparty: state.party('TAILSPIN LETTINGS'),
            }),
          },
          { day: 26, make: transferOut(20_000, 40_000, 'TRANSFER TO SAVINGS') },
        ],
        topUp: paymentIn(5_000, 30_000),
      };
    }
    case 'Joint Account': {
      const [first, second] = account.holders.map((psuId) => (userByPsuId(psuId)?.displayName ?? psuId).toUpperCase());
      return {
        random: [
          [card(PERSONAL_MERCHANTS), 62],
          [directDebit(UTILITIES), 14],
          [cash, 3],
          [paymentOut(1_500, 30_000), 6],
          [refund(PERSONAL_MERCHANTS), 2],
        ],
        monthly: [
          { day: 26, make: transferIn(110_000, 130_000, `${first ?? 'HOLDER'} CONTRIBUTION`) },
          { day: 27, make: transferIn(110_000, 130_000, `${second ?? 'HOLDER'} CONTRIBUTION`) },
          {
            day: 1,
            make: (random, state) => ({
              credit: false,
              amountMinor: 124_317,
              codeName: 'directDebit',
              information: 'WOODGROVE MORTGAGES DD',
              reference: `MTG ${state.month}`,
              counterparty: { name: 'WOODGROVE MORTGAGES' },
            }),
          },
        ],
        topUp: transferIn(20_000, 60_000, 'CONTRIBUTION'),
      };
    }
    case 'Business Current Account':
      return {
        random: [
          [
            (random, state) => ({
              credit: true,
              amountMinor: random.int(5_000, 95_000),
              codeName: 'paymentIn',
              information: `${random.pick(['SUMUP PAYMENTS', 'STRIPE PAYMENTS UK'])} PAYOUT`,
              counterparty: state.party('CARD ACQUIRER SETTLEMENT'),
            }),
            22,
          ],
          [
            (random, state) => {
              const reference = `INV-${random.int(1000, 9999)}`;
              const name = random.pick(BUSINESS_CUSTOMERS);
              return {
                credit: true,
                amountMinor: random.int(25_000, 650_000),
                codeName: 'paymentIn',
                information: `${name} ${reference}`,
                reference,
                counterparty: state.party(name),
              };
            },
            10,
          ],
          [
            (random, state) => {
              const reference = `PO${random.digits(6)}`;
              const name = random.pick(BUSINESS_SUPPLIERS);
              return {
                credit: false,
                amountMinor: random.int(8_000, 280_000),
                codeName: 'paymentOut',
                information: `${name} ${reference}`,
                reference,
                counterparty: state.party(name),
              };
            },
            18,
          ],
          [card(BUSINESS_MERCHANTS), 34],
          [directDebit(BUSINESS_DIRECT_DEBITS), 4],
          [paymentOut(20_000, 150_000), 8],
        ],
        monthly: [
          {
            day: 28,
            make: (random, state) => ({
              credit: false,
              amountMinor: random.int(650_000, 820_000),
              codeName: 'payroll',
              information: `PAYROLL ${state.month}`,
              reference: `PAYROLL ${state.month}`,
            }),
          },
          {
            day: 1,
            make: (random) => ({
              credit: false,
              amountMinor: random.int(1_500, 4_500),
              codeName: 'charges',
              information: 'BUSINESS BANKING CHARGES',
            }),
          },
          { day: 15, make: transferOut(150_000, 300_000, 'TRANSFER TO TAX RESERVE') },
        ],
        topUp: (random, state) => {
          const reference = `INV-${random.int(1000, 9999)}`;
          const name = random.pick(BUSINESS_CUSTOMERS);
          return {
            credit: true,
            amountMinor: random.int(150_000, 900_000),
            codeName: 'paymentIn',
            information: `${name} ${reference}`,
            reference,
            counterparty: state.party(name),
          };
        },
      };
    case 'Personal Savings Account':
    case 'Joint Savings Account':
    case 'Business Savings Account': {
      const business = account.kind === 'Business Savings Account';
      const scale = business ? 10 : 1;
      return {
        random: [
          [transferIn(5_000 * scale, 50_000 * scale, 'TRANSFER FROM CURRENT'), 55],
          [transferOut(5_000 * scale, 40_000 * scale, 'TRANSFER TO CURRENT'), 45],
        ],
        monthly: [{ day: 1, make: interest(business ? 0.031 : 0.0405) }],
        topUp: transferIn(10_000 * scale, 60_000 * scale, 'TRANSFER FROM CURRENT'),
      };
    }
  }
}

function generateLedger(seed: string, account: BankAccount, asOf: Date, party: (name: string) => Counterparty): Ledger {
  const profile = PROFILES[account.kind];
  const random = randomStream(seed, `ledger/${account.key}`);
  const plan = planFor(account, seed);
  const count = account.transactionCount;
  const days = profile.historyDays;
  const start = asOf.getTime() - days * DAY_MS;
  const pendingFrom = asOf.getTime() - profile.pendingDays * DAY_MS;
  const floor = -Math.round(account.creditLimitMinor * profile.overdraftUse);
  const openingMinor = random.int(profile.opening[0] / 100, profile.opening[1] / 100) * 100;
  const idPrefix = account.accountId.slice(-8);
  const holderNames = account.holders.map((psuId) => userByPsuId(psuId)?.displayName ?? psuId);
  const cards = holderNames.map((holderName) => ({ masked: `************${random.digits(4)}`, holderName }));
  const scheme: CardUse['scheme'] = account.accountType === 'Business' ? 'MasterCard' : 'VISA';
  const fired = plan.monthly.map(() => -1);
  const transactions: BankTransaction[] = new Array<BankTransaction>(count);
  let balance = openingMinor;
  // Shared, never-mutated sub-objects keep a 10,000-entry ledger to a few milliseconds and little garbage.
  const cardUses = cards.flatMap((holder) =>
    (['Contactless', 'PIN', 'ConsumerDevice'] as const).map((authorisation): CardUse => ({
      scheme,
      authorisation,
      masked: holder.masked,
      holderName: holder.holderName,
    })),
  );
  const authorisations = [
    [0, 6],
    [1, 2],
    [2, 2],
  ] as const;
  const merchants = new Map<Merchant, { name: string; categoryCode: string }>();
  const state: GenState = { account, balanceMinor: balance, month: 'JAN', party };
  let currentDay = -1;
  let dayOfCycle = 1;
  let cycle = 0;

  for (let i = 0; i < count; i++) {
    // Entry i falls in [i, i+1) of `count` equal slices of the history; inside its day it lands between 07:00 and
    // 22:00 UTC, so booking times are strictly increasing and look like a day's activity.
    const dayFloat = ((i + 0.05 + random.next() * 0.9) * days) / count;
    const day = Math.floor(dayFloat);
    const time = Math.floor((start + day * DAY_MS + 7 * 3_600_000 + (dayFloat - day) * 15 * 3_600_000) / 1000) * 1000;
    if (day !== currentDay) {
      currentDay = day;
      // Monthly events follow 30-day cycles counted back from asOf, not the calendar: the amounts and ids of a seed
      // are then the same whichever day the sandbox starts; only the dates (and month names) move with asOf.
      const back = days - 1 - day;
      cycle = Math.floor(back / 30);
      dayOfCycle = 30 - (back % 30);
      state.month = MONTHS[new Date(time).getUTCMonth()] ?? 'JAN';
    }
    state.balanceMinor = balance;

    let draft: Draft | undefined;
    for (let e = 0; e < plan.monthly.length; e++) {
      const event = plan.monthly[e];
      if (event && fired[e] !== cycle && dayOfCycle >= event.day && i > 0) {
        fired[e] = cycle;
        draft = event.make(random, state);
        break;
      }
    }
    draft ??= random.weighted(plan.random)(random, state);
    if (!draft.credit && balance - draft.amountMinor < floor) draft = plan.topUp(random, state);
    balance += draft.credit ? draft.amountMinor : -draft.amountMinor;

    let merchant: BankTransaction['merchant'];
    if (draft.merchant) {
      merchant = merchants.get(draft.merchant);
      if (!merchant) {
        merchant = { name: draft.merchant.name, categoryCode: draft.merchant.mcc };
        merchants.set(draft.merchant, merchant);
      }
    }
    const cardUse = draft.card ? cardUses[Math.floor(random.next() * cards.length) * 3 + random.weighted(authorisations)] : undefined;
    const codes = CODES[draft.codeName];
    // One object shape for every entry (all fields present) keeps property access monomorphic.
    const entry: BankTransaction = {
      transactionId: `${idPrefix}${String(i + 1).padStart(7, '0')}`,
      time,
      status: time >= pendingFrom ? 'Pending' : 'Booked',
      credit: draft.credit,
      amountMinor: draft.amountMinor,
      balanceMinor: balance,
      code: codes.code,
      subCode: codes.subCode,
      proprietaryCode: codes.proprietary,
      information: draft.information,
      reference: draft.reference,
      merchant,
      counterparty: draft.counterparty,
      card: cardUse,
    };
    transactions[i] = entry;
  }
  return { transactions, availableMinor: balance, openingMinor };
}

/** Pence → OBIE amount string ("1234.50"); the sign goes in CreditDebitIndicator. */
export function formatAmount(minor: number): string {
  const abs = Math.abs(minor);
  return `${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
