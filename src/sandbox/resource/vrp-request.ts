// Validation of VRP request bodies (pure): OBDomesticVRPConsentRequest — its ControlParameters read into the mandate
// every payment is checked against (contracts.ts VrpMandate) —, OBDomesticVRPRequest and OBVRPFundsConfirmationRequest,
// v3.1.11 and v4.0 (and the v4.0 cVRP file's VRPTypes). Every fault becomes an OBError1 with a UK.OBIE.* code and the
// JSON path at fault, all of them at once, as the PISP requests (payment-request.ts, whose Reader this uses). Each rule
// cites its clause; docs/sandbox-vrp.md, "Consent requests", lists them.

import type { AisApiVersion, CashAccount, ProfileName, VrpMandate } from '../contracts.js';
import { addDays, bankDateOf, compareDates, isoDate } from '../bank-time.js';
import { DEBTOR_SCHEMES } from '../data/identification.js';
import { tolerates } from '../policy.js';
import { parseDateTime } from './consent-request.js';
import { ACCOUNT_SCHEMES, onlyMembers, PAYMENT_MEMBERS, readRequest } from './payment-request.js';
import type { Reader, Validation } from './payment-request.js';
import { PERIOD_ALIGNMENTS, PERIOD_TYPE_NAMES, periodTypeRow } from './vrp-limits.js';
import { AUTHENTICATION_METHODS, INTERACTION_TYPES, VRP_MEMBERS, VRP_VERSIONS, vrpTypeRow, vrpTypesOf } from './vrp-tables.js';

type Json = Record<string, unknown>;

const CONTROL = 'Data.ControlParameters';

/** A list of one or more codes of `allowed` at `path` (VRPType, PSUAuthenticationMethods, PSUInteractionTypes). */
function codeList(read: Reader, value: unknown, path: string, allowed: readonly string[], required: boolean): string[] | undefined {
  if (value === undefined) {
    if (required) read.fail('UK.OBIE.Field.Missing', path, `${path} is required (at least one of ${allowed.join(', ')})`);
    return undefined;
  }
  if (!Array.isArray(value) || value.length === 0) {
    read.fail('UK.OBIE.Field.Invalid', path, `${path} must be a list of at least one of ${allowed.join(', ')}`);
    return undefined;
  }
  let ok = true;
  for (const [index, code] of value.entries())
    if (typeof code !== 'string' || !allowed.includes(code)) {
      read.fail('UK.OBIE.Field.Invalid', `${path}[${index}]`, `${path}[${index}] must be one of ${allowed.join(', ')} (v${read.version})`);
      ok = false;
    }
  return ok ? [...new Set(value as string[])] : undefined;
}

/** SupplementaryData: "The ASPSP must reject a consent request that has Data.ControlParameters.SupplementaryData that it
 *  cannot process" (and a payment's Data.Instruction.SupplementaryData, domestic-vrps): this bank processes none, so
 *  an empty object is all it takes. */
function noSupplementaryData(read: Reader, object: Json, path: string): void {
  const value = object.SupplementaryData;
  if (value === undefined) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    read.fail('UK.OBIE.Field.Invalid', `${path}.SupplementaryData`, `${path}.SupplementaryData must be an object`);
    return;
  }
  if (Object.keys(value).length > 0)
    read.fail(
      'UK.OBIE.Field.Unexpected',
      `${path}.SupplementaryData`,
      `${path}.SupplementaryData holds data this bank cannot process (${Object.keys(value).join(', ')}); send {} or leave it out`,
    );
}

/** A ValidFromDateTime / ValidToDateTime: the instant (an offset required unless consent-local-time is tolerated). */
function dateTime(read: Reader, control: Json, name: string, lenient: boolean): Date | undefined {
  const text = control[name];
  if (text === undefined) return undefined;
  const date = typeof text === 'string' ? parseDateTime(text, lenient) : undefined;
  if (date === undefined)
    read.fail('UK.OBIE.Field.InvalidDate', `${CONTROL}.${name}`, `${CONTROL}.${name} must be an ISO 8601 date-time with a time zone`);
  return date;
}

export interface VrpConsentRequest {
  /** Data as kept and echoed: the members the version defines (unknown ones dropped where tolerated). */
  Data: Json;
  Risk: Json;
  mandate: VrpMandate;
}

/**
 * POST /domestic-vrp-consents (OBDomesticVRPConsentRequest) of `version`, for a client of `profile`, at `now`: "If the
 * parameters specified by the TPP in this resource are not valid, or fail any rules, the ASPSP must return a 400 Bad
 * Request. In such a situation a resource is not created."
 */
export function validateVrpConsent(body: unknown, version: AisApiVersion, profile: ProfileName, now: Date): Validation<VrpConsentRequest> {
  const members = VRP_MEMBERS[version];
  const { read, data, risk } = readRequest(body, version, profile, members.consentData, members.risk);
  if (data === undefined) return { ok: false, errors: read.errors };
  if (data.ReadRefundAccount !== undefined && data.ReadRefundAccount !== 'Yes' && data.ReadRefundAccount !== 'No')
    read.fail('UK.OBIE.Field.Invalid', 'Data.ReadRefundAccount', 'Data.ReadRefundAccount must be Yes or No');
  const control = read.object(data.ControlParameters, CONTROL, members.controlParameters, true);
  const mandate = control === undefined ? undefined : readControlParameters(read, control, profile, now);
  const types = mandate?.vrpTypes ?? [];
  const initiation = read.object(data.Initiation, 'Data.Initiation', members.initiation, true);
  if (initiation !== undefined) {
    const nameMax = VRP_VERSIONS[version].accountNameMax;
    // VRP profile v4.0, "Deferred specification of CreditorAccount and CreditorAgent": only non-sweeping consents may
    // leave the creditor to each payment (VRP_TYPES creditorAtConsent).
    const creditorRequired = types.some((type) => vrpTypeRow(type)?.creditorAtConsent === 'required');
    read.cashAccount(
      initiation.CreditorAccount,
      'Data.Initiation.CreditorAccount',
      members.cashAccount,
      creditorRequired,
      ACCOUNT_SCHEMES,
      true,
      nameMax,
    );
    // OBCashAccountDebtorWithName: Name 1..1; the debtor is one of this bank's accounts, named as it names them.
    read.cashAccount(initiation.DebtorAccount, 'Data.Initiation.DebtorAccount', members.cashAccount, false, DEBTOR_SCHEMES, true, nameMax);
  }
  if (read.errors.length > 0 || risk === undefined || control === undefined || mandate === undefined || initiation === undefined)
    return { ok: false, errors: read.errors };
  return {
    ok: true,
    value: {
      Data: { ...data, ControlParameters: keptControl(read, control), Initiation: keptAccounts(read, initiation) },
      Risk: risk,
      mandate,
    },
  };
}

/** OBDomesticVRPControlParameters: every rule of the files and the VRP pages, read into the mandate. */
function readControlParameters(read: Reader, control: Json, profile: ProfileName, now: Date): VrpMandate | undefined {
  const version = read.version;
  const members = VRP_MEMBERS[version];
  const vrpTypes = codeList(read, control.VRPType, `${CONTROL}.VRPType`, vrpTypesOf(version), true);
  const authenticationMethods = codeList(
    read,
    control.PSUAuthenticationMethods,
    `${CONTROL}.PSUAuthenticationMethods`,
    Object.keys(AUTHENTICATION_METHODS),
    true,
  );
  const interactionTypes = codeList(read, control.PSUInteractionTypes, `${CONTROL}.PSUInteractionTypes`, INTERACTION_TYPES, false);
  const maximum = read.amount(control.MaximumIndividualAmount, `${CONTROL}.MaximumIndividualAmount`);
  noSupplementaryData(read, control, CONTROL);

  // PeriodicLimits (1..*, both files: minItems 1; VRP_TYPES minimumPeriodicLimits per type).
  const minimum = Math.max(1, ...(vrpTypes ?? []).map((type) => vrpTypeRow(type)?.minimumPeriodicLimits ?? 1));
  const path = `${CONTROL}.PeriodicLimits`;
  const limits: VrpMandate['periodicLimits'] = [];
  if (control.PeriodicLimits === undefined) read.fail('UK.OBIE.Field.Missing', path, `${path} is required (at least ${minimum})`);
  else if (!Array.isArray(control.PeriodicLimits) || control.PeriodicLimits.length < minimum)
    read.fail('UK.OBIE.Field.Invalid', path, `${path} must be a list of at least ${minimum} limit`);
  else
    for (const [index, item] of control.PeriodicLimits.entries()) {
      const at = `${path}[${index}]`;
      const limit = read.object(item, at, members.periodicLimit, true);
      if (limit === undefined) continue;
      const type = limit.PeriodType;
      const alignment = limit.PeriodAlignment;
      const row = typeof type === 'string' ? periodTypeRow(type) : undefined;
      if (row === undefined)
        read.fail(
          type === undefined ? 'UK.OBIE.Field.Missing' : 'UK.OBIE.Field.Invalid',
          `${at}.PeriodType`,
          `${at}.PeriodType must be one of ${PERIOD_TYPE_NAMES.join(', ')}`,
        );
      if (typeof alignment !== 'string' || !(PERIOD_ALIGNMENTS as readonly string[]).includes(alignment))
        read.fail(
          alignment === undefined ? 'UK.OBIE.Field.Missing' : 'UK.OBIE.Field.Invalid',
          `${at}.PeriodAlignment`,
          `${at}.PeriodAlignment must be one of ${PERIOD_ALIGNMENTS.join(', ')}`,
        );
      // "for a PeriodType of Fortnight the PeriodAlignment must be Consent" (PERIOD_TYPES: a row without a calendar start).
      else if (row !== undefined && alignment === 'Calendar' && row.calendarStart === undefined)
        read.fail(
          'UK.OBIE.Field.Invalid',
          `${at}.PeriodAlignment`,
          `${at}.PeriodAlignment must be Consent for a PeriodType of ${String(type)}`,
        );
      // Each limit in the bank's currency, as MaximumIndividualAmount is: a mandate has one currency.
      const amountMinor = read.money(limit.Amount, limit.Currency, at, 'bank');
      if (row !== undefined && amountMinor !== undefined && typeof alignment === 'string')
        limits.push({ PeriodType: String(type), PeriodAlignment: alignment, amountMinor });
    }

  // ValidFromDateTime / ValidToDateTime: "The time element of the date should be disregarded in computing the date
  // range", so they are compared as the bank's dates (Europe/London).
  const lenient = tolerates(profile, 'consent-local-time');
  const validFrom = dateTime(read, control, 'ValidFromDateTime', lenient);
  const validTo = dateTime(read, control, 'ValidToDateTime', lenient);
  if (validTo !== undefined) {
    const last = bankDateOf(validTo.getTime());
    if (validFrom !== undefined && compareDates(last, bankDateOf(validFrom.getTime())) < 0)
      read.fail(
        'UK.OBIE.Field.InvalidDate',
        `${CONTROL}.ValidToDateTime`,
        `${CONTROL}.ValidToDateTime must not be a date before ValidFromDateTime`,
      );
    else if (compareDates(addDays(last, 1), bankDateOf(now.getTime())) <= 0)
      read.fail(
        'UK.OBIE.Field.InvalidDate',
        `${CONTROL}.ValidToDateTime`,
        `${CONTROL}.ValidToDateTime ended with ${isoDate(last)}: a consent no payment could be made under`,
      );
  }
  if (vrpTypes === undefined || authenticationMethods === undefined || maximum === undefined || limits.length === 0) return undefined;
  return {
    vrpTypes,
    authenticationMethods,
    ...(interactionTypes === undefined ? {} : { interactionTypes }),
    ...(validFrom === undefined ? {} : { validFrom: validFrom.toISOString() }),
    ...(validTo === undefined ? {} : { validTo: validTo.toISOString() }),
    currency: 'GBP',
    maximumIndividualMinor: maximum,
    periodicLimits: limits,
  };
}

/** ControlParameters as kept: nested members the version does not define dropped where tolerated. */
function keptControl(read: Reader, control: Json): Json {
  if (!read.dropUnknown) return control;
  const members = VRP_MEMBERS[read.version];
  const kept: Json = { ...control };
  if (control.MaximumIndividualAmount !== undefined)
    kept.MaximumIndividualAmount = onlyMembers(control.MaximumIndividualAmount, PAYMENT_MEMBERS[read.version].instructedAmount);
  if (Array.isArray(control.PeriodicLimits))
    kept.PeriodicLimits = control.PeriodicLimits.map((limit) => onlyMembers(limit, members.periodicLimit));
  return kept;
}

/** An Initiation or Instruction as kept: its accounts (and amount) without members the version does not define, where
 *  tolerated (refused otherwise, so there is nothing to drop). */
function keptAccounts(read: Reader, object: Json): Json {
  if (!read.dropUnknown) return object;
  const members = VRP_MEMBERS[read.version];
  const kept: Json = { ...object };
  for (const name of ['DebtorAccount', 'CreditorAccount'] as const)
    if (object[name] !== undefined) kept[name] = onlyMembers(object[name], members.cashAccount);
  if (object.InstructedAmount !== undefined)
    kept.InstructedAmount = onlyMembers(object.InstructedAmount, PAYMENT_MEMBERS[read.version].instructedAmount);
  return kept;
}

export interface VrpPaymentRequest {
  ConsentId: string;
  PSUAuthenticationMethod: string;
  /** As sent; undefined when not (the limits read it as OffSession). */
  PSUInteractionType: string | undefined;
  VRPType: string;
  /** Initiation and Instruction as kept (unknown members dropped where tolerated). */
  Initiation: Json;
  Instruction: Json;
  Risk: Json;
  amountMinor: number;
  currency: string;
  creditor: CashAccount;
}

/** POST /domestic-vrps (OBDomesticVRPRequest) of `version`: its members and their values; what it must share with its
 *  consent, and the limits, are checked by the handler (vrp.ts). */
export function validateVrpPayment(body: unknown, version: AisApiVersion, profile: ProfileName): Validation<VrpPaymentRequest> {
  const members = VRP_MEMBERS[version];
  const { read, data, risk } = readRequest(body, version, profile, members.paymentData, members.risk);
  if (data === undefined) return { ok: false, errors: read.errors };
  const consentId = read.text(data, 'ConsentId', 'Data', 128, true);
  const method = oneCode(read, data, 'PSUAuthenticationMethod', Object.keys(AUTHENTICATION_METHODS), true);
  const interaction = oneCode(read, data, 'PSUInteractionType', INTERACTION_TYPES, false);
  const vrpType = oneCode(read, data, 'VRPType', vrpTypesOf(version), true);
  const initiation = read.object(data.Initiation, 'Data.Initiation', members.initiation, true);
  const instruction = read.object(data.Instruction, 'Data.Instruction', members.instruction, true);
  let amount: { minor: number; currency: string } | undefined;
  let creditor: CashAccount | undefined;
  if (instruction !== undefined) {
    read.text(instruction, 'InstructionIdentification', 'Data.Instruction', 35, true);
    read.text(instruction, 'EndToEndIdentification', 'Data.Instruction', 35, true);
    const instructed = read.object(
      instruction.InstructedAmount,
      'Data.Instruction.InstructedAmount',
      PAYMENT_MEMBERS[version].instructedAmount,
      true,
    );
    if (instructed !== undefined) {
      const minor = read.money(instructed.Amount, instructed.Currency, 'Data.Instruction.InstructedAmount', 'any');
      if (minor !== undefined) amount = { minor, currency: String(instructed.Currency) };
    }
    // OBDomesticVRPInstruction CreditorAccount 1..1: "If the CreditorAccount was not specified in the the consent, the
    // CreditorAccount must be specified in the instruction."
    creditor = read.cashAccount(
      instruction.CreditorAccount,
      'Data.Instruction.CreditorAccount',
      members.cashAccount,
      true,
      ACCOUNT_SCHEMES,
      true,
      VRP_VERSIONS[version].accountNameMax,
    );
    noSupplementaryData(read, instruction, 'Data.Instruction');
  }
  if (
    read.errors.length > 0 ||
    consentId === undefined ||
    method === undefined ||
    vrpType === undefined ||
    initiation === undefined ||
    instruction === undefined ||
    risk === undefined ||
    amount === undefined ||
    creditor === undefined
  )
    return { ok: false, errors: read.errors };
  return {
    ok: true,
    value: {
      ConsentId: consentId,
      PSUAuthenticationMethod: method,
      PSUInteractionType: interaction,
      VRPType: vrpType,
      Initiation: keptAccounts(read, initiation),
      Instruction: keptAccounts(read, instruction),
      Risk: risk,
      amountMinor: amount.minor,
      currency: amount.currency,
      creditor,
    },
  };
}

/** One code of `allowed` at Data.`name`. */
function oneCode(read: Reader, data: Json, name: string, allowed: readonly string[], required: boolean): string | undefined {
  const value = data[name];
  if (value === undefined) {
    if (required) read.fail('UK.OBIE.Field.Missing', `Data.${name}`, `Data.${name} is required`);
    return undefined;
  }
  if (typeof value !== 'string' || !allowed.includes(value)) {
    read.fail('UK.OBIE.Field.Invalid', `Data.${name}`, `Data.${name} must be one of ${allowed.join(', ')} (v${read.version})`);
    return undefined;
  }
  return value;
}

export interface VrpFundsRequest {
  ConsentId: string;
  Reference?: string;
  InstructedAmount: { Amount: string; Currency: string };
  amountMinor: number;
}

/** POST /domestic-vrp-consents/{ConsentId}/funds-confirmation (OBVRPFundsConfirmationRequest): the amount in the
 *  account's currency (as a CBPII check: "ASPSP must reject the request when Amount is in a different currency"). */
export function validateVrpFunds(body: unknown, version: AisApiVersion, profile: ProfileName): Validation<VrpFundsRequest> {
  const { read, data } = readRequest(body, version, profile, VRP_MEMBERS[version].fundsConfirmationData);
  if (data === undefined) return { ok: false, errors: read.errors };
  const consentId = read.text(data, 'ConsentId', 'Data', 128, true);
  const reference = read.text(data, 'Reference', 'Data', 35, false);
  const amountMinor = read.amount(data.InstructedAmount, 'Data.InstructedAmount');
  if (read.errors.length > 0 || consentId === undefined || amountMinor === undefined) return { ok: false, errors: read.errors };
  const amount = data.InstructedAmount as { Amount: string; Currency: string };
  return {
    ok: true,
    value: {
      ConsentId: consentId,
      ...(reference === undefined ? {} : { Reference: reference }),
      InstructedAmount: { Amount: amount.Amount, Currency: amount.Currency },
      amountMinor,
    },
  };
}
