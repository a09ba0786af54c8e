// The validation of VRP requests (src/sandbox/resource/vrp-request.ts): every rule of a consent's ControlParameters
// and Initiation, of a payment and of a funds confirmation, one row per fault with the code and path it must give, in
// both versions where the rule is the same; what a valid consent's mandate holds; what the permissive profile drops.

import { describe, expect, it } from 'vitest';

import { validateVrpConsent, validateVrpFunds, validateVrpPayment } from '../../src/sandbox/resource/vrp-request.js';
import type { Version } from '../helpers/payments-client.js';
import { CREDITOR, vrpConsentRequest } from '../helpers/vrp-requests.js';
import type { MandateOptions } from '../helpers/vrp-requests.js';

type Json = Record<string, unknown>;

const NOW = new Date('2026-06-10T12:00:00Z');
const VERSIONS: readonly Version[] = ['3.1', '4.0'];

function errorsOf(result: { ok: true } | { ok: false; errors: { ErrorCode: string; Path?: string }[] }): string[] {
  return result.ok ? [] : result.errors.map((error) => `${error.ErrorCode} ${error.Path ?? ''}`);
}

describe('a VRP consent request', () => {
  it.each(VERSIONS)('v%s: a valid one gives its mandate in minor units, the dates as instants', (version) => {
    const result = validateVrpConsent(
      vrpConsentRequest(version, {
        maximum: '12.5',
        limits: [
          { PeriodType: 'Week', PeriodAlignment: 'Consent', Amount: '100' },
          { PeriodType: 'Month', PeriodAlignment: 'Calendar', Amount: '300.00' },
        ],
        interactions: ['OffSession', 'OffSession'],
        validFrom: '2026-06-10T09:00:00+01:00',
        validTo: '2026-12-31T23:59:59+00:00',
      }),
      version,
      'strict-headless',
      NOW,
    );
    expect(result.ok && result.value.mandate).toEqual({
      vrpTypes: ['UK.OBIE.VRPType.Sweeping'],
      authenticationMethods: ['UK.OBIE.SCANotRequired'],
      interactionTypes: ['OffSession'],
      validFrom: '2026-06-10T08:00:00.000Z',
      validTo: '2026-12-31T23:59:59.000Z',
      currency: 'GBP',
      maximumIndividualMinor: 12_50,
      periodicLimits: [
        { PeriodType: 'Week', PeriodAlignment: 'Consent', amountMinor: 100_00 },
        { PeriodType: 'Month', PeriodAlignment: 'Calendar', amountMinor: 300_00 },
      ],
    });
  });

  const C = 'Data.ControlParameters';
  /** [what, options, version (both when absent), the error] */
  const FAULTS: readonly [string, MandateOptions, Version | undefined, string][] = [
    ['no VRPType', { control: { VRPType: undefined } }, undefined, `UK.OBIE.Field.Missing ${C}.VRPType`],
    ['an empty VRPType', { types: [] }, undefined, `UK.OBIE.Field.Invalid ${C}.VRPType`],
    [
      'a VRPType of no file',
      { types: ['UK.OBIE.VRPType.Sweeping', 'UK.OBIE.VRPType.Cards'] },
      undefined,
      `UK.OBIE.Field.Invalid ${C}.VRPType[1]`,
    ],
    // The cVRP types are the v4.0 cVRP file's (obl-cvrp-CHANGELOG.md): v3.1.11 has none of them.
    ['a cVRP type on v3.1', { types: ['UK.OBIE.VRPType.CVRP1'], initiation: {} }, '3.1', `UK.OBIE.Field.Invalid ${C}.VRPType[0]`],
    [
      'no PSUAuthenticationMethods',
      { control: { PSUAuthenticationMethods: undefined } },
      undefined,
      `UK.OBIE.Field.Missing ${C}.PSUAuthenticationMethods`,
    ],
    [
      'an unknown PSUAuthenticationMethod',
      { methods: ['UK.OBIE.SCAByTPP'] },
      undefined,
      `UK.OBIE.Field.Invalid ${C}.PSUAuthenticationMethods[0]`,
    ],
    [
      'an unknown PSUInteractionType',
      { interactions: ['UK.OB.InSession'] },
      undefined,
      `UK.OBIE.Field.Invalid ${C}.PSUInteractionTypes[0]`,
    ],
    [
      'no MaximumIndividualAmount',
      { control: { MaximumIndividualAmount: undefined } },
      undefined,
      `UK.OBIE.Field.Missing ${C}.MaximumIndividualAmount`,
    ],
    ['a zero MaximumIndividualAmount', { maximum: '0.00' }, undefined, `UK.OBIE.Field.Invalid ${C}.MaximumIndividualAmount.Amount`],
    [
      'a MaximumIndividualAmount in another currency',
      { control: { MaximumIndividualAmount: { Amount: '10.00', Currency: 'EUR' } } },
      undefined,
      `UK.OBIE.Unsupported.Currency ${C}.MaximumIndividualAmount.Currency`,
    ],
    ['no PeriodicLimits', { control: { PeriodicLimits: undefined } }, undefined, `UK.OBIE.Field.Missing ${C}.PeriodicLimits`],
    ['an empty PeriodicLimits', { limits: [] }, undefined, `UK.OBIE.Field.Invalid ${C}.PeriodicLimits`],
    [
      'a PeriodType of no file',
      { limits: [{ PeriodType: 'Quarter', PeriodAlignment: 'Calendar', Amount: '10' }] },
      undefined,
      `UK.OBIE.Field.Invalid ${C}.PeriodicLimits[0].PeriodType`,
    ],
    [
      'a PeriodAlignment of no file',
      { limits: [{ PeriodType: 'Day', PeriodAlignment: 'Rolling', Amount: '10' }] },
      undefined,
      `UK.OBIE.Field.Invalid ${C}.PeriodicLimits[0].PeriodAlignment`,
    ],
    // "for a PeriodType of Fortnight the PeriodAlignment must be Consent".
    [
      'a calendar Fortnight',
      { limits: [{ PeriodType: 'Fortnight', PeriodAlignment: 'Calendar', Amount: '10' }] },
      undefined,
      `UK.OBIE.Field.Invalid ${C}.PeriodicLimits[0].PeriodAlignment`,
    ],
    [
      'a periodic limit in another currency',
      { limits: [{ PeriodType: 'Day', PeriodAlignment: 'Calendar', Amount: '10', Currency: 'EUR' }] },
      undefined,
      `UK.OBIE.Unsupported.Currency ${C}.PeriodicLimits[0].Currency`,
    ],
    [
      'a periodic limit of more than 2 decimals',
      { limits: [{ PeriodType: 'Day', PeriodAlignment: 'Calendar', Amount: '10.001' }] },
      undefined,
      `UK.OBIE.Field.Invalid ${C}.PeriodicLimits[0].Amount`,
    ],
    [
      'SupplementaryData the bank cannot process',
      { control: { SupplementaryData: { Cap: 1 } } },
      undefined,
      `UK.OBIE.Field.Unexpected ${C}.SupplementaryData`,
    ],
    [
      'a ValidFromDateTime without a time zone',
      { validFrom: '2026-06-10T09:00:00' },
      undefined,
      `UK.OBIE.Field.InvalidDate ${C}.ValidFromDateTime`,
    ],
    [
      'a ValidToDateTime a day before ValidFromDateTime (the bank dates)',
      { validFrom: '2026-07-01T00:30:00+01:00', validTo: '2026-06-30T22:00:00+00:00' },
      undefined,
      `UK.OBIE.Field.InvalidDate ${C}.ValidToDateTime`,
    ],
    [
      'a ValidToDateTime before today',
      { validTo: '2026-06-09T22:59:00+00:00' },
      undefined,
      `UK.OBIE.Field.InvalidDate ${C}.ValidToDateTime`,
    ],
    // "Deferred specification of CreditorAccount …": for non-sweeping VRPs only.
    [
      'a sweeping consent without a creditor',
      { initiation: { CreditorAccount: undefined } },
      undefined,
      'UK.OBIE.Field.Missing Data.Initiation.CreditorAccount',
    ],
    [
      'a debtor account without a Name (OBCashAccountDebtorWithName)',
      { initiation: { DebtorAccount: { SchemeName: 'UK.OBIE.SortCodeAccountNumber', Identification: '40885977236662' } } },
      undefined,
      'UK.OBIE.Field.Missing Data.Initiation.DebtorAccount.Name',
    ],
    [
      'a debtor account in a scheme the bank does not name its accounts in',
      { initiation: { DebtorAccount: { SchemeName: 'UK.OBIE.PAN', Identification: '4111111111111111', Name: 'A' } } },
      undefined,
      'UK.OBIE.Unsupported.Scheme Data.Initiation.DebtorAccount.SchemeName',
    ],
    [
      'a creditor Name over 70 characters on v4.0 (Max70Text; v3.1.11 Max350Text)',
      { initiation: { CreditorAccount: { ...CREDITOR, Name: 'N'.repeat(71) } } },
      '4.0',
      'UK.OBIE.Field.Invalid Data.Initiation.CreditorAccount.Name',
    ],
    ['a member the version does not define', { control: { Cap: '10' } }, undefined, `UK.OBIE.Field.Unexpected ${C}.Cap`],
  ];

  it.each(
    FAULTS.flatMap(([what, options, only, error]) =>
      (only === undefined ? VERSIONS : [only]).map((version) => [version, what, options, error] as const),
    ),
  )('v%s: %s → %s', (version, _what, options, error) => {
    expect(errorsOf(validateVrpConsent(vrpConsentRequest(version, options), version, 'strict-headless', NOW))).toEqual([error]);
  });

  it('v4.0: a cVRP or Other consent may leave its creditor to each payment; a v3.1 Other consent too', () => {
    for (const [version, type] of [
      ['4.0', 'UK.OBIE.VRPType.CVRP2'],
      ['4.0', 'UK.OBIE.VRPType.Other'],
      ['3.1', 'UK.OBIE.VRPType.Other'],
    ] as const)
      expect(
        validateVrpConsent(
          vrpConsentRequest(version, { types: [type], initiation: { CreditorAccount: undefined } }),
          version,
          'strict-headless',
          NOW,
        ).ok,
      ).toBe(true);
    // A consent of both kinds names its creditor (the sweeping row asks for it).
    expect(
      errorsOf(
        validateVrpConsent(
          vrpConsentRequest('4.0', {
            types: ['UK.OBIE.VRPType.CVRP1', 'UK.OBIE.VRPType.Sweeping'],
            initiation: { CreditorAccount: undefined },
          }),
          '4.0',
          'strict-headless',
          NOW,
        ),
      ),
    ).toEqual(['UK.OBIE.Field.Missing Data.Initiation.CreditorAccount']);
  });

  it('a ValidToDateTime later today (the bank date) is valid; one the day before is not', () => {
    expect(validateVrpConsent(vrpConsentRequest('4.0', { validTo: '2026-06-10T00:30:00+01:00' }), '4.0', 'strict-headless', NOW).ok).toBe(
      true,
    );
  });

  it('the permissive profile drops members the version does not define, at every level the bank reads, and keeps the rest', () => {
    const request = vrpConsentRequest('4.0', {
      control: { Cap: '10', MaximumIndividualAmount: { Amount: '10.00', Currency: 'GBP', Extra: 1 } },
      limits: [{ PeriodType: 'Day', PeriodAlignment: 'Calendar', Amount: '20.00', Extra: 1 } as never],
      initiation: { CreditorAccount: { ...CREDITOR, Extra: 1 } },
    });
    const result = validateVrpConsent(request, '4.0', 'permissive-headless', NOW);
    expect(result.ok).toBe(true);
    const data = (result.ok ? result.value.Data : {}) as { ControlParameters: Json; Initiation: Json };
    expect(data.ControlParameters.Cap).toBeUndefined();
    expect(data.ControlParameters.MaximumIndividualAmount).toEqual({ Amount: '10.00', Currency: 'GBP' });
    expect(data.ControlParameters.PeriodicLimits).toEqual([
      { Currency: 'GBP', PeriodType: 'Day', PeriodAlignment: 'Calendar', Amount: '20.00' },
    ]);
    expect(data.Initiation.CreditorAccount).toEqual(CREDITOR);
    expect(errorsOf(validateVrpConsent(request, '4.0', 'strict-headless', NOW))).toHaveLength(4);
  });

  it('every fault of a body is reported at once', () => {
    const request = vrpConsentRequest('3.1', {
      types: ['x'],
      maximum: 'ten',
      limits: [{ PeriodType: 'Day', PeriodAlignment: 'x', Amount: '1' }],
    });
    expect(errorsOf(validateVrpConsent(request, '3.1', 'strict-headless', NOW))).toEqual([
      `UK.OBIE.Field.Invalid ${C}.VRPType[0]`,
      `UK.OBIE.Field.Invalid ${C}.MaximumIndividualAmount.Amount`,
      `UK.OBIE.Field.Invalid ${C}.PeriodicLimits[0].PeriodAlignment`,
    ]);
  });
});

describe('a VRP payment request', () => {
  function payment(version: Version, instruction: Json = {}): Json {
    const consent = vrpConsentRequest(version) as { Data: { Initiation: Json }; Risk: Json };
    return {
      Data: {
        ConsentId: 'vrc-1',
        PSUAuthenticationMethod: 'UK.OBIE.SCANotRequired',
        VRPType: 'UK.OBIE.VRPType.Sweeping',
        Initiation: consent.Data.Initiation,
        Instruction: {
          InstructionIdentification: 'I-1',
          EndToEndIdentification: 'E-1',
          InstructedAmount: { Amount: '10.00', Currency: 'GBP' },
          CreditorAccount: CREDITOR,
          ...instruction,
        },
      },
      Risk: consent.Risk,
    };
  }

  it.each(VERSIONS)('v%s: a valid one gives its amount, currency and creditor', (version) => {
    const result = validateVrpPayment(
      payment(version, { InstructedAmount: { Amount: '10.5', Currency: 'EUR' } }),
      version,
      'strict-headless',
    );
    // Another currency is the limits' to refuse (the mandate's currency, vrp-limits.ts), not a field fault.
    expect(result.ok && [result.value.amountMinor, result.value.currency, result.value.creditor]).toEqual([10_50, 'EUR', CREDITOR]);
  });

  const FAULTS: readonly [string, Json, Json, Version | undefined, string][] = [
    [
      'no PSUAuthenticationMethod',
      { PSUAuthenticationMethod: undefined },
      {},
      undefined,
      'UK.OBIE.Field.Missing Data.PSUAuthenticationMethod',
    ],
    [
      'an unknown PSUAuthenticationMethod',
      { PSUAuthenticationMethod: 'SCA' },
      {},
      undefined,
      'UK.OBIE.Field.Invalid Data.PSUAuthenticationMethod',
    ],
    ['an unknown PSUInteractionType', { PSUInteractionType: 'Present' }, {}, undefined, 'UK.OBIE.Field.Invalid Data.PSUInteractionType'],
    ['no VRPType', { VRPType: undefined }, {}, undefined, 'UK.OBIE.Field.Missing Data.VRPType'],
    ['a cVRP type on v3.1', { VRPType: 'UK.OBIE.VRPType.CVRP3' }, {}, '3.1', 'UK.OBIE.Field.Invalid Data.VRPType'],
    ['no Instruction', { Instruction: undefined }, {}, undefined, 'UK.OBIE.Field.Missing Data.Instruction'],
    [
      'no EndToEndIdentification',
      {},
      { EndToEndIdentification: undefined },
      undefined,
      'UK.OBIE.Field.Missing Data.Instruction.EndToEndIdentification',
    ],
    [
      'an amount that is none',
      {},
      { InstructedAmount: { Amount: '1,00', Currency: 'GBP' } },
      undefined,
      'UK.OBIE.Field.Invalid Data.Instruction.InstructedAmount.Amount',
    ],
    [
      'no creditor in the instruction (1..1)',
      {},
      { CreditorAccount: undefined },
      undefined,
      'UK.OBIE.Field.Missing Data.Instruction.CreditorAccount',
    ],
    [
      'SupplementaryData the bank cannot process',
      {},
      { SupplementaryData: { x: 1 } },
      undefined,
      'UK.OBIE.Field.Unexpected Data.Instruction.SupplementaryData',
    ],
    ['a member the version does not define', {}, { Purpose: 'x' }, undefined, 'UK.OBIE.Field.Unexpected Data.Instruction.Purpose'],
  ];

  it.each(
    FAULTS.flatMap(([what, data, instruction, only, error]) =>
      (only === undefined ? VERSIONS : [only]).map((version) => [version, what, data, instruction, error] as const),
    ),
  )('v%s: %s → %s', (version, _what, data, instruction, error) => {
    const body = payment(version) as { Data: Json & { Instruction: Json } };
    for (const [target, changes] of [
      [body.Data, data],
      [body.Data.Instruction, instruction],
    ] as const)
      for (const [name, value] of Object.entries(changes)) {
        if (value === undefined) delete target[name];
        else target[name] = value;
      }
    expect(errorsOf(validateVrpPayment(body, version, 'strict-headless'))).toEqual([error]);
  });
});

describe('a VRP funds confirmation request', () => {
  it.each(VERSIONS)('v%s: the amount in the account currency, the Reference optional', (version) => {
    const ok = validateVrpFunds(
      { Data: { ConsentId: 'vrc-1', InstructedAmount: { Amount: '5', Currency: 'GBP' } } },
      version,
      'strict-headless',
    );
    expect(ok.ok && ok.value.amountMinor).toBe(5_00);
    expect(
      errorsOf(
        validateVrpFunds({ Data: { ConsentId: 'vrc-1', InstructedAmount: { Amount: '5', Currency: 'USD' } } }, version, 'strict-headless'),
      ),
    ).toEqual(['UK.OBIE.Unsupported.Currency Data.InstructedAmount.Currency']);
    expect(
      errorsOf(
        validateVrpFunds(
          { Data: { ConsentId: 'vrc-1', Reference: 'R'.repeat(36), InstructedAmount: { Amount: '5', Currency: 'GBP' } } },
          version,
          'strict-headless',
        ),
      ),
    ).toEqual(['UK.OBIE.Field.Invalid Data.Reference']);
  });
});
