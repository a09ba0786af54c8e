// VRP request bodies for tests (no sockets, no identity: the unit tests of the validation use them too): a consent
// request of either version with any ControlParameters, and the creditor it pays.

import type { Version } from './payments-client.js';

type Json = Record<string, unknown>;

/** The sort code and account number of a creditor at another bank. */
export const CREDITOR = {
  SchemeName: 'UK.OBIE.SortCodeAccountNumber',
  Identification: '20000312345678',
  Name: 'Sweep Savings Ltd',
} as const;

export interface MandateOptions {
  maximum?: string;
  limits?: { PeriodType: string; PeriodAlignment: string; Amount: string; Currency?: string }[];
  types?: string[];
  methods?: string[];
  interactions?: string[];
  validFrom?: string;
  validTo?: string;
  /** Initiation members replaced (undefined: removed). */
  initiation?: Json;
  /** ControlParameters members replaced (undefined: removed). */
  control?: Json;
}

/** An OBDomesticVRPConsentRequest of `version`: a sweeping mandate to CREDITOR, 50.00 each, 200.00 a calendar day. */
export function vrpConsentRequest(version: Version, options: MandateOptions = {}): Json {
  const control: Json = {
    VRPType: options.types ?? ['UK.OBIE.VRPType.Sweeping'],
    PSUAuthenticationMethods: options.methods ?? ['UK.OBIE.SCANotRequired'],
    MaximumIndividualAmount: { Amount: options.maximum ?? '50.00', Currency: 'GBP' },
    PeriodicLimits: (options.limits ?? [{ PeriodType: 'Day', PeriodAlignment: 'Calendar', Amount: '200.00' }]).map((limit) => ({
      Currency: 'GBP',
      ...limit,
    })),
    ...(options.interactions === undefined ? {} : { PSUInteractionTypes: options.interactions }),
    ...(options.validFrom === undefined ? {} : { ValidFromDateTime: options.validFrom }),
    ...(options.validTo === undefined ? {} : { ValidToDateTime: options.validTo }),
  };
  const initiation: Json = {
    CreditorAccount: { ...CREDITOR },
    // v3.1.11 OBDomesticVRPInitiation RemittanceInformation: Reference; v4.0 OBRemittanceInformation2: Unstructured lines.
    RemittanceInformation: version === '3.1' ? { Reference: 'SWEEP-4711' } : { Unstructured: ['SWEEP-4711'] },
  };
  for (const [target, changes] of [
    [control, options.control],
    [initiation, options.initiation],
  ] as const)
    for (const [name, value] of Object.entries(changes ?? {})) {
      if (value === undefined) delete target[name];
      else target[name] = value;
    }
  return {
    Data: { ReadRefundAccount: 'No', ControlParameters: control, Initiation: initiation },
    Risk: { PaymentContextCode: 'TransferToSelf' },
  };
}
