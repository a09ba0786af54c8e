// The bank's records rendered as AIS v3.1 payload objects (pure). Field sets are the intersection that validates
// against both v3.1.1 (OBAccount3, OBCashBalance1, OBTransaction5) and v3.1.11 (OBAccount6, OBReadBalance1,
// OBTransaction6): fields added after v3.1.1 (Status, OpeningDate, TransactionMutability, …) are left out.

import { formatAmount } from '../data/bank.js';
import type { BankAccount, BankTransaction, Counterparty } from '../data/bank.js';
import { isoSeconds } from '../time.js';

const SORT_CODE_SCHEME = 'UK.OBIE.SortCodeAccountNumber';

/** OBAccount3Basic / OBAccount3Detail: Detail adds the Account identification (sort code + account number). */
export function renderAccount(account: BankAccount, detail: boolean): Record<string, unknown> {
  const basic: Record<string, unknown> = {
    AccountId: account.accountId,
    Currency: account.currency,
    AccountType: account.accountType,
    AccountSubType: account.accountSubType,
    Description: account.description,
    Nickname: account.nickname,
  };
  if (!detail) return basic;
  return {
    ...basic,
    Account: [{ SchemeName: SORT_CODE_SCHEME, Identification: `${account.sortCode}${account.accountNumber}`, Name: account.name }],
  };
}

/** OBCashBalance1 of type InterimAvailable (bank-interface §2.3); a pre-agreed overdraft shows as a CreditLine. */
export function renderBalance(account: BankAccount, availableMinor: number, at: Date): Record<string, unknown> {
  const balance: Record<string, unknown> = {
    AccountId: account.accountId,
    Amount: { Amount: formatAmount(availableMinor), Currency: account.currency },
    // "A zero balance is considered to be a credit balance."
    CreditDebitIndicator: availableMinor < 0 ? 'Debit' : 'Credit',
    Type: 'InterimAvailable',
    DateTime: isoSeconds(at),
  };
  if (account.creditLimitMinor > 0) {
    balance.CreditLine = [
      { Included: false, Type: 'Pre-Agreed', Amount: { Amount: formatAmount(account.creditLimitMinor), Currency: account.currency } },
    ];
  }
  return balance;
}

function cashAccount(party: Counterparty): Record<string, unknown> {
  if (party.sortCode === undefined || party.accountNumber === undefined) return { Name: party.name.slice(0, 70) };
  return { SchemeName: SORT_CODE_SCHEME, Identification: `${party.sortCode}${party.accountNumber}`, Name: party.name.slice(0, 70) };
}

/**
 * OBTransaction5Basic / Detail. Detail (ReadTransactionsDetail) adds the narrative (TransactionInformation), the
 * running balance after the entry (Balance), MerchantDetails and the counterparty account (Creditor for a debit,
 * Debtor for a credit), as the AIS v3.1 "Transactions" permission table lists.
 */
export function renderTransaction(account: BankAccount, entry: BankTransaction, detail: boolean): Record<string, unknown> {
  const at = isoSeconds(new Date(entry.time));
  const out: Record<string, unknown> = {
    AccountId: account.accountId,
    TransactionId: entry.transactionId,
  };
  if (entry.reference !== undefined) out.TransactionReference = entry.reference;
  out.CreditDebitIndicator = entry.credit ? 'Credit' : 'Debit';
  out.Status = entry.status;
  out.BookingDateTime = at;
  if (entry.status === 'Booked') out.ValueDateTime = at;
  out.Amount = { Amount: formatAmount(entry.amountMinor), Currency: account.currency };
  out.BankTransactionCode = { Code: entry.code, SubCode: entry.subCode };
  out.ProprietaryBankTransactionCode = { Code: entry.proprietaryCode, Issuer: 'OBFLOW SANDBOX BANK' };
  if (entry.card) {
    out.CardInstrument = {
      CardSchemeName: entry.card.scheme,
      AuthorisationType: entry.card.authorisation,
      Name: entry.card.holderName,
      Identification: entry.card.masked,
    };
  }
  if (!detail) return out;
  out.TransactionInformation = entry.information;
  out.Balance = {
    Amount: { Amount: formatAmount(entry.balanceMinor), Currency: account.currency },
    CreditDebitIndicator: entry.balanceMinor < 0 ? 'Debit' : 'Credit',
    Type: 'InterimAvailable',
  };
  if (entry.merchant) out.MerchantDetails = { MerchantName: entry.merchant.name, MerchantCategoryCode: entry.merchant.categoryCode };
  if (entry.counterparty) out[entry.credit ? 'DebtorAccount' : 'CreditorAccount'] = cashAccount(entry.counterparty);
  return out;
}
