// How the bank's accounts are identified on the wire (OBCashAccount SchemeName + Identification), and whether an
// identification a TPP sent names one of them: UK.OBIE.SortCodeAccountNumber (the 6-digit sort code and the 8-digit
// account number, 14 digits: PISP v4.0 domestic-payment-consents, OBDomestic2 Notes) and UK.OBIE.IBAN (the full IBAN,
// ISO 13616: GB, two check digits, the bank's four-letter code, sort code, account number).

import type { BankAccount } from './bank.js';

export const SORT_CODE_SCHEME = 'UK.OBIE.SortCodeAccountNumber';
export const IBAN_SCHEME = 'UK.OBIE.IBAN';

/** The bank's identifier inside its IBANs (ISO 13616 BBAN: four letters, then the sort code). */
export const BANK_CODE = 'OBFL';

/** The schemes a debtor account of this bank can be named in. */
export const DEBTOR_SCHEMES: readonly string[] = [SORT_CODE_SCHEME, IBAN_SCHEME];

/** The account's IBAN: GB, the ISO 7064 mod 97-10 check digits, BANK_CODE, sort code, account number. */
export function ibanOf(account: Pick<BankAccount, 'sortCode' | 'accountNumber'>): string {
  const bban = `${BANK_CODE}${account.sortCode}${account.accountNumber}`;
  // ISO 13616: the BBAN, then the country code and 00, letters as 10…35, and 98 − (that number mod 97).
  const digits = `${bban}GB00`.replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
  let remainder = 0;
  for (const digit of digits) remainder = (remainder * 10 + Number(digit)) % 97;
  return `GB${String(98 - remainder).padStart(2, '0')}${bban}`;
}

/** The account's identification in `scheme`, or undefined when the bank does not name its accounts in it. */
export function identificationOf(account: Pick<BankAccount, 'sortCode' | 'accountNumber'>, scheme: string): string | undefined {
  if (scheme === SORT_CODE_SCHEME) return `${account.sortCode}${account.accountNumber}`;
  if (scheme === IBAN_SCHEME) return ibanOf(account);
  return undefined;
}

/** Whether `named` (SchemeName + Identification, white space and case in an IBAN aside) is `account`. */
export function identifies(
  account: Pick<BankAccount, 'sortCode' | 'accountNumber'>,
  named: { SchemeName: string; Identification: string },
): boolean {
  const own = identificationOf(account, named.SchemeName);
  if (own === undefined) return false;
  const given = named.SchemeName === IBAN_SCHEME ? named.Identification.replace(/\s+/g, '').toUpperCase() : named.Identification;
  return given === own;
}
