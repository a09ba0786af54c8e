// The VRP family's config rules (src/generate/vrp-types.ts, through the config schema) and the mandate walk's plan
// (src/generate/vrp-plan.ts): each rule a case that fails when its code is removed (docs/notes.md lists the deletions).

import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { VRP_CONTROL_DEFAULTS, VRP_TYPES, type VrpControlParameters } from '../../src/generate/vrp-types.js';
import { ObflowError } from '../../src/errors.js';
import { legVersions } from '../../src/pipeline/legs.js';
import { planMandate, WALK_MAX_MADE, type VrpPlan } from '../../src/generate/vrp-plan.js';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { FAMILY_SPEC_FILE_NAMES } from '../../src/generate/schemas.js';
import { needs, obieSpecs, specPath } from '../helpers/prerequisites.js';

type Json = Record<string, unknown>;

/** The config's problems (their dotted paths and messages) for flow.apis vrp with these flow settings. */
function problems(flow: Json): string[] {
  const result = configSchema.safeParse({ flow: { apis: ['vrp'], ...flow } });
  if (result.success) return [];
  return result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
}
const control = (change: Partial<VrpControlParameters> | Json): Json => ({ ...VRP_CONTROL_DEFAULTS, ...change });
const limit = (change: Json): Json => ({ ...VRP_CONTROL_DEFAULTS.PeriodicLimits[0], ...change });

describe('flow.vrp: the mandate is checked before any request', () => {
  it('the defaults are a valid mandate (Sweeping, 10.00 a payment, 25.00 a consent-aligned day)', () => {
    expect(problems({})).toEqual([]);
    const parsed = configSchema.parse({ flow: { apis: ['vrp'] } });
    expect(parsed.flow.vrp).toEqual({ type: 'Sweeping', controlParameters: VRP_CONTROL_DEFAULTS });
  });
  it('refuses a zero or negative amount, as MaximumIndividualAmount and as a periodic limit', () => {
    expect(problems({ vrp: { controlParameters: control({ MaximumIndividualAmount: { Amount: '0.00', Currency: 'GBP' } }) } })).toEqual([
      'flow.vrp.controlParameters.MaximumIndividualAmount.Amount must be more than zero',
    ]);
    expect(problems({ vrp: { controlParameters: control({ PeriodicLimits: [limit({ Amount: '-5.00' })] }) } })).toEqual([
      expect.stringMatching(/^flow\.vrp\.controlParameters\.PeriodicLimits\.0\.Amount must be a decimal amount/),
    ]);
  });
  it('refuses more than two decimals (the walk counts in pennies)', () => {
    expect(problems({ vrp: { controlParameters: control({ PeriodicLimits: [limit({ Amount: '25.005' })] }) } })).toEqual([
      'flow.vrp.controlParameters.PeriodicLimits.0.Amount must have at most 2 decimals (the mandate walk counts in pennies)',
    ]);
  });
  it('refuses a limit in another currency than MaximumIndividualAmount (a mandate has one currency)', () => {
    expect(problems({ vrp: { controlParameters: control({ PeriodicLimits: [limit({ Currency: 'EUR' })] }) } })).toEqual([
      'flow.vrp.controlParameters.PeriodicLimits.0.Currency is EUR, but MaximumIndividualAmount is in GBP: a mandate has one currency',
    ]);
  });
  it('refuses an unknown period type or alignment, and a calendar fortnight', () => {
    expect(problems({ vrp: { controlParameters: control({ PeriodicLimits: [limit({ PeriodType: 'Quarter' })] }) } })[0]).toMatch(
      /^flow\.vrp\.controlParameters\.PeriodicLimits\.0\.PeriodType /,
    );
    expect(problems({ vrp: { controlParameters: control({ PeriodicLimits: [limit({ PeriodAlignment: 'Weekday' })] }) } })[0]).toMatch(
      /^flow\.vrp\.controlParameters\.PeriodicLimits\.0\.PeriodAlignment /,
    );
    expect(
      problems({
        vrp: { controlParameters: control({ PeriodicLimits: [limit({ PeriodType: 'Fortnight', PeriodAlignment: 'Calendar' })] }) },
      }),
    ).toEqual([
      'flow.vrp.controlParameters.PeriodicLimits.0.PeriodAlignment must be Consent for a PeriodType of Fortnight (the ISO calendar has no fortnights)',
    ]);
  });
  it('refuses no periodic limit at all (PeriodicLimits minItems 1)', () => {
    expect(problems({ vrp: { controlParameters: control({ PeriodicLimits: [] }) } })).toEqual([
      'flow.vrp.controlParameters.PeriodicLimits must hold at least one limit (PeriodicLimits minItems 1)',
    ]);
  });
  it('refuses ValidFromDateTime after ValidToDateTime, and a date-time without a time zone', () => {
    expect(
      problems({
        vrp: {
          controlParameters: control({ ValidFromDateTime: '2027-02-01T00:00:00+00:00', ValidToDateTime: '2027-01-01T00:00:00+00:00' }),
        },
      }),
    ).toEqual(['flow.vrp.controlParameters.ValidToDateTime is before ValidFromDateTime: no payment could be made under the consent']);
    expect(problems({ vrp: { controlParameters: control({ ValidToDateTime: '2027-01-01T00:00:00' }) } })).toHaveLength(1);
  });
  it('refuses VRPType in controlParameters (flow.vrp.type owns it) and an unknown member', () => {
    expect(problems({ vrp: { controlParameters: control({ VRPType: ['UK.OBIE.VRPType.Other'] }) } })[0]).toMatch(/VRPType/);
  });
  it('refuses a cVRP type on v3.1 in one line naming the fix; takes it on v4.0', () => {
    expect(problems({ vrp: { type: 'CVRP2' } })).toEqual([
      expect.stringMatching(
        /^flow\.vrp\.type "CVRP2" \(UK\.OBIE\.VRPType\.CVRP2\) is not defined by the v3\.1 VRP file.*set flow\.apiVersion to "4\.0"/,
      ),
    ]);
    expect(problems({ vrp: { type: 'CVRP2' }, apiVersion: '4.0' })).toEqual([]);
  });
  it('refuses a cVRP type when --api-version adds v3.1 to a v4.0 config', () => {
    const config = configSchema.parse({ flow: { apis: ['vrp'], apiVersion: '4.0', vrp: { type: 'CVRP1' } } });
    expect(() => legVersions(config, { apiVersions: ['3.1', '4.0'] })).toThrow(ObflowError);
    expect(legVersions(config, {})).toEqual(['4.0']);
  });
  it('checks the mandate only when flow.apis has vrp', () => {
    expect(configSchema.safeParse({ flow: { vrp: { type: 'CVRP1' } } }).success).toBe(true);
  });
});

describe("the VRPTypes are the files' (OBVRPConsentType of each version, the cVRP file for CVRP1/2/3)", () => {
  it('each type in the files of its versions only', () => {
    needs(obieSpecs);
    // OBVRPConsentType: an x-namespaced-enum in every file.
    const typesOf = (file: string): string[] =>
      (parse(readFileSync(specPath(file), 'utf8')) as { components: { schemas: { OBVRPConsentType: { 'x-namespaced-enum': string[] } } } })
        .components.schemas.OBVRPConsentType['x-namespaced-enum'];
    const v31 = typesOf(FAMILY_SPEC_FILE_NAMES.vrp['3.1']);
    const v4 = [...typesOf(FAMILY_SPEC_FILE_NAMES.vrp['4.0']), ...typesOf(FAMILY_SPEC_FILE_NAMES.cvrp['4.0'])];
    for (const row of Object.values(VRP_TYPES)) {
      expect(v31.includes(row.wire), `${row.wire} in v3.1.11`).toBe((row.versions as readonly string[]).includes('3.1'));
      expect(v4, row.wire).toContain(row.wire);
    }
  });
});

/** The plan as amounts and outcomes: `10.00 made`, `10.01 refused MaximumIndividualAmount`. */
function outline(plan: VrpPlan): string[] {
  return [plan.first, ...plan.walk].map(
    (payment) => `${payment.amount} ${payment.expect}${payment.limit === undefined ? '' : ` ${payment.limit}`}`,
  );
}

describe('the mandate walk planned from the control parameters', () => {
  it('the defaults: inside, above the maximum, up to the day limit, the crossing one, exactly to it, one penny past', () => {
    expect(outline(planMandate({ type: 'Sweeping', controlParameters: VRP_CONTROL_DEFAULTS }))).toEqual([
      '10.00 made',
      '10.01 refused MaximumIndividualAmount',
      '10.00 made',
      '10.00 refused PeriodicLimits[0]',
      '5.00 made',
      '0.01 refused PeriodicLimits[0]',
    ]);
  });
  it('crosses the smallest periodic limit the run can prove, not the first listed', () => {
    const plan = planMandate({
      type: 'Other',
      controlParameters: control({
        PeriodicLimits: [
          limit({ PeriodType: 'Week', Amount: '100.00' }),
          limit({ PeriodType: 'Day', PeriodAlignment: 'Calendar', Amount: '20.00' }),
        ],
      }) as unknown as VrpControlParameters,
    });
    expect(outline(plan)).toEqual([
      '10.00 made',
      '10.01 refused MaximumIndividualAmount',
      '10.00 made',
      '10.00 refused PeriodicLimits[1]',
      '0.01 refused PeriodicLimits[1]',
    ]);
  });
  it("lists a longer calendar-aligned limit without walking it (its first period is pro-rated to the run's date)", () => {
    const plan = planMandate({
      type: 'Other',
      controlParameters: control({
        PeriodicLimits: [limit({ PeriodType: 'Month', PeriodAlignment: 'Calendar', Amount: '15.00' }), limit({ Amount: '30.00' })],
      }) as unknown as VrpControlParameters,
    });
    expect(plan.limits.map((entry) => `${entry.member} ${entry.walked}`)).toEqual([
      'MaximumIndividualAmount true',
      'PeriodicLimits[0] false',
      'PeriodicLimits[1] true',
    ]);
    expect(outline(plan).filter((line) => line.includes('PeriodicLimits'))).toEqual([
      '10.00 refused PeriodicLimits[1]',
      '0.01 refused PeriodicLimits[1]',
    ]);
  });
  it('a periodic limit below the maximum: the first payment is the limit, the over-maximum one crosses both', () => {
    const plan = planMandate({
      type: 'Sweeping',
      controlParameters: control({ PeriodicLimits: [limit({ Amount: '4.00' })] }) as unknown as VrpControlParameters,
    });
    expect(outline(plan)).toEqual([
      '4.00 made',
      '10.01 refused MaximumIndividualAmount',
      '10.00 refused PeriodicLimits[0]',
      '0.01 refused PeriodicLimits[0]',
    ]);
    expect(plan.walk[0]?.why).toMatch(/would also cross PeriodicLimits\[0\]/);
  });
  it(`stops after ${WALK_MAX_MADE} payments inside a limit too far away, and says the limit was not reached`, () => {
    const plan = planMandate({
      type: 'Sweeping',
      controlParameters: control({ PeriodicLimits: [limit({ Amount: '1000.00' })] }) as unknown as VrpControlParameters,
    });
    expect(plan.walk.filter((payment) => payment.expect === 'made')).toHaveLength(WALK_MAX_MADE);
    expect(plan.walk.filter((payment) => payment.limit === 'PeriodicLimits[0]')).toEqual([]);
    expect(plan.limits[1]).toMatchObject({ walked: false, reason: expect.stringMatching(/not reached/) });
  });
  it('never plans the walk past a limit: the made payments add up to at most the smallest walked limit', () => {
    for (const [max, day] of [
      ['10.00', '25.00'],
      ['0.01', '0.05'],
      ['7.50', '30.00'],
      ['3.33', '10.00'],
    ] as const) {
      const plan = planMandate({
        type: 'Sweeping',
        controlParameters: control({
          MaximumIndividualAmount: { Amount: max, Currency: 'GBP' },
          PeriodicLimits: [limit({ Amount: day })],
        }) as unknown as VrpControlParameters,
      });
      const made = [plan.first, ...plan.walk].filter((payment) => payment.expect === 'made');
      expect(
        made.reduce((sum, payment) => sum + payment.amountMinor, 0),
        `${max}/${day}`,
      ).toBe(Math.round(Number(day) * 100));
      expect(made.every((payment) => payment.amountMinor <= Math.round(Number(max) * 100))).toBe(true);
    }
  });
});
