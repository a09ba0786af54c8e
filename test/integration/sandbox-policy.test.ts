// Every row of src/sandbox/policy.ts holds: the strict profile refuses the row's attempt (test/helpers/policy-pairs.ts),
// the permissive one accepts it, and with the row flipped (strict tolerating, permissive not) the answers swap. The
// flip proves each refusal comes from that row: an attempt answered first by another check (a certificate check, a
// missing parameter) still fails strict with the row flipped, and this test says so.

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

import type { ProfileName } from '../../src/sandbox/contracts.js';
import type * as Policy from '../../src/sandbox/policy.js';
import { TOLERANCES, type ToleranceName } from '../../src/sandbox/policy.js';
import { getTestIdentity, issueVariantIdentity, type TestIdentity } from '../helpers/identity.js';
import { POLICY_ALONGSIDE, POLICY_PAIRS, type Answer, type Attempt } from '../helpers/policy-pairs.js';
import { PaymentsTpp, paymentsIdentity } from '../helpers/payments-client.js';
import { SandboxTpp, startTestSandbox, type TestSandbox } from '../helpers/sandbox-client.js';

/** The rows this test has flipped: for them the emulator's handlers read the table the other way round. */
const flipped = vi.hoisted(() => new Set<string>());
/** Rows tolerated everywhere while an attempt runs (POLICY_ALONGSIDE: a row that only shows behind another). */
const alongside = vi.hoisted(() => new Set<string>());
vi.mock('../../src/sandbox/policy.js', async (importOriginal) => {
  const original = await importOriginal<typeof Policy>();
  return {
    ...original,
    tolerates: (profile: ProfileName, name: ToleranceName): boolean =>
      alongside.has(name) || (flipped.has(name) ? !original.tolerates(profile, name) : original.tolerates(profile, name)),
  };
});

let sandbox: TestSandbox;
/** The same, as a FAPI 1 Advanced server (`fapi: '1-advanced'`), for the rows that only hold there. */
let advancedSandbox: TestSandbox;
let sibling: TestIdentity;
let second: TestIdentity;
const tpps = new Map<ProfileName, SandboxTpp>();
const advancedTpps = new Map<ProfileName, SandboxTpp>();
const payers = new Map<ProfileName, PaymentsTpp>();

beforeAll(async () => {
  const identity = await getTestIdentity();
  second = await getTestIdentity('second-tpp');
  // Same software statement id and organisation (CN, OU), another key and certificate from the same directory.
  sibling = await issueVariantIdentity({ softwareId: identity.manifest.software_id, orgId: identity.manifest.org_id });
  // PAR offered (not required), for the par-pkce-optional row; every other row's attempt is a plain request.
  // Payments and funds served too, for their rows (docs/sandbox-payments.md).
  [sandbox, advancedSandbox] = await Promise.all([
    startTestSandbox({ par: 'optional', apis: ['accounts', 'payments', 'funds'] }),
    startTestSandbox({ fapi: '1-advanced' }),
  ]);
  for (const profile of ['strict-headless', 'permissive-headless'] as const) {
    const tpp = new SandboxTpp(sandbox.urls, sandbox.identity, profile);
    await tpp.register();
    tpps.set(profile, tpp);
    const payer = new PaymentsTpp(sandbox.urls, await paymentsIdentity(), profile);
    await payer.register({ scope: 'openid accounts payments fundsconfirmations' });
    payers.set(profile, payer);
    const advanced = new SandboxTpp(advancedSandbox.urls, advancedSandbox.identity, profile);
    await advanced.register();
    advancedTpps.set(profile, advanced);
  }
});

afterAll(async () => {
  flipped.clear();
  await Promise.all([...tpps.values(), ...advancedTpps.values(), ...payers.values()].map((tpp) => tpp.close()));
  await Promise.all([sandbox?.close(), advancedSandbox?.close()]);
});

async function attempt(run: Attempt, profile: ProfileName): Promise<Answer> {
  const tpp = tpps.get(profile);
  const advanced = advancedTpps.get(profile);
  const payer = payers.get(profile);
  if (tpp === undefined || advanced === undefined || payer === undefined) throw new TypeError(profile);
  return run({ tpp, sibling, second, advanced, payer });
}

describe('each tolerance row: strict refuses, permissive accepts, and flipping the row swaps the answers', () => {
  it.each(TOLERANCES.map((row) => row.name))('%s', async (name) => {
    const attempts = POLICY_PAIRS[name];
    expect(attempts.length).toBeGreaterThan(0);
    alongside.clear();
    for (const row of POLICY_ALONGSIDE[name] ?? []) alongside.add(row);
    try {
      for (const [index, run] of attempts.entries()) {
        const label = `${name} attempt ${index + 1}`;
        flipped.clear();
        const strict = await attempt(run, 'strict-headless');
        expect(strict.accepted, `${label}: strict should refuse; it said ${strict.said}`).toBe(false);
        const permissive = await attempt(run, 'permissive-headless');
        expect(permissive.accepted, `${label}: permissive should accept; it said ${permissive.said}`).toBe(true);
        flipped.add(name);
        const strictFlipped = await attempt(run, 'strict-headless');
        expect(strictFlipped.accepted, `${label}: with the row removed, strict should accept; it said ${strictFlipped.said}`).toBe(true);
        const permissiveFlipped = await attempt(run, 'permissive-headless');
        expect(
          permissiveFlipped.accepted,
          `${label}: without the tolerance, permissive should refuse; it said ${permissiveFlipped.said}`,
        ).toBe(false);
      }
    } finally {
      flipped.clear();
      alongside.clear();
    }
  });
});
