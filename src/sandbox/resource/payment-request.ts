// Validation of PISP and CBPII request bodies (pure): OBWriteDomesticConsent4, OBWriteDomestic2 (PISP v3.1.11 and
// v4.0), OBFundsConfirmationConsent1 and OBFundsConfirmation1 (CBPII). Every fault becomes an OBError1 with a UK.OBIE.*
// code (the v4.0 U-codes come from v4-codes.ts) and the JSON path at fault. The members each version defines are the
// tables below (the OpenAPI schemas are closed, additionalProperties false), tied to the files by
// test/unit/sandbox-payment-members.test.ts; unknown members are refused unless the profile tolerates
// payment-unknown-fields, which drops them (src/sandbox/policy.ts).

import type { AisApiVersion, CashAccount, ProfileName } from '../contracts.js';
import { DEBTOR_SCHEMES, SORT_CODE_SCHEME } from '../data/identification.js';
import type { ObError } from '../http/io.js';
import { tolerates } from '../policy.js';
import { isoInstant } from '../time.js';
import { parseDateTime } from './consent-request.js';

type Json = Record<string, unknown>;

/** The members of each object the bank reads, per version (the OpenAPI schemas' `properties`). */
export const PAYMENT_MEMBERS = {
  '3.1': {
    /** OBWriteDomesticConsent4 Data. */
    consentData: ['ReadRefundAccount', 'Initiation', 'Authorisation', 'SCASupportData'],
    /** OBWriteDomestic2 Data. */
    paymentData: ['ConsentId', 'Initiation'],
    /** OBWriteDomesticConsent4 Data.Initiation (OBDomestic2). */
    initiation: [
      'InstructionIdentification',
      'EndToEndIdentification',
      'LocalInstrument',
      'InstructedAmount',
      'DebtorAccount',
      'CreditorAccount',
      'CreditorPostalAddress',
      'RemittanceInformation',
      'SupplementaryData',
    ],
    instructedAmount: ['Amount', 'Currency'],
    /** DebtorAccount and CreditorAccount of the Initiation. */
    cashAccount: ['SchemeName', 'Identification', 'Name', 'SecondaryIdentification'],
    /** OBRisk1 (v3.1.11 spells ContractPresentInidicator so). */
    risk: [
      'PaymentContextCode',
      'MerchantCategoryCode',
      'MerchantCustomerIdentification',
      'ContractPresentInidicator',
      'BeneficiaryPrepopulatedIndicator',
      'PaymentPurposeCode',
      'BeneficiaryAccountType',
      'DeliveryAddress',
    ],
    /** OBFundsConfirmationConsent1 Data, and its DebtorAccount. */
    fundsConsentData: ['ExpirationDateTime', 'DebtorAccount'],
    fundsDebtorAccount: ['SchemeName', 'Identification', 'Name', 'SecondaryIdentification'],
    /** OBFundsConfirmation1 Data. */
    fundsConfirmationData: ['ConsentId', 'Reference', 'InstructedAmount'],
  },
  '4.0': {
    consentData: ['ReadRefundAccount', 'Initiation', 'Authorisation', 'SCASupportData'],
    paymentData: ['ConsentId', 'Initiation'],
    initiation: [
      'InstructionIdentification',
      'EndToEndIdentification',
      'LocalInstrument',
      'InstructedAmount',
      'DebtorAccount',
      'CreditorAgent',
      'CreditorAccount',
      'CreditorPostalAddress',
      'UltimateCreditor',
      'UltimateDebtor',
      'RegulatoryReporting',
      'RemittanceInformation',
      'SupplementaryData',
    ],
    instructedAmount: ['Amount', 'Currency'],
    cashAccount: ['SchemeName', 'Identification', 'Name', 'SecondaryIdentification', 'Proxy'],
    risk: [
      'PaymentContextCode',
      'MerchantCategoryCode',
      'MerchantCustomerIdentification',
      'ContractPresentIndicator',
      'BeneficiaryPrepopulatedIndicator',
      'PaymentPurposeCode',
      'CategoryPurposeCode',
      'BeneficiaryAccountType',
      'DeliveryAddress',
    ],
    fundsConsentData: ['ExpirationDateTime', 'DebtorAccount'],
    fundsDebtorAccount: ['SchemeName', 'Identification', 'Name', 'SecondaryIdentification', 'Proxy'],
    fundsConfirmationData: ['ConsentId', 'Reference', 'InstructedAmount'],
  },
} as const satisfies Record<AisApiVersion, Record<string, readonly string[]>>;

/** OBExternalAccountIdentification4Code (v3.1.11) / OBInternalAccountIdentification4Code (v4.0): the same six. */
export const ACCOUNT_SCHEMES = [
  'UK.OBIE.BBAN',
  'UK.OBIE.IBAN',
  'UK.OBIE.PAN',
  'UK.OBIE.Paym',
  'UK.OBIE.SortCodeAccountNumber',
  'UK.OBIE.Wallet',
] as const;

/** OBActiveCurrencyAndAmount_SimpleType and ActiveOrHistoricCurrencyCode, as both versions write them. */
const AMOUNT = /^\d{1,13}$|^\d{1,13}\.\d{1,5}$/;
const CURRENCY = /^[A-Z]{3}$/;

/** The currency of every account of this bank: a domestic payment and a funds check are in it. */
export const BANK_CURRENCY = 'GBP';

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: ObError[] };

/** A body's members read against one version's tables, collecting every fault (AIS consent requests do the same). */
export class Reader {
  readonly errors: ObError[] = [];
  constructor(
    readonly version: AisApiVersion,
    /** Unknown members are dropped rather than refused (tolerance payment-unknown-fields). */
    readonly dropUnknown: boolean,
  ) {}

  fail(code: string, path: string, message: string): void {
    this.errors.push({ ErrorCode: code, Message: message, Path: path });
  }

  /** `value` as an object (required or not), with unknown members refused or dropped; undefined when absent/wrong. */
  object(value: unknown, path: string, members: readonly string[] | undefined, required: boolean): Json | undefined {
    if (value === undefined) {
      if (required) this.fail('UK.OBIE.Field.Missing', path, `${path} is required`);
      return undefined;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.fail('UK.OBIE.Field.Invalid', path, `${path} must be an object`);
      return undefined;
    }
    const object = value as Json;
    if (members === undefined) return object;
    const kept: Json = {};
    for (const [name, member] of Object.entries(object)) {
      if (members.includes(name)) kept[name] = member;
      else if (!this.dropUnknown)
        this.fail('UK.OBIE.Field.Unexpected', `${path}.${name}`, `${path}.${name} is not a member the v${this.version} API defines here`);
    }
    return kept;
  }

  text(object: Json, name: string, path: string, max: number, required: boolean): string | undefined {
    const value = object[name];
    if (value === undefined) {
      if (required) this.fail('UK.OBIE.Field.Missing', `${path}.${name}`, `${path}.${name} is required`);
      return undefined;
    }
    if (typeof value !== 'string' || value.length === 0 || value.length > max) {
      this.fail('UK.OBIE.Field.Invalid', `${path}.${name}`, `${path}.${name} must be a string of 1 to ${max} characters`);
      return undefined;
    }
    return value;
  }

  /** InstructedAmount: the amount in minor units of the bank's currency, or undefined after a fault. */
  amount(value: unknown, path: string): number | undefined {
    const amount = this.object(value, path, PAYMENT_MEMBERS[this.version].instructedAmount, true);
    if (amount === undefined) return undefined;
    return this.money(amount.Amount, amount.Currency, path, 'bank');
  }

  /**
   * An Amount and a Currency (at `path`.Amount, `path`.Currency) in minor units, or undefined after a fault. `currency`
   * 'bank': it must be the bank's currency (GBP); 'any': any ISO 4217 code (a VRP payment's currency is compared with
   * its mandate's, resource/vrp-limits.ts), counted in two decimals as GBP is.
   */
  money(text: unknown, currency: unknown, path: string, accept: 'bank' | 'any'): number | undefined {
    let ok = true;
    if (typeof text !== 'string' || !AMOUNT.test(text)) {
      this.fail(
        text === undefined ? 'UK.OBIE.Field.Missing' : 'UK.OBIE.Field.Invalid',
        `${path}.Amount`,
        `${path}.Amount must be an amount such as 10.50 (at most 13 digits, then at most 5 decimals)`,
      );
      ok = false;
    }
    if (typeof currency !== 'string' || !CURRENCY.test(currency)) {
      this.fail(
        currency === undefined ? 'UK.OBIE.Field.Missing' : 'UK.OBIE.Field.Invalid',
        `${path}.Currency`,
        `${path}.Currency must be an ISO 4217 code`,
      );
      ok = false;
    } else if (accept === 'bank' && currency !== BANK_CURRENCY) {
      // Funds Confirmation v4.0: "ASPSP must reject the request when Amount is in a different currency than the
      // currency of the underlying account"; every account here is in GBP, and a domestic payment is too.
      this.fail(
        'UK.OBIE.Unsupported.Currency',
        `${path}.Currency`,
        `${path}.Currency must be ${BANK_CURRENCY}, the currency of this bank's accounts`,
      );
      ok = false;
    }
    if (!ok || typeof text !== 'string') return undefined;
    const [whole = '0', fraction = ''] = text.split('.');
    // GBP has two decimal places (ISO 4217): 10.5 and 10.50000 are 1050 pence, 10.505 is no amount of pence.
    if (/[1-9]/.test(fraction.slice(2))) {
      this.fail('UK.OBIE.Field.Invalid', `${path}.Amount`, `${path}.Amount has more decimals than ${BANK_CURRENCY} has (2)`);
      return undefined;
    }
    const minor = Number(whole) * 100 + Number(fraction.slice(0, 2).padEnd(2, '0'));
    if (!Number.isSafeInteger(minor) || minor <= 0) {
      this.fail('UK.OBIE.Field.Invalid', `${path}.Amount`, `${path}.Amount must be more than zero`);
      return undefined;
    }
    return minor;
  }

  /** A CashAccount (SchemeName, Identification, Name…): `schemes` the bank accepts for it. */
  cashAccount(
    value: unknown,
    path: string,
    members: readonly string[],
    required: boolean,
    schemes: readonly string[],
    nameRequired: boolean,
    nameMax = 350,
  ): CashAccount | undefined {
    const account = this.object(value, path, members, required);
    if (account === undefined) return undefined;
    const scheme = this.text(account, 'SchemeName', path, 40, true);
    const identification = this.text(account, 'Identification', path, 256, true);
    this.text(account, 'Name', path, nameMax, nameRequired);
    if (scheme !== undefined && !schemes.includes(scheme))
      this.fail(
        (ACCOUNT_SCHEMES as readonly string[]).includes(scheme) ? 'UK.OBIE.Unsupported.Scheme' : 'UK.OBIE.Field.Invalid',
        `${path}.SchemeName`,
        `${path}.SchemeName must be one of ${schemes.join(', ')}`,
      );
    // PISP v4.0 OBDomestic2 Notes: a sort code and account number is "a 14 digit field".
    if (scheme === SORT_CODE_SCHEME && identification !== undefined && !/^\d{14}$/.test(identification))
      this.fail(
        'UK.OBIE.Field.Invalid',
        `${path}.Identification`,
        `${path}.Identification must be the 6-digit sort code and 8-digit account number`,
      );
    if (scheme === undefined || identification === undefined) return undefined;
    return account as unknown as CashAccount;
  }
}

export interface PaymentConsentRequest {
  /** Data as it is kept and echoed: the members of the version, unknown ones dropped where tolerated. */
  Data: Json;
  Risk: Json;
  amountMinor: number;
}

/** The top level of every PISP and VRP request: Data and Risk (OBWriteDomesticConsent4, OBWriteDomestic2,
 *  OBDomesticVRPConsentRequest, OBDomesticVRPRequest); of a funds request (CBPII, VRP funds-confirmation): Data. */
const PAYMENT_TOP = ['Data', 'Risk'] as const;
const FUNDS_TOP = ['Data'] as const;

/**
 * A request body's top level, read by `version`'s tables for a client of `profile` (unknown members dropped where it
 * tolerates payment-unknown-fields): Data, required, with `dataMembers`; Risk, required, with `riskMembers` where the
 * request has one. `data` is undefined where the body or its Data is not an object; every fault is in `read.errors`.
 */
export function readRequest(
  body: unknown,
  version: AisApiVersion,
  profile: ProfileName,
  dataMembers: readonly string[],
  riskMembers?: readonly string[],
): { read: Reader; data: Json | undefined; risk: Json | undefined } {
  const read = new Reader(version, tolerates(profile, 'payment-unknown-fields'));
  const top = read.object(body, '$', riskMembers === undefined ? FUNDS_TOP : PAYMENT_TOP, true);
  if (top === undefined) return { read, data: undefined, risk: undefined };
  const data = read.object(top.Data, 'Data', dataMembers, true);
  const risk = riskMembers === undefined ? undefined : read.object(top.Risk, 'Risk', riskMembers, true);
  return { read, data, risk };
}

/** POST /domestic-payment-consents (OBWriteDomesticConsent4) of `version`, for a client of `profile`. */
export function validatePaymentConsent(body: unknown, version: AisApiVersion, profile: ProfileName): Validation<PaymentConsentRequest> {
  const members = PAYMENT_MEMBERS[version];
  const { read, data, risk } = readRequest(body, version, profile, members.consentData, members.risk);
  const initiation = data === undefined ? undefined : readInitiation(read, data.Initiation);
  if (data !== undefined && data.ReadRefundAccount !== undefined && data.ReadRefundAccount !== 'Yes' && data.ReadRefundAccount !== 'No')
    read.fail('UK.OBIE.Field.Invalid', 'Data.ReadRefundAccount', 'Data.ReadRefundAccount must be Yes or No');
  if (data !== undefined && data.Authorisation !== undefined) {
    const authorisation = read.object(data.Authorisation, 'Data.Authorisation', undefined, false);
    if (authorisation !== undefined && authorisation.AuthorisationType !== 'Any' && authorisation.AuthorisationType !== 'Single')
      read.fail(
        'UK.OBIE.Field.Invalid',
        'Data.Authorisation.AuthorisationType',
        'Data.Authorisation.AuthorisationType must be Any or Single',
      );
  }
  if (read.errors.length > 0 || data === undefined || risk === undefined || initiation === undefined)
    return { ok: false, errors: read.errors };
  return { ok: true, value: { Data: { ...data, Initiation: initiation.initiation }, Risk: risk, amountMinor: initiation.amountMinor } };
}

function readInitiation(read: Reader, value: unknown): { initiation: Json; amountMinor: number } | undefined {
  const members = PAYMENT_MEMBERS[read.version];
  const initiation = read.object(value, 'Data.Initiation', members.initiation, true);
  if (initiation === undefined) return undefined;
  read.text(initiation, 'InstructionIdentification', 'Data.Initiation', 35, true);
  read.text(initiation, 'EndToEndIdentification', 'Data.Initiation', 35, true);
  const amountMinor = read.amount(initiation.InstructedAmount, 'Data.Initiation.InstructedAmount');
  // The creditor may bank anywhere (any scheme); the debtor account is one of this bank's, named as it names them.
  read.cashAccount(initiation.CreditorAccount, 'Data.Initiation.CreditorAccount', members.cashAccount, true, ACCOUNT_SCHEMES, true);
  read.cashAccount(initiation.DebtorAccount, 'Data.Initiation.DebtorAccount', members.cashAccount, false, DEBTOR_SCHEMES, false);
  return amountMinor === undefined ? undefined : { initiation: keptInitiation(read, initiation), amountMinor };
}

/** The Initiation as it is kept and compared: its nested objects the bank reads without the members the version does
 *  not define, where the profile drops them (payment-unknown-fields; refused otherwise, so nothing to drop). */
function keptInitiation(read: Reader, initiation: Json): Json {
  if (!read.dropUnknown) return initiation;
  const members = PAYMENT_MEMBERS[read.version];
  const kept: Json = { ...initiation };
  for (const [name, nested] of [
    ['InstructedAmount', members.instructedAmount],
    ['CreditorAccount', members.cashAccount],
    ['DebtorAccount', members.cashAccount],
  ] as const)
    if (initiation[name] !== undefined) kept[name] = onlyMembers(initiation[name], nested);
  return kept;
}

export function onlyMembers(value: unknown, members: readonly string[]): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([name]) => members.includes(name)));
}

export interface PaymentRequest {
  ConsentId: string;
  /** Initiation and Risk as the consent keeps them (unknown members dropped where tolerated), for the comparison. */
  Initiation: Json;
  Risk: Json;
}

/** POST /domestic-payments (OBWriteDomestic2) of `version`: the members it has; the Initiation and Risk are then
 *  compared with the consent's (PISP domestic-payments: "If the two do not match, the ASPSP must not process the
 *  request and must respond with a 400"). */
export function validatePayment(body: unknown, version: AisApiVersion, profile: ProfileName): Validation<PaymentRequest> {
  const members = PAYMENT_MEMBERS[version];
  const { read, data, risk } = readRequest(body, version, profile, members.paymentData, members.risk);
  const consentId = data === undefined ? undefined : read.text(data, 'ConsentId', 'Data', 128, true);
  const initiation = data === undefined ? undefined : read.object(data.Initiation, 'Data.Initiation', members.initiation, true);
  if (read.errors.length > 0 || consentId === undefined || initiation === undefined || risk === undefined)
    return { ok: false, errors: read.errors };
  return { ok: true, value: { ConsentId: consentId, Initiation: keptInitiation(read, initiation), Risk: risk } };
}

/** The first path at which `given` differs from `kept` (JSON values; member order aside), or undefined when equal. */
export function firstDifference(kept: unknown, given: unknown, path: string): string | undefined {
  if (Array.isArray(kept) || Array.isArray(given)) {
    if (!Array.isArray(kept) || !Array.isArray(given) || kept.length !== given.length) return path;
    for (const [index, item] of kept.entries()) {
      const found = firstDifference(item, given[index], `${path}[${index}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (kept !== null && given !== null && typeof kept === 'object' && typeof given === 'object') {
    const names = new Set([...Object.keys(kept), ...Object.keys(given)]);
    for (const name of [...names].sort()) {
      const found = firstDifference((kept as Json)[name], (given as Json)[name], `${path}.${name}`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  return kept === given ? undefined : path;
}

export interface FundsConsentRequest {
  DebtorAccount: CashAccount;
  ExpirationDateTime?: string;
}

/** POST /funds-confirmation-consents (OBFundsConfirmationConsent1). ExpirationDateTime as the AIS consents' date-times
 *  (an offset required unless consent-local-time is tolerated; in the future). */
export function validateFundsConsent(
  body: unknown,
  version: AisApiVersion,
  profile: ProfileName,
  now: Date,
): Validation<FundsConsentRequest> {
  const members = PAYMENT_MEMBERS[version];
  const { read, data } = readRequest(body, version, profile, members.fundsConsentData);
  if (data === undefined) return { ok: false, errors: read.errors };
  const debtor = read.cashAccount(data.DebtorAccount, 'Data.DebtorAccount', members.fundsDebtorAccount, true, DEBTOR_SCHEMES, false);
  let expiration: string | undefined;
  if (data.ExpirationDateTime !== undefined) {
    const text = data.ExpirationDateTime;
    const date = typeof text === 'string' ? parseDateTime(text, tolerates(profile, 'consent-local-time')) : undefined;
    if (date === undefined)
      read.fail(
        'UK.OBIE.Field.InvalidDate',
        'Data.ExpirationDateTime',
        'Data.ExpirationDateTime must be an ISO 8601 date-time with a time zone',
      );
    else if (date.getTime() <= now.getTime())
      read.fail('UK.OBIE.Field.InvalidDate', 'Data.ExpirationDateTime', 'Data.ExpirationDateTime must be in the future');
    else expiration = isoInstant(date, /\.\d+/.exec(String(text))?.[0] ?? '');
  }
  if (read.errors.length > 0 || debtor === undefined) return { ok: false, errors: read.errors };
  const kept = read.dropUnknown ? (onlyMembers(debtor, members.fundsDebtorAccount) as CashAccount) : debtor;
  return { ok: true, value: { DebtorAccount: kept, ...(expiration === undefined ? {} : { ExpirationDateTime: expiration }) } };
}

export interface FundsConfirmationRequest {
  ConsentId: string;
  Reference: string;
  InstructedAmount: { Amount: string; Currency: string };
  amountMinor: number;
}

/** POST /funds-confirmations (OBFundsConfirmation1). */
export function validateFundsConfirmation(
  body: unknown,
  version: AisApiVersion,
  profile: ProfileName,
): Validation<FundsConfirmationRequest> {
  const { read, data } = readRequest(body, version, profile, PAYMENT_MEMBERS[version].fundsConfirmationData);
  if (data === undefined) return { ok: false, errors: read.errors };
  const consentId = read.text(data, 'ConsentId', 'Data', 128, true);
  const reference = read.text(data, 'Reference', 'Data', 35, true);
  const amountMinor = read.amount(data.InstructedAmount, 'Data.InstructedAmount');
  if (read.errors.length > 0 || consentId === undefined || reference === undefined || amountMinor === undefined)
    return { ok: false, errors: read.errors };
  const amount = data.InstructedAmount as { Amount: string; Currency: string };
  return {
    ok: true,
    value: {
      ConsentId: consentId,
      Reference: reference,
      InstructedAmount: { Amount: amount.Amount, Currency: amount.Currency },
      amountMinor,
    },
  };
}
