// The mandate as the terminal summary shows it (src/run/vrp-summary.ts): each limit, what the run used of it, and the
// payments refused there; a payment made past a limit is counted as such, never as a refusal.

import { describe, expect, it } from 'vitest';
import { vrpMandateFromValues, vrpMandateLines } from '../../src/run/vrp-summary.js';

const control = {
  VRPType: ['UK.OBIE.VRPType.Sweeping'],
  MaximumIndividualAmount: { Amount: '10.00', Currency: 'GBP' },
  PeriodicLimits: [{ PeriodType: 'Day', PeriodAlignment: 'Consent', Amount: '25.00', Currency: 'GBP' }],
};
const made = (amount: string) => ({ Amount: amount, Currency: 'GBP', Outcome: 'made' });
const refused = (amount: string, limit: string) => ({
  Amount: amount,
  Currency: 'GBP',
  Outcome: 'refused',
  Limit: limit,
  ErrorCode: 'U014',
});
function values(walk: object[]) {
  return [
    { key: 'consent_id', value: 'vrc-1' },
    { key: 'vrp_consent_status', value: 'deleted' },
    { key: 'vrp_control_parameters', value: JSON.stringify(control) },
    { key: 'vrp_walk', value: JSON.stringify(walk) },
  ];
}

describe('the VRP mandate in the terminal summary', () => {
  it('each limit with what was used of it and the payment that hit it', () => {
    const row = vrpMandateFromValues(
      values([
        made('10.00'),
        refused('10.01', 'MaximumIndividualAmount'),
        made('10.00'),
        refused('10.00', 'PeriodicLimits[0]'),
        made('5.00'),
        refused('0.01', 'PeriodicLimits[0]'),
      ]),
    );
    expect(row && vrpMandateLines(row)).toEqual([
      'VRP mandate vrc-1 (UK.OBIE.VRPType.Sweeping), consent deleted: 3 payments made (25.00 GBP), 3 refused at a limit',
      '  MaximumIndividualAmount, at most 10.00 GBP a payment: largest payment 10.00 GBP; 10.01 GBP refused after 10.00 (U014)',
      '  PeriodicLimits[0], 25.00 GBP a Day (Consent): 25.00 of 25.00 GBP used; 10.00 GBP refused after 20.00 (U014); 0.01 GBP refused after 25.00 (U014)',
    ]);
  });
  it('a payment the bank made past a limit is said so, not counted as a refusal', () => {
    const row = vrpMandateFromValues(values([made('10.00'), { ...refused('10.01', 'MaximumIndividualAmount'), Outcome: 'made' }]));
    expect(row).toMatchObject({ made: 2, refused: 0, madePastLimit: 1 });
    expect(row && vrpMandateLines(row)[0]).toMatch(/1 made past a limit$/);
  });
  it("nothing when the run did not reach the VRP consent (an earlier run's values are not this one's)", () => {
    expect(vrpMandateFromValues([])).toBeUndefined();
    expect(vrpMandateFromValues(values([]), (key) => key !== 'vrp_control_parameters')).toBeUndefined();
  });
});
