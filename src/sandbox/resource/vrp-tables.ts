// What the VRP family's values are, as data (pure): the VRPTypes with what each one changes (sweeping, other, and the
// commercial cVRP1/2/3 of the OBL cVRP specification), the PSU authentication methods and interaction types, the
// members each version's schemas define, and what differs between v3.1 (3.1.11) and v4.0. The handlers (vrp.ts) and
// the request validation (vrp-request.ts) ask these rows; test/unit/sandbox-vrp-tables.test.ts ties each one to the
// OpenAPI files (obie-vrp-v3.1.11.yaml, obie-vrp-v4.0.yaml, obl-cvrp-v4.0.yaml). docs/sandbox-vrp.md is the contract.

import type { AisApiVersion } from '../contracts.js';
import { PAYMENT_MEMBERS } from './payment-request.js';

/**
 * One row per VRPType (OBVRPConsentType): the versions whose files define it (CVRP1/2/3 only the v4.0 cVRP file,
 * obl-cvrp-CHANGELOG.md "VRPType values updated"), whether a consent of the type must name its creditor (VRP profile
 * v4.0, "Deferred specification of CreditorAccount and CreditorAgent": "for non-sweeping VRPs a PISP may create a
 * vrp-consent without specifying the CreditorAccount", so a sweeping consent names it), how many PeriodicLimits it
 * needs (both files: PeriodicLimits minItems 1, for every type; the profile's "Deferred specification of VRP Consent
 * Parameters" is not open to any type while the schemas require them), the file its answers are written to (a
 * commercial consent's: the cVRP file, whose payment Status has no CANC), and the consent page's words for it.
 */
export interface VrpTypeRow {
  versions: readonly AisApiVersion[];
  creditorAtConsent: 'required' | 'optional';
  minimumPeriodicLimits: number;
  schema: 'vrp' | 'cvrp';
  label: string;
}

export const VRP_TYPES = {
  'UK.OBIE.VRPType.Sweeping': {
    versions: ['3.1', '4.0'],
    creditorAtConsent: 'required',
    minimumPeriodicLimits: 1,
    schema: 'vrp',
    label: 'Sweeping: moving money between your own accounts',
  },
  'UK.OBIE.VRPType.Other': {
    versions: ['3.1', '4.0'],
    creditorAtConsent: 'optional',
    minimumPeriodicLimits: 1,
    schema: 'vrp',
    label: 'Variable recurring payments',
  },
  'UK.OBIE.VRPType.CVRP1': {
    versions: ['4.0'],
    creditorAtConsent: 'optional',
    minimumPeriodicLimits: 1,
    schema: 'cvrp',
    label: 'Commercial variable recurring payments (cVRP1)',
  },
  'UK.OBIE.VRPType.CVRP2': {
    versions: ['4.0'],
    creditorAtConsent: 'optional',
    minimumPeriodicLimits: 1,
    schema: 'cvrp',
    label: 'Commercial variable recurring payments (cVRP2)',
  },
  'UK.OBIE.VRPType.CVRP3': {
    versions: ['4.0'],
    creditorAtConsent: 'optional',
    minimumPeriodicLimits: 1,
    schema: 'cvrp',
    label: 'Commercial variable recurring payments (cVRP3)',
  },
} as const satisfies Record<string, VrpTypeRow>;

export type VrpTypeName = keyof typeof VRP_TYPES;

export function vrpTypeRow(name: string): VrpTypeRow | undefined {
  return (VRP_TYPES as Readonly<Record<string, VrpTypeRow>>)[name];
}

/** The VRPTypes a version's files define. */
export function vrpTypesOf(version: AisApiVersion): string[] {
  return Object.entries(VRP_TYPES as Readonly<Record<string, VrpTypeRow>>)
    .filter(([, row]) => row.versions.includes(version))
    .map(([name]) => name);
}

/**
 * OBVRPAuthenticationMethods (both files) and how the consent page says each (VRP profile v4.0, "PSU Authentication
 * Methods": "Authentication Not Required … the payments can be made without the PSU being present"; "SCA By TPP").
 */
export const AUTHENTICATION_METHODS = {
  'UK.OBIE.SCA': 'after strong customer authentication of each payment',
  'UK.OBIE.SCANotRequired': 'without asking you each time',
} as const satisfies Record<string, string>;

/** OBVRPInteractionTypes (both files); a payment that gives none is OffSession ("If not provided the default is
 *  OffSession (the customer is not present)"). */
export const INTERACTION_TYPES = ['InSession', 'OffSession'] as const;
export const DEFAULT_INTERACTION_TYPE = 'OffSession';

/** The members of each object the bank reads, per version (the OpenAPI schemas' `properties`). */
export const VRP_MEMBERS = {
  '3.1': {
    /** OBDomesticVRPConsentRequest Data. */
    consentData: ['ReadRefundAccount', 'ControlParameters', 'Initiation'],
    /** OBDomesticVRPControlParameters and one of its PeriodicLimits. */
    controlParameters: [
      'ValidFromDateTime',
      'ValidToDateTime',
      'MaximumIndividualAmount',
      'PeriodicLimits',
      'VRPType',
      'PSUAuthenticationMethods',
      'PSUInteractionTypes',
      'SupplementaryData',
    ],
    periodicLimit: ['PeriodType', 'PeriodAlignment', 'Amount', 'Currency'],
    /** OBDomesticVRPInitiation. */
    initiation: ['DebtorAccount', 'CreditorAccount', 'CreditorPostalAddress', 'RemittanceInformation'],
    /** OBCashAccountDebtorWithName and OBCashAccountCreditor3. */
    cashAccount: ['SchemeName', 'Identification', 'Name', 'SecondaryIdentification'],
    /** OBDomesticVRPRequest Data. */
    paymentData: ['ConsentId', 'PSUAuthenticationMethod', 'PSUInteractionType', 'VRPType', 'Initiation', 'Instruction'],
    /** OBDomesticVRPInstruction. */
    instruction: [
      'InstructionIdentification',
      'EndToEndIdentification',
      'RemittanceInformation',
      'LocalInstrument',
      'InstructedAmount',
      'CreditorPostalAddress',
      'CreditorAccount',
      'SupplementaryData',
    ],
    /** OBVRPFundsConfirmationRequest Data. */
    fundsConfirmationData: ['ConsentId', 'Reference', 'InstructedAmount'],
    risk: PAYMENT_MEMBERS['3.1'].risk,
  },
  '4.0': {
    consentData: ['ReadRefundAccount', 'ControlParameters', 'Initiation'],
    controlParameters: [
      'ValidFromDateTime',
      'ValidToDateTime',
      'MaximumIndividualAmount',
      'PeriodicLimits',
      'VRPType',
      'PSUAuthenticationMethods',
      'PSUInteractionTypes',
      'SupplementaryData',
    ],
    periodicLimit: ['PeriodType', 'PeriodAlignment', 'Amount', 'Currency'],
    initiation: [
      'DebtorAccount',
      'CreditorAccount',
      'CreditorPostalAddress',
      'UltimateCreditor',
      'UltimateDebtor',
      'RemittanceInformation',
      'RegulatoryReporting',
    ],
    cashAccount: ['SchemeName', 'Identification', 'Name', 'SecondaryIdentification', 'Proxy'],
    paymentData: ['ConsentId', 'PSUAuthenticationMethod', 'PSUInteractionType', 'VRPType', 'Initiation', 'Instruction'],
    instruction: [
      'InstructionIdentification',
      'EndToEndIdentification',
      'RemittanceInformation',
      'LocalInstrument',
      'InstructedAmount',
      'CreditorPostalAddress',
      'CreditorAccount',
      'UltimateCreditor',
      'SupplementaryData',
    ],
    fundsConfirmationData: ['ConsentId', 'Reference', 'InstructedAmount'],
    risk: PAYMENT_MEMBERS['4.0'].risk,
  },
} as const satisfies Record<AisApiVersion, Record<string, readonly string[]>>;

/**
 * What differs between the versions for VRP beyond the shared version rows (versions.ts): the maximum length of an
 * account Name (OBCashAccountDebtorWithName Name: Max350Text in v3.1.11, Max70Text in v4.0), and whether a consent the
 * TPP deleted can still be read — v4.0 has CANC among the consent statuses ("The consent resource has been
 * canceled"), v3.1.11's OBDomesticVRPConsentResponse Status enum has only Authorised, AwaitingAuthorisation and
 * Rejected, so there a deleted consent no longer exists for the TPP (400 NotFound, as a deleted CBPII consent).
 */
export interface VrpVersionRow {
  accountNameMax: number;
  revokedReadable: boolean;
}

export const VRP_VERSIONS: Readonly<Record<AisApiVersion, VrpVersionRow>> = {
  '3.1': { accountNameMax: 350, revokedReadable: false },
  '4.0': { accountNameMax: 70, revokedReadable: true },
};

/** OBPAFundsAvailableResult1 FundsAvailable (both files). */
export const FUNDS_AVAILABLE = { yes: 'Available', no: 'NotAvailable' } as const;
