// The values of the VRP family a person may change (flow.vrp: the VRPType and the consent's ControlParameters), as
// tables: which VRPTypes each API version's files define and what each type requires of the ControlParameters, the
// period types and alignments, the defaults, and the rules a mandate is held to before any request (config schema,
// src/config/schema.ts). Imports nothing: the config, the generator's mandate walk (src/generate/vrp-plan.ts), the
// doctor and the tests read it.

/** An API version as the VRP files number them (src/generate/api-versions.ts holds the version rows; this module stays
 *  free of the generator so the config schema imports it alone). */
export type VrpApiVersion = '3.1' | '4.0';

/** Members of OBDomesticVRPControlParameters every type's consent carries (both VRP files and the v4.0 cVRP file:
 *  `required: [VRPType, PSUAuthenticationMethods, MaximumIndividualAmount, PeriodicLimits]`; VRPType is flow.vrp.type). */
const FILE_REQUIRED = ['PSUAuthenticationMethods', 'MaximumIndividualAmount', 'PeriodicLimits'] as const;

/**
 * One row per VRPType obflow can ask for (flow.vrp.type): its wire value (OBVRPConsentType), the versions whose files
 * define it (v3.1.11 and v4.0 VRP: Sweeping and Other; the OBL cVRP v4.0 file adds CVRP1/2/3,
 * obl-cvrp-CHANGELOG.md "VRPType values updated"), which file its answers follow (the cVRP file's payment Status has no
 * CANC), and the ControlParameters members it needs.
 */
export interface VrpTypeRow {
  wire: string;
  versions: readonly VrpApiVersion[];
  schema: 'vrp' | 'cvrp';
  required: readonly string[];
}

export const VRP_TYPES = {
  Sweeping: { wire: 'UK.OBIE.VRPType.Sweeping', versions: ['3.1', '4.0'], schema: 'vrp', required: FILE_REQUIRED },
  Other: { wire: 'UK.OBIE.VRPType.Other', versions: ['3.1', '4.0'], schema: 'vrp', required: FILE_REQUIRED },
  CVRP1: { wire: 'UK.OBIE.VRPType.CVRP1', versions: ['4.0'], schema: 'cvrp', required: FILE_REQUIRED },
  CVRP2: { wire: 'UK.OBIE.VRPType.CVRP2', versions: ['4.0'], schema: 'cvrp', required: FILE_REQUIRED },
  CVRP3: { wire: 'UK.OBIE.VRPType.CVRP3', versions: ['4.0'], schema: 'cvrp', required: FILE_REQUIRED },
} as const satisfies Record<string, VrpTypeRow>;

export type VrpTypeName = keyof typeof VRP_TYPES;
export const VRP_TYPE_NAMES = Object.keys(VRP_TYPES) as VrpTypeName[];
export const DEFAULT_VRP_TYPE: VrpTypeName = 'Sweeping';

/** OBDomesticVRPControlParameters PeriodicLimits.PeriodType (both files) and whether a calendar alignment exists for it
 *  ("for a PeriodType of Fortnight the PeriodAlignment must be Consent"). */
export const PERIOD_TYPES = {
  Day: { calendar: true },
  Week: { calendar: true },
  Fortnight: { calendar: false },
  Month: { calendar: true },
  'Half-year': { calendar: true },
  Year: { calendar: true },
} as const satisfies Record<string, { calendar: boolean }>;
export type PeriodTypeName = keyof typeof PERIOD_TYPES;
export const PERIOD_TYPE_NAMES = Object.keys(PERIOD_TYPES) as PeriodTypeName[];

/** PeriodAlignment (both files). */
export const PERIOD_ALIGNMENTS = ['Consent', 'Calendar'] as const;
export type PeriodAlignmentName = (typeof PERIOD_ALIGNMENTS)[number];

/** OBVRPAuthenticationMethods and OBVRPInteractionTypes (both files). */
export const AUTHENTICATION_METHODS = ['UK.OBIE.SCA', 'UK.OBIE.SCANotRequired'] as const;
export const INTERACTION_TYPES = ['InSession', 'OffSession'] as const;

export interface VrpAmount {
  Amount: string;
  Currency: string;
}

export interface VrpPeriodicLimit extends VrpAmount {
  PeriodType: PeriodTypeName;
  PeriodAlignment: PeriodAlignmentName;
}

/** OBDomesticVRPControlParameters as flow.vrp.controlParameters holds it (the standard's names; VRPType is flow.vrp.type). */
export interface VrpControlParameters {
  ValidFromDateTime?: string | undefined;
  ValidToDateTime?: string | undefined;
  MaximumIndividualAmount: VrpAmount;
  PeriodicLimits: VrpPeriodicLimit[];
  PSUAuthenticationMethods: (typeof AUTHENTICATION_METHODS)[number][];
  PSUInteractionTypes?: (typeof INTERACTION_TYPES)[number][] | undefined;
}

/** The sandbox demo's mandate: at most 10.00 GBP a payment, 25.00 GBP a day counted from the consent's creation, paid
 *  without the PSU present (a sweep). Small enough for the sandbox's accounts, large enough for a walk of five. */
export const VRP_CONTROL_DEFAULTS: VrpControlParameters = {
  PSUAuthenticationMethods: ['UK.OBIE.SCANotRequired'],
  MaximumIndividualAmount: { Amount: '10.00', Currency: 'GBP' },
  PeriodicLimits: [{ PeriodType: 'Day', PeriodAlignment: 'Consent', Amount: '25.00', Currency: 'GBP' }],
};

export interface VrpProblem {
  /** Under flow.vrp. */
  path: string[];
  message: string;
}

/** Why a text is not an amount of a mandate: OBActiveCurrencyAndAmount_SimpleType's digits, more than zero, and at
 *  most two decimals (the walk counts in pennies, src/generate/vrp-plan.ts, as the bank does in GBP). */
export function vrpAmountProblem(amount: string): string | undefined {
  if (!/^\d{1,13}(\.\d{1,5})?$/.test(amount))
    return 'must be a decimal amount of at most 13 digits and 5 decimals, as text (OBActiveCurrencyAndAmount_SimpleType), e.g. "10.00"';
  if (!/[1-9]/.test(amount)) return 'must be more than zero';
  if (/\.\d{3,}$/.test(amount)) return 'must have at most 2 decimals (the mandate walk counts in pennies)';
  return undefined;
}

/** Whether a row is defined by a version's files. */
export function vrpTypeServes(type: VrpTypeName, version: VrpApiVersion): boolean {
  return (VRP_TYPES[type].versions as readonly string[]).includes(version);
}

/** A VRPType the versions' files do not define: one problem naming the versions that do. */
export function vrpTypeVersionProblem(type: VrpTypeName, versions: readonly VrpApiVersion[]): VrpProblem | undefined {
  const missing = versions.filter((version) => !vrpTypeServes(type, version));
  if (missing.length === 0) return undefined;
  const row = VRP_TYPES[type];
  return {
    path: ['type'],
    message:
      `"${type}" (${row.wire}) is not defined by the v${missing.join(', v')} VRP file; it is a v${row.versions.join('/v')} type ` +
      `(OBL cVRP v4.0): set flow.apiVersion to "${row.versions[row.versions.length - 1] ?? ''}" or flow.vrp.type to "Sweeping" or "Other"`,
  };
}

/**
 * The rules a mandate is held to before anything is sent (the bank would refuse it with a 400, or the walk could not
 * be planned): each amount more than zero and of one currency (the bank checks every payment against one currency),
 * each period type and alignment known, a Fortnight aligned to the consent, ValidFromDateTime not after
 * ValidToDateTime, and what the type requires present.
 */
export function controlParameterProblems(type: VrpTypeName, control: Partial<VrpControlParameters>): VrpProblem[] {
  const problems: VrpProblem[] = [];
  const at = (...path: (string | number)[]): string[] => ['controlParameters', ...path.map(String)];
  const record = control as Readonly<Record<string, unknown>>;
  for (const member of VRP_TYPES[type].required)
    if (record[member] === undefined)
      problems.push({ path: at(member), message: `is required for VRPType ${type} (OBDomesticVRPControlParameters)` });
  const currency = control.MaximumIndividualAmount?.Currency;
  const amount = (value: VrpAmount | undefined, path: string[]) => {
    if (value === undefined) return;
    const problem = vrpAmountProblem(value.Amount);
    if (problem !== undefined) problems.push({ path: [...path, 'Amount'], message: problem });
    if (currency !== undefined && value.Currency !== currency)
      problems.push({
        path: [...path, 'Currency'],
        message: `is ${value.Currency}, but MaximumIndividualAmount is in ${currency}: a mandate has one currency`,
      });
  };
  amount(control.MaximumIndividualAmount, at('MaximumIndividualAmount'));
  if (control.PeriodicLimits !== undefined && control.PeriodicLimits.length === 0)
    problems.push({ path: at('PeriodicLimits'), message: 'must hold at least one limit (PeriodicLimits minItems 1)' });
  for (const [index, limit] of (control.PeriodicLimits ?? []).entries()) {
    const path = at('PeriodicLimits', index);
    amount(limit, path);
    const row = (PERIOD_TYPES as Readonly<Record<string, { calendar: boolean }>>)[limit.PeriodType];
    if (row === undefined) problems.push({ path: [...path, 'PeriodType'], message: `must be one of ${PERIOD_TYPE_NAMES.join(', ')}` });
    if (!(PERIOD_ALIGNMENTS as readonly string[]).includes(limit.PeriodAlignment))
      problems.push({ path: [...path, 'PeriodAlignment'], message: `must be one of ${PERIOD_ALIGNMENTS.join(', ')}` });
    else if (row !== undefined && !row.calendar && limit.PeriodAlignment === 'Calendar')
      problems.push({
        path: [...path, 'PeriodAlignment'],
        message: `must be Consent for a PeriodType of ${limit.PeriodType} (the ISO calendar has no fortnights)`,
      });
  }
  const from = control.ValidFromDateTime === undefined ? undefined : Date.parse(control.ValidFromDateTime);
  const to = control.ValidToDateTime === undefined ? undefined : Date.parse(control.ValidToDateTime);
  for (const [name, value] of [
    ['ValidFromDateTime', from],
    ['ValidToDateTime', to],
  ] as const)
    if (value !== undefined && Number.isNaN(value))
      problems.push({ path: at(name), message: 'must be an ISO 8601 date-time with a time zone, e.g. "2026-01-01T00:00:00+00:00"' });
  if (from !== undefined && to !== undefined && from > to)
    problems.push({ path: at('ValidToDateTime'), message: 'is before ValidFromDateTime: no payment could be made under the consent' });
  return problems;
}
