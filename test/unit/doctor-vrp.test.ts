// `obflow doctor`'s notes on a VRP mandate (src/pipeline/doctor-vrp.ts): what discovery cannot say about VRP and cVRP,
// the limits the run does not walk, a mandate that starts after today.

import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { VRP_CONTROL_DEFAULTS } from '../../src/generate/vrp-types.js';
import { vrpDoctorNotes } from '../../src/pipeline/doctor-vrp.js';

const NOW = new Date('2026-11-28T12:00:00Z');
const config = (flow: Record<string, unknown>) => configSchema.parse({ flow: { apis: ['vrp'], ...flow } });

describe('obflow doctor: what a VRP mandate leaves unsure', () => {
  it('nothing without vrp in flow.apis', () => {
    expect(vrpDoctorNotes(configSchema.parse({}), NOW)).toEqual([]);
  });
  it('a sweeping mandate: discovery does not advertise VRP or its types', () => {
    expect(vrpDoctorNotes(config({}), NOW)).toEqual([
      expect.stringMatching(/^VRP Sweeping \(UK\.OBIE\.VRPType\.Sweeping\): unsure .*discovery advertises neither/),
    ]);
  });
  it('a cVRP mandate: the bank must be in the commercial VRP scheme', () => {
    expect(vrpDoctorNotes(config({ apiVersion: '4.0', vrp: { type: 'CVRP3' } }), NOW)[0]).toMatch(/commercial VRP \(OBL cVRP v4\.0\)/);
  });
  it("a calendar month limit is not walked, and a mandate valid from tomorrow refuses today's payments", () => {
    const notes = vrpDoctorNotes(
      config({
        vrp: {
          controlParameters: {
            ...VRP_CONTROL_DEFAULTS,
            ValidFromDateTime: '2026-11-29T00:00:00+00:00',
            PeriodicLimits: [
              ...VRP_CONTROL_DEFAULTS.PeriodicLimits,
              { PeriodType: 'Month', PeriodAlignment: 'Calendar', Amount: '100.00', Currency: 'GBP' },
            ],
          },
        },
      }),
      NOW,
    );
    expect(notes.slice(1)).toEqual([
      expect.stringMatching(
        /^VRP PeriodicLimits\[1\] \(100\.00 GBP a month \(the calendar month\)\) is not walked by the run: its first month is pro-rated/,
      ),
      expect.stringMatching(/^VRP ValidFromDateTime 2026-11-29T00:00:00\+00:00 is after today/),
    ]);
  });
});
