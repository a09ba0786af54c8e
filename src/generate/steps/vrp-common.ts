// What the VRP steps write differently per API version and per VRPType's file (the VRP file, or the OBL cVRP v4.0
// file for a commercial type), one row each, and the pieces the VRP steps share: the signed POSTs, their bodies and the
// checks of a payment made or refused under the mandate. The signing, idempotency and answer checks are the payments
// family's (payments-common.ts), read through this row.

import { API_FAMILIES } from '../../api-families.js';
import { VRP_TYPES } from '../vrp-types.js';
import type { ApiVersion } from '../api-versions.js';
import type { RequestBody, ResponseSchema, ScriptPart, StepContext } from '../model.js';
import { DEFAULT_VRP_SETTINGS, type VrpSettings } from '../vrp-plan.js';
import {
  familyVersion,
  PAYMENT_CONTENT_TYPE,
  signedPost,
  type ConsentResource,
  type FamilyVersion,
  type SignedPost,
} from './payments-common.js';

/** A VRP schema name without its file (`consent-created`, …): the row picks the file. */
export type VrpSchema =
  'consent-created' | 'consent-read' | 'funds-confirmation' | 'payment-created' | 'payment-read' | 'payment-details' | 'error';

/** What the VRP steps write per version. */
export interface VrpVersionRow {
  /** The consent's status before and after the PSU's authorisation (v3.1.11 names, v4.0 OBInternalConsentStatus1Code);
   *  a VRP consent is never consumed (v4.0 has no COND for it: it stays AUTH while payments are made). */
  consentAwaiting: string;
  consentAuthorised: string;
  /** The payment statuses of a payment the bank did not make, by file (the cVRP file has no CANC). */
  paymentNotMade: Readonly<Record<'vrp' | 'cvrp', readonly string[]>>;
  /** The ErrorCode of a payment outside the ControlParameters: v3.1.11 OBError1 lists
   *  UK.OBIE.Rules.FailsControlParameters; v4.0's code set names it U014 (obl-internal-codeset.csv). */
  limitCode: string;
  /** Whether the refusal must name the ControlParameters member in Path: v4.0 domestic-vrps "must … pass in the control
   *  parameter field that caused the error"; v3.1.11 only recommends Path (OBError1 "Recommended but optional"). */
  limitPathRequired: boolean;
  /** Whether the version's schemas are the v4.0 files' (`obie-v4-…`) and its errors the v4.0 shape. */
  v4Files: boolean;
  /** FundsAvailable of a funds confirmation the account covers (OBPAFundsAvailableResult1, both files). */
  fundsAvailable: string;
}

export const VRP_VERSION_ROWS: Readonly<Record<ApiVersion, VrpVersionRow>> = {
  '3.1': {
    consentAwaiting: 'AwaitingAuthorisation',
    consentAuthorised: 'Authorised',
    paymentNotMade: { vrp: ['Rejected'], cvrp: ['Rejected'] },
    limitCode: 'UK.OBIE.Rules.FailsControlParameters',
    limitPathRequired: false,
    v4Files: false,
    fundsAvailable: 'Available',
  },
  '4.0': {
    consentAwaiting: 'AWAU',
    consentAuthorised: 'AUTH',
    paymentNotMade: { vrp: ['RJCT', 'CANC', 'BLCK'], cvrp: ['RJCT', 'BLCK'] },
    limitCode: 'U014',
    limitPathRequired: true,
    v4Files: true,
    fundsAvailable: 'Available',
  },
};

/** The statuses a refused request may answer with, of the operations the steps call: the 4xx the files document for a
 *  request refused on its content (400, 403, and 409 for POST /domestic-vrps), and 401 after the consent's DELETE (its
 *  tokens may be revoked with it: OB R/W Data API Profile, "Consent Revocation"). */
export const VRP_REFUSALS = { limit: [400], revoked: [400, 401, 403] } as const;

/** The row of the context: its version's, with the schemas of the type's file. */
export interface Vrp extends VrpVersionRow, Omit<FamilyVersion, 'schema'> {
  settings: VrpSettings;
  wireType: string;
  notMade: readonly string[];
  schema(name: VrpSchema): ResponseSchema;
}

export function vrp(context: Pick<StepContext, 'apiVersion'> & { vrp?: VrpSettings }): Vrp {
  const settings = context.vrp ?? DEFAULT_VRP_SETTINGS;
  const type = VRP_TYPES[settings.type];
  if (!(type.versions as readonly string[]).includes(context.apiVersion))
    throw new TypeError(`VRPType ${settings.type} is not defined by the v${context.apiVersion} files (the config refuses it)`);
  const row = VRP_VERSION_ROWS[context.apiVersion];
  const file = familyVersion(API_FAMILIES.vrp, context.apiVersion, row.v4Files, `obie-${type.schema}-error`);
  return {
    ...row,
    ...file,
    settings,
    wireType: type.wire,
    notMade: row.paymentNotMade[type.schema],
    schema: (name) => file.schema(`obie-${type.schema}-${name}`),
  };
}

/** The standard's ControlParameters of the consent: flow.vrp's, its VRPType first (OBDomesticVRPControlParameters). */
export function consentControlParameters(version: Vrp): Record<string, unknown> {
  const control = version.settings.controlParameters;
  return {
    ...(control.ValidFromDateTime === undefined ? {} : { ValidFromDateTime: control.ValidFromDateTime }),
    ...(control.ValidToDateTime === undefined ? {} : { ValidToDateTime: control.ValidToDateTime }),
    MaximumIndividualAmount: control.MaximumIndividualAmount,
    PeriodicLimits: control.PeriodicLimits,
    VRPType: [version.wireType],
    PSUAuthenticationMethods: control.PSUAuthenticationMethods,
    ...(control.PSUInteractionTypes === undefined ? {} : { PSUInteractionTypes: control.PSUInteractionTypes }),
  };
}

/** The body of a VRP request (templates/bodies/domestic-vrp*.json.hbs): `params` are the template's. */
export function vrpBody(template: string, params: Readonly<Record<string, unknown>>): Extract<RequestBody, { mode: 'raw' }> {
  return { mode: 'raw', template, contentType: PAYMENT_CONTENT_TYPE, params };
}

/** The body of a payment of `amount` under the consent: its method and interaction type are the consent's first
 *  (a payment must be one the consent allows: VRP v4.0 domestic-vrps). */
export function paymentBody(version: Vrp, amount: string): Extract<RequestBody, { mode: 'raw' }> {
  const control = version.settings.controlParameters;
  return vrpBody('domestic-vrp', {
    amount,
    currency: control.MaximumIndividualAmount.Currency,
    vrpType: version.wireType,
    authenticationMethod: control.PSUAuthenticationMethods[0] ?? 'UK.OBIE.SCANotRequired',
    interactionType: control.PSUInteractionTypes?.[0] ?? '',
  });
}

/** The pre-request part of every new payment: a fresh idempotency key and identifications (templates/scripts). */
export const NEW_PAYMENT: ScriptPart = { template: 'vrp-payment.prerequest' };

/** The VRP consent (its ControlParameters as created, whatever payments were made: vrp-consent-read.test). */
export const VRP_CONSENT: ConsentResource<VrpSchema> = {
  path: '/domestic-vrp-consents',
  readSchema: 'consent-read',
  readTest: 'vrp-consent-read.test',
};

/** A payment of `amount` under the consent, signed and idempotent with the PSU's token; a new payment's pre-request
 *  part sets its fresh key and identifications (none: a replay of the one before). */
export function paymentPost(version: Vrp, amount: string, prerequest: readonly ScriptPart[] = [NEW_PAYMENT]): SignedPost {
  return signedPost({
    url: `${version.base}/domestic-vrps`,
    tokenVariable: 'access_token',
    keyVariable: 'vrp_idempotency_key',
    body: paymentBody(version, amount),
    prerequest,
  });
}
