// What the PSU's authorisation does with each kind of consent, one row per kind (the authorisation side's seam:
// auth/authorize.ts and auth/interaction.ts ask the row, never the kind): the scope the authorisation request must
// carry, which of the PSU's accounts the consent may be authorised for (and how many), what the headless default user
// picks, what the consent page shows, and how long the access token of an authorised consent lasts.

import type {
  AnyConsentRecord,
  CashAccount,
  ConsentKind,
  ConsentRecord,
  FundsConsentRecord,
  PaymentConsentRecord,
  VrpConsentRecord,
} from './contracts.js';
import { consentKindOf } from './contracts.js';
import type { Bank, BankAccount } from './data/bank.js';
import { identifies } from './data/identification.js';
import { familyOfConsentKind } from './families.js';
import { mandateLines } from './mandate-lines.js';

/**
 * Which accounts the PSU may authorise the consent for: `many` (tick any of them), `one` (pick one), `fixed` (the one
 * the consent names, theirs), or `none` (the consent names an account the PSU does not hold: PISP v4.0 "If the
 * DebtorAccount is specified by the PISP and is invalid for the PSU, then the domestic-payment-consent will be set to
 * Rejected after PSU authentication").
 */
export type AccountChoice = { choose: 'many' | 'one' | 'fixed'; accounts: readonly BankAccount[] } | { choose: 'none'; reason: string };

/** A line of the consent page: what the PSU agrees to. */
export interface ConsentLine {
  label: string;
  value: string;
}

export interface ConsentKindRow {
  kind: ConsentKind;
  /** The scope an authorisation request for it must carry (its family's). */
  scope: string;
  /** The page's heading and account legend, by the skin's words. */
  page: 'account-access' | 'payment' | 'funds' | 'mandate';
  accounts(consent: AnyConsentRecord, psuId: string, bank: Bank): AccountChoice;
  /** What the headless default user authorises: every account offered, the fixed one, or the first GBP current account. */
  headless(choice: AccountChoice): readonly BankAccount[] | undefined;
  /** The consent page's lines (the permissions of an account-access consent are listed by the page itself). */
  lines(consent: AnyConsentRecord): ConsentLine[];
  /** How long an access token of the authorised consent lasts, in seconds from `now` (absent: the bank's default). */
  accessTokenSeconds?(consent: AnyConsentRecord, now: Date): number;
}

/** A VRP consent's tokens: ten years, as good as for ever for a sandbox (the store needs an end). */
export const OPEN_ENDED_TOKEN_SECONDS = 10 * 366 * 24 * 3600;

/** The account a payment or funds-confirmation consent names, or the PSU's choice among their GBP accounts. */
function namedOrChosen(named: CashAccount | undefined, psuId: string, bank: Bank): AccountChoice {
  const own = bank.accountsOf(psuId).filter((account) => account.currency === 'GBP');
  if (named === undefined) return { choose: 'one', accounts: own };
  const account = own.find((candidate) => identifies(candidate, named));
  return account === undefined
    ? { choose: 'none', reason: `the consent's debtor account (${named.SchemeName} ${named.Identification}) is not one of your accounts` }
    : { choose: 'fixed', accounts: [account] };
}

/** The first GBP current account of a choice of one (the headless default), else the fixed account. */
function singleAccount(choice: AccountChoice): readonly BankAccount[] | undefined {
  if (choice.choose === 'none') return undefined;
  if (choice.choose === 'fixed') return choice.accounts;
  const current = choice.accounts.find((account) => account.accountSubType === 'CurrentAccount');
  return current === undefined ? undefined : [current];
}

function cashAccountText(account: Partial<CashAccount> | undefined): string {
  if (account === undefined) return '';
  const name = account.Name === undefined ? '' : `${account.Name}, `;
  return `${name}${account.SchemeName ?? ''} ${account.Identification ?? ''}`.trim();
}

const ROWS: Readonly<Record<ConsentKind, ConsentKindRow>> = {
  'account-access': {
    kind: 'account-access',
    scope: familyOfConsentKind('account-access').scope,
    page: 'account-access',
    accounts: (_consent, psuId, bank) => ({ choose: 'many', accounts: bank.accountsOf(psuId) }),
    headless: (choice) => (choice.choose === 'none' ? undefined : choice.accounts),
    lines: () => [],
  },
  'domestic-payment': {
    kind: 'domestic-payment',
    scope: familyOfConsentKind('domestic-payment').scope,
    page: 'payment',
    accounts: (consent, psuId, bank) => namedOrChosen(initiationOf(consent).DebtorAccount as CashAccount | undefined, psuId, bank),
    headless: singleAccount,
    lines: (consent) => {
      const initiation = initiationOf(consent);
      const amount = initiation.InstructedAmount as { Amount?: string; Currency?: string } | undefined;
      const reference = paymentReference(initiation);
      return [
        { label: 'Amount', value: `${amount?.Amount ?? ''} ${amount?.Currency ?? ''}`.trim() },
        { label: 'To', value: cashAccountText(initiation.CreditorAccount as Partial<CashAccount> | undefined) },
        ...(reference === undefined ? [] : [{ label: 'Reference', value: reference }]),
      ];
    },
  },
  'funds-confirmation': {
    kind: 'funds-confirmation',
    scope: familyOfConsentKind('funds-confirmation').scope,
    page: 'funds',
    accounts: (consent, psuId, bank) => namedOrChosen((consent as FundsConsentRecord).DebtorAccount, psuId, bank),
    headless: singleAccount,
    lines: (consent) => [
      { label: 'Account', value: cashAccountText((consent as FundsConsentRecord).DebtorAccount) },
      { label: 'Until', value: consent.ExpirationDateTime ?? 'you withdraw it' },
    ],
  },
  'domestic-vrp': {
    kind: 'domestic-vrp',
    scope: familyOfConsentKind('domestic-vrp').scope,
    page: 'mandate',
    // VRP profile v4.0, "Step 3: Authorise Consent": "The ASPSP provides an interface for the PSU to select the debtor
    // accounts to be used" — one account here; the consent's DebtorAccount when it names one (which must be the PSU's).
    accounts: (consent, psuId, bank) =>
      namedOrChosen(
        ((consent as VrpConsentRecord).Data.Initiation as { DebtorAccount?: CashAccount } | undefined)?.DebtorAccount,
        psuId,
        bank,
      ),
    headless: singleAccount,
    lines: (consent) => mandateLines(consent as VrpConsentRecord),
    // VRP profile v4.0, "Consent Re-authentication": "The access token issued by the ASPSP must be valid for the same
    // length of time as the VRP consent" ("should not be set to expire at 90 days"). It is given as long as the consent
    // is kept, so a payment after ValidToDateTime, or under a revoked consent, is refused by the consent's own rule
    // (U014 naming ValidToDateTime, U009) rather than a bare 401.
    accessTokenSeconds: () => OPEN_ENDED_TOKEN_SECONDS,
  },
};

export function consentKindRow(consent: AnyConsentRecord): ConsentKindRow {
  return ROWS[consentKindOf(consent)];
}

/** The permissions of an account-access consent (none for other kinds: their page shows lines instead). */
export function permissionsOf(consent: AnyConsentRecord): string[] {
  return consentKindOf(consent) === 'account-access' ? (consent as ConsentRecord).Permissions : [];
}

function initiationOf(consent: AnyConsentRecord): Record<string, unknown> {
  return ((consent as PaymentConsentRecord).Data.Initiation ?? {}) as Record<string, unknown>;
}

/**
 * The reference the creditor sees: v3.1.11 RemittanceInformation.Reference; v4.0 OBRemittanceInformation2 has none, so
 * its first Structured CreditorReferenceInformation.Reference, else its first Unstructured line.
 */
export function paymentReference(initiation: Record<string, unknown>): string | undefined {
  const remittance = initiation.RemittanceInformation as Record<string, unknown> | undefined;
  if (remittance === undefined) return undefined;
  if (typeof remittance.Reference === 'string') return remittance.Reference;
  const structured = Array.isArray(remittance.Structured) ? (remittance.Structured[0] as Record<string, unknown> | undefined) : undefined;
  const creditorReference = structured?.CreditorReferenceInformation as { Reference?: unknown } | undefined;
  if (typeof creditorReference?.Reference === 'string') return creditorReference.Reference;
  const unstructured = remittance.Unstructured;
  if (typeof unstructured === 'string') return unstructured;
  if (Array.isArray(unstructured) && typeof unstructured[0] === 'string') return unstructured[0];
  return undefined;
}
