// The sandbox's three test users (the PSUs of the login page) and which accounts each holds. Account ids and the
// rest of each account (identification, balances, transactions) derive from the seed in data/, never from fixtures.
// The credentials are public sandbox credentials, documented in the README.

import { createHash } from 'node:crypto';

export type AccountKind =
  | 'Personal Account'
  | 'Personal Savings Account'
  | 'Joint Account'
  | 'Joint Savings Account'
  | 'Business Current Account'
  | 'Business Savings Account';

export interface TestUser {
  /** Stable PSU id (the id token's subject is the consent; this is the login identity). */
  psuId: string;
  username: string;
  password: string;
  displayName: string;
}

export interface AccountHolding {
  /** Stable key inside the seed, e.g. "alex/personal". */
  key: string;
  kind: AccountKind;
  /** userIds of the holders; joint accounts have two. */
  holders: string[];
  /** How many transactions the generator makes for it. */
  transactionCount: number;
  /** The nickname the holders gave it (OBAccount Nickname; shown on the consent page). */
  nickname: string;
  /** The account name when it is not the holders' names (business accounts carry the company's name). */
  accountName?: string;
}

export const TEST_USERS: readonly TestUser[] = [
  { psuId: 'psu-alex', username: 'alex', password: 'alex-sandbox-1', displayName: 'Alex Morgan' },
  { psuId: 'psu-sam', username: 'sam', password: 'sam-sandbox-2', displayName: 'Sam Patel' },
  { psuId: 'psu-jo', username: 'jo', password: 'jo-sandbox-3', displayName: 'Jo Evans' },
];

/** The user a headless authorisation logs in as unless `login_hint` names another. */
export const DEFAULT_TEST_USER = 'alex';

/**
 * Holdings: Alex (the default) has a personal, a savings and two joint accounts shared with Sam; Sam holds exactly
 * three accounts (the browser test picks two of them); Jo runs a business whose current account carries the 10,000+
 * transactions used for pagination tests and benchmarks.
 */
export const HOLDINGS: readonly AccountHolding[] = [
  { key: 'alex/personal', kind: 'Personal Account', holders: ['psu-alex'], transactionCount: 240, nickname: 'Everyday' },
  { key: 'alex/savings', kind: 'Personal Savings Account', holders: ['psu-alex'], transactionCount: 36, nickname: 'Rainy day' },
  { key: 'alex-sam/joint', kind: 'Joint Account', holders: ['psu-alex', 'psu-sam'], transactionCount: 310, nickname: 'Household' },
  {
    key: 'alex-sam/joint-savings',
    kind: 'Joint Savings Account',
    holders: ['psu-alex', 'psu-sam'],
    transactionCount: 48,
    nickname: 'Holiday fund',
  },
  { key: 'sam/personal', kind: 'Personal Account', holders: ['psu-sam'], transactionCount: 180, nickname: 'Sam current' },
  {
    key: 'jo/business-current',
    kind: 'Business Current Account',
    holders: ['psu-jo'],
    transactionCount: 10_250,
    nickname: 'Evans Joinery',
    accountName: 'EVANS JOINERY LTD',
  },
  {
    key: 'jo/business-savings',
    kind: 'Business Savings Account',
    holders: ['psu-jo'],
    transactionCount: 60,
    nickname: 'Tax reserve',
    accountName: 'EVANS JOINERY LTD',
  },
];

/** The user who logs in with `username` (the login form, login_hint); a psuId is not a username. */
export function userByUsername(username: string): TestUser | undefined {
  return TEST_USERS.find((user) => user.username === username);
}

/** The user with this stable PSU id (account holders, an interaction's logged-in PSU). */
export function userByPsuId(psuId: string): TestUser | undefined {
  return TEST_USERS.find((user) => user.psuId === psuId);
}

/** AccountId for a holding under a seed: 22 digits, stable for the same seed (OBIE ids are opaque strings ≤ 40). */
export function accountIdOf(seed: string, key: string): string {
  const digest = createHash('sha256').update(`${seed}\u0000account\u0000${key}`).digest();
  let id = '';
  for (const byte of digest.subarray(0, 22)) id += String(byte % 10);
  return `7${id.slice(1)}`;
}

export function holdingsOf(psuId: string): AccountHolding[] {
  return HOLDINGS.filter((holding) => holding.holders.includes(psuId));
}
