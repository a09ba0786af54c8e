// Every family's state, read from one place (src/generate/variables.ts writersOf): a run of one payment, funds or VRP
// step names the earlier step whose state it lacks (src/pipeline/run-checks.ts), and a run's summary shows a payment or
// a mandate as this run's only when the step that writes it ran (src/run/summary.ts).

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

import { API_FAMILIES, type ApiFamilyName } from '../../src/api-families.js';
import type { PostmanEnvironment } from '../../src/environment/index.js';
import { writersOf } from '../../src/generate/variables.js';
import { checkStepPrerequisites, stepPrerequisites } from '../../src/pipeline/run-checks.js';
import { readStepCollections, type StepResult } from '../../src/run/index.js';
import { buildRunSummary } from '../../src/run/summary.js';
import { REPO_ROOT } from '../helpers/prerequisites.js';

const VERSION_FOLDERS = ['', 'v4.0'] as const;

const collectionsOf = (family: ApiFamilyName, folder: string) =>
  readStepCollections(join(REPO_ROOT, 'collections', API_FAMILIES[family].folder, folder), API_FAMILIES[family].steps);

const environmentOf = (values: Record<string, string>): PostmanEnvironment => ({
  id: 'e',
  name: 'e',
  _postman_variable_scope: 'environment',
  values: Object.entries(values).map(([key, value]) => ({ key, value, type: 'default', enabled: true })),
});

/** What a step fails with (the code, the message, the hint), or `passed`. */
function refusalOf(family: ApiFamilyName, step: string, values: Record<string, string>, collections: Record<string, object>): string {
  try {
    checkStepPrerequisites(step, environmentOf(values), collections, API_FAMILIES[family].steps);
    return 'passed';
  } catch (error) {
    const { code, message, hint } = error as { code: string; message: string; hint: string };
    return `${code} ${message.replace(/, and the saved environment.*$/, '')} | ${hint}`;
  }
}

/** An earlier consent's tokens, no consent: only the family's own state is missing. */
const TOKENS = { client_credentials_token: 'earlier', access_token: 'earlier' };

describe('a money step run alone names the family step whose state it lacks', () => {
  for (const folder of VERSION_FOLDERS) {
    it(`the consent id comes from the family's own consent step (${folder || 'v3.1'})`, async () => {
      for (const [family, consent] of [
        ['payments', 'payment-consent'],
        ['funds', 'funds-consent'],
        ['vrp', 'vrp-consent'],
      ] as const) {
        const needs = stepPrerequisites(await collectionsOf(family, folder), API_FAMILIES[family].steps);
        const readers = [...needs].filter(([, own]) => own.has('consent_id'));
        // The PSU's consent, the code exchange and every step after them that acts on the consent.
        expect(readers.length, family).toBeGreaterThanOrEqual(3);
        for (const [step, own] of readers) expect(own.get('consent_id'), `${family} ${step}`).toBe(consent);
      }
    });
  }

  it('payments: the payment needs the consent’s ids, the read-back needs the payment’s', async () => {
    const collections = await collectionsOf('payments', '');
    expect(refusalOf('payments', 'payment', TOKENS, collections)).toBe(
      'ERR_STEP_PREREQUISITE step payment needs consent_id, payment_instruction_id, payment_end_to_end_id from payment-consent | ' +
        'Run the steps from `obflow run payment-consent` to `obflow run payment-funds-check` first, or `obflow run all`.',
    );
    // The payment itself lacks the consent's instruction ids: the walk back starts at the consent.
    expect(refusalOf('payments', 'payment-details', { ...TOKENS, consent_id: 'c' }, collections)).toBe(
      'ERR_STEP_PREREQUISITE step payment-details needs payment_id from payment | ' +
        'Run the steps from `obflow run payment-consent` to `obflow run payment` first, or `obflow run all`.',
    );
  });

  it('VRP: a payment or the mandate walk without the mandate names vrp-consent; the read-back names vrp-payment', async () => {
    const collections = await collectionsOf('vrp', 'v4.0');
    expect(refusalOf('vrp', 'vrp-payment', TOKENS, collections)).toBe(
      'ERR_STEP_PREREQUISITE step vrp-payment needs consent_id from vrp-consent | ' +
        'Run the steps from `obflow run vrp-consent` to `obflow run vrp-funds-check` first, or `obflow run all`.',
    );
    expect(refusalOf('vrp', 'vrp-consent-delete', TOKENS, collections)).toMatch(
      /^ERR_STEP_PREREQUISITE step vrp-consent-delete needs consent_id from vrp-consent /,
    );
    // With no token either, the walk back starts at the client credentials (not at psu-consent, as when the consent's
    // writer was unknown).
    expect(refusalOf('vrp', 'vrp-payment', {}, collections)).toContain(
      'Run the steps from `obflow run client-credentials` to `obflow run vrp-funds-check` first',
    );
    expect(refusalOf('vrp', 'psu-consent', TOKENS, collections)).toBe(
      'ERR_STEP_PREREQUISITE step psu-consent needs consent_id from vrp-consent | Run `obflow run vrp-consent` first, or `obflow run all`.',
    );
    expect(refusalOf('vrp', 'vrp-payment-details', { ...TOKENS, consent_id: 'c' }, collections)).toBe(
      'ERR_STEP_PREREQUISITE step vrp-payment-details needs vrp_payment_id from vrp-payment | Run `obflow run vrp-payment` first, or `obflow run all`.',
    );
    // Once the state is there, the step runs.
    expect(refusalOf('vrp', 'vrp-payment', { ...TOKENS, consent_id: 'c' }, collections)).toBe('passed');
  });

  it('writersOf reads every family’s rows: the consent id’s writers are each family’s consent step', () => {
    expect([...writersOf('consent_id')].sort()).toEqual(['account-access-consent', 'funds-consent', 'payment-consent', 'vrp-consent']);
    expect(writersOf('payment_id')).toEqual(['payment']);
    expect(writersOf('vrp_walk')).toEqual(['vrp-payment', 'vrp-mandate']);
    expect(writersOf('rs')).toEqual([]);
  });
});

describe("a run's summary shows a family's state as this run's only when its writing step ran", () => {
  const step = (name: string, passed = true): StepResult => ({
    name,
    passed,
    requests: 1,
    assertions: { total: 1, failed: passed ? 0 : 1 },
    failures: [],
    reports: [],
  });

  it('payments: a run that stopped at its consent shows no payment, though an earlier run left one', () => {
    const environment = environmentOf({
      consent_id: 'earlier-consent',
      payment_consent_status: 'AcceptedSettlementCompleted',
      payment_id: 'earlier-payment',
      payment_status: 'AcceptedSettlementCompleted',
      payment_amount: '10.00',
      payment_currency: 'GBP',
    });
    const planned = [...API_FAMILIES.payments.steps];
    const stopped = buildRunSummary({
      environment,
      steps: [step('discovery'), step('client-credentials'), step('payment-consent', false)],
      planned,
    });
    expect(stopped.payment).toBeUndefined();
    // The whole run: the payment is this run's.
    const whole = buildRunSummary({ environment, steps: planned.map((name) => step(name)), planned });
    expect(whole.payment).toMatchObject({ paymentId: 'earlier-payment', consentId: 'earlier-consent' });
  });

  it('VRP: a run that stopped at the PSU’s consent shows its own mandate with no payment, not an earlier walk', () => {
    const environment = environmentOf({
      consent_id: 'this-consent',
      vrp_control_parameters: JSON.stringify({
        VRPType: ['UK.OBIE.VRPType.Sweeping'],
        MaximumIndividualAmount: { Amount: '10.00', Currency: 'GBP' },
        PeriodicLimits: [{ Amount: '25.00', Currency: 'GBP', PeriodType: 'Month', PeriodAlignment: 'Calendar' }],
      }),
      vrp_walk: JSON.stringify([
        { Amount: '10.00', Outcome: 'made' },
        { Amount: '10.01', Outcome: 'refused', Limit: 'MaximumIndividualAmount', ErrorCode: 'U014' },
      ]),
    });
    const planned = [...API_FAMILIES.vrp.steps];
    const reached = ['discovery', 'client-credentials', 'vrp-consent'].map((name) => step(name));
    const stopped = buildRunSummary({ environment, steps: [...reached, step('psu-consent', false)], planned });
    expect(stopped.vrp).toMatchObject({ consentId: 'this-consent', made: 0, refused: 0 });
    const whole = buildRunSummary({ environment, steps: planned.map((name) => step(name)), planned });
    expect(whole.vrp).toMatchObject({ made: 1, refused: 1 });
  });
});
