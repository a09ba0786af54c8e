// `obflow doctor`'s notes on a VRP mandate (flow.apis vrp): what neither the config nor the bank's discovery can settle
// before the consent is asked. OIDC Discovery 1.0 and the OB R/W profile give discovery no field for the VRP API or its
// VRPTypes, so whether the bank serves a type is known only from its answer to POST /domestic-vrp-consents; a
// commercial type (OBL cVRP v4.0) also needs the bank to be in the cVRP scheme. Pure: the doctor command prints them.

import type { ObflowConfig } from '../config/schema.js';
import { VRP_TYPES } from '../generate/vrp-types.js';
import { planMandate } from '../generate/vrp-plan.js';

/** What each VRPType's file leaves unsure before the consent (one row per file, VRP_TYPES schema). */
const UNSURE_BY_FILE = {
  vrp:
    'whether the bank serves VRP and this VRPType: discovery advertises neither, the answer to POST /domestic-vrp-consents says ' +
    '(a 4xx refusal, or 404 where it has not implemented VRP)',
  cvrp:
    'whether the bank offers commercial VRP (OBL cVRP v4.0) and this cVRP type: discovery advertises neither, and a bank outside ' +
    'the cVRP scheme refuses the consent; POST /domestic-vrp-consents says',
} as const satisfies Record<'vrp' | 'cvrp', string>;

/** The notes for `config` at `now` (none when flow.apis has no vrp). */
export function vrpDoctorNotes(config: Pick<ObflowConfig, 'flow'>, now: Date): string[] {
  if (!config.flow.apis.includes('vrp')) return [];
  const { type, controlParameters } = config.flow.vrp;
  const row = VRP_TYPES[type];
  const notes = [`VRP ${type} (${row.wire}): unsure until the consent is asked: ${UNSURE_BY_FILE[row.schema]}`];
  for (const limit of planMandate(config.flow.vrp).limits)
    if (!limit.walked) notes.push(`VRP ${limit.member} (${limit.label}) is not walked by the run: ${limit.reason ?? ''}`);
  const from = controlParameters.ValidFromDateTime;
  if (from !== undefined && Date.parse(from) > now.getTime())
    notes.push(
      `VRP ValidFromDateTime ${from} is after today: the bank refuses every payment before that date, so the run's payments fail until then`,
    );
  return notes;
}
