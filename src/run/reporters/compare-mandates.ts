// The VRP mandate walked on v3.1 beside the one walked on v4.0 (a run of `--apis vrp --api-version 3.1,4.0`): the same
// mandate and walk asked on both (src/generate/vrp-plan.ts plans it from flow.vrp, whatever the version), so the
// VRPType, how many payments were made for how much, and at each limit which payment was refused (or made past it)
// after how much must agree; the consent's status and the refusals' ErrorCode once v4.0's code is read as v3.1's name
// (the VRP steps' version rows, src/generate/steps/vrp-common.ts). Ids and times are not compared (two mandates). Pure.

import { VRP_VERSION_ROWS } from '../../generate/steps/vrp-common.js';
import { money, type VrpLimitUse, type VrpMandateRow } from '../../runner-rules.js';
import { outcomeRows, type OutcomeRows } from './compare-rows.js';
import { COMPARED_VERSIONS } from './compare-versions.js';

/** v4.0's code for v3.1's name, of what the VRP steps check per version: the consent's status before and after the
 *  PSU's authorisation (v3.1.11 OBExternalConsentStatus1Code ↔ v4.0 OBInternalConsentStatus1Code) and a limit's
 *  refusal (v3.1.11 OBError1 UK.OBIE.Rules.FailsControlParameters ↔ the v4.0 code set's U014). */
const codesOf = (keys: readonly ('consentAwaiting' | 'consentAuthorised' | 'limitCode')[]): Readonly<Record<string, string>> =>
  Object.fromEntries(keys.map((key) => [VRP_VERSION_ROWS[COMPARED_VERSIONS.first][key], VRP_VERSION_ROWS[COMPARED_VERSIONS.second][key]]));
export const MANDATE_CODES = { consent: codesOf(['consentAwaiting', 'consentAuthorised']), refusal: codesOf(['limitCode']) } as const;

/** A limit as both versions must have walked it: its label, what the run used, each payment refused there or made past
 *  it and after how much (no ErrorCode: that is its own row, read through the code mapping). */
function limitWalk(limit: VrpLimitUse | undefined): string | undefined {
  if (limit === undefined) return undefined;
  return [
    `${limit.label}: ${money(limit.usedMinor)} used`,
    ...limit.refused.map((refusal) => `${refusal.amount} refused after ${money(refusal.beforeMinor)}`),
    ...limit.madePast.map((past) => `${past.amount} MADE PAST THE LIMIT after ${money(past.beforeMinor)}`),
  ].join('; ');
}

/** The ErrorCodes of a walk's refusals, each once, in the walk's order. */
const refusalCodes = (row: VrpMandateRow | undefined): string[] | undefined =>
  row === undefined ? undefined : [...new Set(row.limits.flatMap((limit) => limit.refused.map((refusal) => refusal.errorCode)))];
const codesText = (codes: readonly string[] | undefined): string | undefined =>
  codes === undefined ? undefined : codes.length === 0 ? 'none' : codes.join(', ');

export function compareMandates(v31: VrpMandateRow | undefined, v40: VrpMandateRow | undefined): OutcomeRows {
  const { rows, same, mapped } = outcomeRows();
  same('VRPType', v31?.vrpType, v40?.vrpType);
  mapped('consent Status', MANDATE_CODES.consent, v31?.consentStatus, v40?.consentStatus);
  const made = (row: VrpMandateRow | undefined) =>
    row === undefined ? undefined : `${row.made}, ${money(row.madeMinor)} ${row.limits[0]?.currency ?? ''}`.trimEnd();
  same('payments made', made(v31), made(v40));
  same('refused at a limit', v31 === undefined ? undefined : String(v31.refused), v40 === undefined ? undefined : String(v40.refused));
  same(
    'made past a limit',
    v31 === undefined ? undefined : String(v31.madePastLimit),
    v40 === undefined ? undefined : String(v40.madePastLimit),
  );
  const members = [...new Set([...(v31?.limits ?? []), ...(v40?.limits ?? [])].map((limit) => limit.member))];
  const limitOf = (row: VrpMandateRow | undefined, member: string) => row?.limits.find((limit) => limit.member === member);
  for (const member of members) same(member, limitWalk(limitOf(v31, member)), limitWalk(limitOf(v40, member)));
  // Each of v3.1's codes read as v4.0's: the mapping explains the row when v4.0's list is exactly that.
  const [codes31, codes40] = [refusalCodes(v31), refusalCodes(v40)];
  const text31 = codesText(codes31);
  const explained =
    codes31 === undefined || text31 === undefined
      ? {}
      : { [text31]: codesText(codes31.map((code) => MANDATE_CODES.refusal[code] ?? code)) ?? '' };
  mapped('refusal ErrorCode', explained, text31, codesText(codes40));
  return rows;
}
