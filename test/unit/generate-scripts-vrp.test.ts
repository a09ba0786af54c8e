// The VRP collections' checks, run as rendered in a vm with the pm double (test/helpers/script-double.ts): a refusal
// of the mandate walk passes only when the bank refuses with the version's code (a bank that makes a payment past a
// limit fails it), a payment inside the limits passes only when made for the amount sent, and a payment under the
// deleted consent must be refused. docs/notes.md lists what was deleted to see each fail.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { API_FAMILIES } from '../../src/api-families.js';
import { VRP_CONTROL_DEFAULTS } from '../../src/generate/vrp-types.js';
import { buildCollections } from '../../src/generate/collections.js';
import { flowFileName } from '../../src/generate/files.js';
import { loadTemplates } from '../../src/generate/templates.js';
import type { VrpSettings } from '../../src/generate/vrp-plan.js';
import { collectionsDirOf } from '../../src/pipeline/generate.js';
import { run, type PmItem } from '../helpers/script-double.js';
import { REPO_ROOT } from '../helpers/prerequisites.js';

const templates = loadTemplates();

function itemsOf(apiVersion: '3.1' | '4.0', vrp?: VrpSettings): PmItem[] {
  const family = API_FAMILIES.vrp;
  const files = buildCollections({ templates, family, apiVersion, ...(vrp === undefined ? {} : { vrp }) });
  const flow = JSON.parse(files.find((file) => file.fileName === flowFileName(family))?.json ?? '{}') as { item: PmItem[] };
  return flow.item.flatMap((folder) => folder.item ?? []);
}
const ITEMS = { '3.1': itemsOf('3.1'), '4.0': itemsOf('4.0') };

function test(items: PmItem[], name: string): string {
  const found = items.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`no item ${name}: ${items.map((item) => item.name).join('; ')}`);
  return found.event?.find((event) => event.listen === 'test')?.script.exec.join('\n') ?? '';
}

const OVER_MAX = 'vrp-mandate: payment 2, 10.01 GBP, breaches MaximumIndividualAmount (refused)';
const CROSSING = 'vrp-mandate: payment 4, 10.00 GBP, breaches PeriodicLimits[0] (refused)';
const INSIDE = 'vrp-mandate: payment 3, 10.00 GBP, inside the limits (made)';
const REVOKED = 'vrp-consent-delete: POST /domestic-vrps under the deleted consent (refused)';
const CODES = { '3.1': 'UK.OBIE.Rules.FailsControlParameters', '4.0': 'U014' } as const;
const env = { consent_id: 'vrp-consent-1', vrp_walk: '' };
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'x-fapi-interaction-id': 'ia-1' };

function refusal(code: string, path: string | undefined, status = 400) {
  return {
    code: status,
    headers: JSON_HEADERS,
    body: {
      Code: String(status),
      Message: 'refused',
      Errors: [{ ErrorCode: code, Message: 'limit', ...(path === undefined ? {} : { Path: path }) }],
    },
  };
}
function made(amount: string, status = 'AcceptedSettlementInProcess') {
  return {
    code: 201,
    headers: JSON_HEADERS,
    body: {
      Data: {
        DomesticVRPId: 'vrp-9',
        ConsentId: 'vrp-consent-1',
        Status: status,
        Instruction: { InstructedAmount: { Amount: amount, Currency: 'GBP' } },
      },
      Links: { Self: 'https://rs.example/open-banking/v3.1/pisp/domestic-vrps/vrp-9' },
    },
  };
}

describe.each(['3.1', '4.0'] as const)("the mandate walk's refusals, v%s", (version) => {
  const code = CODES[version];
  const refusedName = (amount: string, limit: string, label: string) =>
    `${amount} GBP breaches ${limit} (${label}): the bank refuses it (400) and makes no payment`;
  const overMax = refusedName('10.01', 'MaximumIndividualAmount', 'at most 10.00 GBP a payment');
  const crossing = refusedName('10.00', 'PeriodicLimits[0]', "25.00 GBP a day (counted from the consent's creation)");

  it("above MaximumIndividualAmount: passes only when the bank refuses with the version's code", () => {
    const script = test(ITEMS[version], OVER_MAX);
    const refused = run(script, { env, response: refusal(code, 'Data.ControlParameters.MaximumIndividualAmount.Amount') });
    expect(refused.passed()).toEqual(
      expect.arrayContaining([overMax, `the refusal of 10.01 GBP (MaximumIndividualAmount) carries ${code}`]),
    );
    expect(refused.failed().filter((name) => !name.includes('x-jws-signature'))).toEqual([]);
    // A bank that makes the payment past the limit fails the check.
    expect(run(script, { env, response: made('10.01') }).failed()).toEqual(expect.arrayContaining([overMax]));
    // A 201 that names no payment is still no refusal.
    expect(run(script, { env, response: { code: 201, headers: JSON_HEADERS, body: {} } }).failed()).toContain(overMax);
    // A refusal that still names a payment made one.
    const naming = refusal(code, 'Data.ControlParameters.MaximumIndividualAmount.Amount');
    expect(run(script, { env, response: { ...naming, body: { ...naming.body, Data: { DomesticVRPId: 'vrp-2' } } } }).failed()).toContain(
      overMax,
    );
    // A refusal for another reason (another code) is not the limit's.
    expect(run(script, { env, response: refusal('UK.OBIE.Field.Invalid', undefined) }).failed()).toContain(
      `the refusal of 10.01 GBP (MaximumIndividualAmount) carries ${code}`,
    );
  });
  it('the payment that crosses the periodic limit: a bank that accepts it fails the check, which names the limit', () => {
    const script = test(ITEMS[version], CROSSING);
    expect(run(script, { env, response: refusal(code, 'Data.ControlParameters.PeriodicLimits[0].Amount') }).passed()).toContain(crossing);
    expect(run(script, { env, response: made('10.00') }).failed()).toContain(crossing);
    const walk = JSON.parse(run(script, { env, response: made('10.00') }).env.get('vrp_walk') ?? '[]') as { Outcome: string }[];
    expect(walk).toEqual([expect.objectContaining({ Outcome: 'made', Limit: 'PeriodicLimits[0]' })]);
  });
  it('a payment inside the limits passes only when made for the amount sent, not rejected', () => {
    const script = test(ITEMS[version], INSIDE);
    const name = (status: string) => `10.00 GBP inside the limits is made: InstructedAmount as sent, Status not ${status}`;
    const notMade = version === '3.1' ? 'Rejected' : 'RJCT or CANC or BLCK';
    expect(run(script, { env, response: made('10.00') }).passed()).toContain(name(notMade));
    expect(run(script, { env, response: made('10.00', version === '3.1' ? 'Rejected' : 'RJCT') }).failed()).toContain(name(notMade));
    expect(run(script, { env, response: made('9.00') }).failed()).toContain(name(notMade));
  });
  it('a payment under the deleted consent must be refused: a 201 fails', () => {
    const script = test(ITEMS[version], REVOKED);
    const name = 'the deleted consent refuses a payment of 0.01 GBP (400 or 401 or 403)';
    expect(
      run(script, { env, response: refusal(version === '3.1' ? 'UK.OBIE.Resource.InvalidConsentStatus' : 'U009', undefined) }).passed(),
    ).toContain(name);
    expect(run(script, { env, response: made('0.01') }).failed()).toEqual(expect.arrayContaining([name, 'the answer names no payment']));
  });
});

describe("the refusal's Path (the control parameter at fault)", () => {
  const pathTest = 'the refusal names the control parameter MaximumIndividualAmount in Path';
  it('v4.0 requires it ("must … pass in the control parameter field that caused the error")', () => {
    const script = test(ITEMS['4.0'], OVER_MAX);
    expect(run(script, { env, response: refusal('U014', undefined) }).failed()).toContain(pathTest);
    expect(run(script, { env, response: refusal('U014', 'Data.ControlParameters.PeriodicLimits[0].Amount') }).failed()).toContain(pathTest);
  });
  it('v3.1.11 checks it only when given (OBError1 Path is optional there)', () => {
    const script = test(ITEMS['3.1'], OVER_MAX);
    const code = CODES['3.1'];
    expect(run(script, { env, response: refusal(code, undefined) }).tests.map((entry) => entry.name)).not.toContain(pathTest);
    expect(run(script, { env, response: refusal(code, 'Data.Initiation') }).failed()).toContain(pathTest);
  });
});

describe('a commercial mandate (CVRP1, v4.0)', () => {
  it('its payments name the type, and its answers follow the cVRP file (no CANC among the statuses of a payment not made)', () => {
    const items = itemsOf('4.0', { type: 'CVRP1', controlParameters: VRP_CONTROL_DEFAULTS });
    const body = (items.find((item) => item.name === 'vrp-payment: POST /domestic-vrps') as PmItem & { request: { body: { raw: string } } })
      .request.body.raw;
    expect(JSON.parse(body.replace(/\{\{[^}]+\}\}/g, 'x')).Data.VRPType).toBe('UK.OBIE.VRPType.CVRP1');
    const script = test(items, INSIDE);
    expect(script).toContain('(OBL cVRP v4.0)');
    expect(run(script, { env, response: made('10.00', 'ACSC') }).passed()).toContain(
      '10.00 GBP inside the limits is made: InstructedAmount as sent, Status not RJCT or BLCK',
    );
  });
});

describe('golden files', () => {
  it.each(['3.1', '4.0'] as const)(
    'collections/vrp (v%s) holds exactly the VRP collections of the default mandate (update: npm run collections:update)',
    (apiVersion) => {
      const dir = collectionsDirOf(join(REPO_ROOT, 'collections'), apiVersion, API_FAMILIES.vrp);
      const files = buildCollections({ templates, family: API_FAMILIES.vrp, apiVersion });
      expect(
        readdirSync(dir)
          .filter((name) => name.endsWith('.json'))
          .sort(),
      ).toEqual(files.map((file) => file.fileName).sort());
      for (const file of files) expect(readFileSync(join(dir, file.fileName), 'utf8'), file.fileName).toBe(file.json);
    },
  );
});
