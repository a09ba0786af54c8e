// Never twice, never past the mandate — across processes and crashes (docs/sandbox-vrp.md, "One transaction"): two
// emulators serve one data folder (one in its own process, from dist; one in this one), 40 payments under one mandate
// go to both at once, and the first is killed with SIGKILL in the middle of them. Restarted, the bank has every payment
// it acknowledged, the debits are exactly its payments and never more than the limit, the next payments stop exactly
// at the limit, and a replayed key answers its payment without counting it again.

import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { SandboxUrls } from '../../src/sandbox/contracts.js';
import { BANK_FINANCIAL_ID, startTestSandbox } from '../helpers/sandbox-client.js';
import type { TestSandbox, WireResponse } from '../helpers/sandbox-client.js';
import { DIST_SANDBOX, spawnSandbox as spawnDistSandbox } from '../helpers/sandbox-process.js';
import { tempDirSync } from '../helpers/temp.js';
import { VrpTpp, vrpConsentRequest } from '../helpers/vrp-client.js';

const APIS = ['accounts', 'vrp'] as const;
const LIMIT_PENCE = 150_00;

let child: ChildProcess | undefined;
const opened: Array<{ close(): Promise<void> }> = [];

beforeAll(() => {
  if (!existsSync(DIST_SANDBOX)) throw new Error('build first (npm run build): this test runs the sandbox from dist in its own process');
});

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const item of opened.reverse()) await item.close();
});

type Json = Record<string, unknown>;

/** The emulator in its own process on `dataDir` (kept for the kill in afterAll). */
async function spawnSandbox(dataDir: string): Promise<{ process: ChildProcess; urls: SandboxUrls }> {
  const started = await spawnDistSandbox(dataDir, APIS);
  child = started.process;
  return started;
}

/** The sum, in pence, of the VRP debits AIS shows on the account paid from. */
async function debitsOf(tpp: VrpTpp, accountIdentification: string): Promise<{ ids: string[]; pence: number }> {
  const ais = await tpp.headlessFlow({ loginHint: 'jo' });
  const headers = { 'x-fapi-financial-id': BANK_FINANCIAL_ID };
  const account = (await tpp.get(`${tpp.aisBase()}/accounts`, ais.accessToken, headers))
    .json<{ Data: { Account: { AccountId: string; Account: { Identification: string }[] }[] } }>()
    .Data.Account.find((candidate) => candidate.Account[0]?.Identification === accountIdentification);
  const debits = (await tpp.get(`${tpp.aisBase()}/accounts/${account?.AccountId ?? ''}/transactions`, ais.accessToken, headers))
    .json<{ Data: { Transaction: { TransactionId: string; Amount: { Amount: string } }[] } }>()
    .Data.Transaction.filter((entry) => entry.TransactionId.startsWith('vrp-'));
  return {
    ids: debits.map((entry) => entry.TransactionId),
    pence: debits.reduce((total, entry) => total + Math.round(Number(entry.Amount.Amount) * 100), 0),
  };
}

describe('kill -9 in the middle of VRP payments served by two emulators on one data folder', () => {
  it('loses no acknowledged payment, lets none past the limit, and counts a replay once', async () => {
    const dataDir = tempDirSync('obflow-vrp-kill-');
    const first = await spawnSandbox(dataDir);
    const tpp = await VrpTpp.openVrp({ urls: first.urls });
    opened.push(tpp);
    // keys.json is written once the first start's keys are made: publish them before the second emulator reads it.
    await tpp.jwks();
    const second: TestSandbox = await startTestSandbox({ dataDir, apis: APIS });
    opened.push(second);
    const there = new VrpTpp(second.urls, tpp.identity);
    opened.push(there);
    there.client = tpp.client;

    const version = '4.0';
    const request = vrpConsentRequest(version, {
      maximum: '10.00',
      limits: [{ PeriodType: 'Year', PeriodAlignment: 'Consent', Amount: '150.00' }],
    });
    const mandate = await tpp.mandate(version, request, 'jo');
    const amounts = Array.from({ length: 40 }, (_, index) => ((index * 3) % 10) + 1);
    const keys = amounts.map((_, index) => `kill-9-vrp-${index}`);
    const bodies = amounts.map((amount) => tpp.vrpPayment(mandate.consentId, request, `${amount}.00`));
    const body = (index: number): Json => bodies[index] ?? {};
    // Half to each emulator. The second's all at once; the first's four at a time (a TPP's connection pool), so that
    // it is killed, once it has acknowledged five, with payments in flight and more to come — sent all at once, a
    // fast emulator may have answered every one before the signal lands, and the kill would not be mid-run.
    let acknowledged = 0;
    const exited = new Promise((resolve) => first.process.once('exit', resolve));
    const answers: Array<WireResponse | undefined> = [];
    const pay = async (index: number): Promise<void> => {
      const onFirst = index % 2 === 0;
      try {
        const answer = await (onFirst ? tpp : there).pay(version, mandate.payer, body(index), { key: keys[index] ?? '' });
        if (onFirst && answer.status === 201 && ++acknowledged === 5) first.process.kill('SIGKILL');
        answers[index] = answer;
      } catch {
        answers[index] = undefined; // killed in flight: its outcome is unknown to the TPP
      }
    };
    const queue = amounts.map((_, index) => index).filter((index) => index % 2 === 0);
    const firstPool = Array.from({ length: 4 }, async () => {
      for (let index = queue.shift(); index !== undefined; index = queue.shift()) await pay(index);
    });
    await Promise.all([
      ...firstPool,
      ...amounts
        .map((_, index) => index)
        .filter((index) => index % 2 === 1)
        .map(pay),
    ]);
    await exited;
    expect(first.process.signalCode).toBe('SIGKILL');
    const made = answers.flatMap((answer, index) =>
      answer?.status === 201 ? [{ index, id: String(answer.json<{ Data: Json }>().Data.DomesticVRPId) }] : [],
    );
    const lost = answers.filter((answer) => answer === undefined).length;
    // The kill landed mid-run: some requests to the first emulator never got an answer.
    expect(made.length).toBeGreaterThanOrEqual(5);
    expect(lost).toBeGreaterThan(0);
    for (const answer of answers) if (answer !== undefined && answer.status !== 201) expect(answer.status, answer.text).toBe(400);

    // Restarted on the same ports (the issuers are the same), beside the second, still running.
    const restarted = await startTestSandbox({
      dataDir,
      apis: APIS,
      resourcePort: Number(new URL(first.urls.sandbox_base_url).port),
      authPort: Number(new URL(first.urls.profiles['strict-headless'].auth_url).port),
    });
    opened.push(restarted);
    const after = new VrpTpp(restarted.urls, tpp.identity);
    opened.push(after);
    after.client = tpp.client;
    const cc = await after.clientCredentials('payments');

    // Every acknowledged payment is there, accepted, debited once.
    const debtor = (await after.get(`${after.pisp(version)}/domestic-vrps/${made[0]?.id ?? ''}`, cc)).json<{
      Data: { DebtorAccount: { Identification: string } };
    }>().Data.DebtorAccount.Identification;
    const before = await debitsOf(after, debtor);
    for (const payment of made) {
      const read = await after.get(`${after.pisp(version)}/domestic-vrps/${payment.id}`, cc);
      expect(read.status, read.text).toBe(200);
      expect(before.ids).toContain(payment.id);
    }
    expect(new Set(before.ids).size).toBe(before.ids.length);
    expect(before.pence).toBeLessThanOrEqual(LIMIT_PENCE);
    // Payments the TPP never heard of (killed in flight) may have been made: at most the lost requests.
    expect(before.ids.length - made.length).toBeLessThanOrEqual(lost);

    // A replayed key answers its payment and counts once.
    for (const payment of made.slice(0, 10)) {
      const replay = await after.pay(version, mandate.payer, body(payment.index), { key: keys[payment.index] ?? '' });
      expect(replay.json<{ Data: Json }>().Data.DomesticVRPId, replay.text).toBe(payment.id);
    }
    expect((await debitsOf(after, debtor)).pence).toBe(before.pence);

    // The rest of the year's 150.00 is paid ten pounds, then a pound at a time, then nothing more.
    let left = LIMIT_PENCE - before.pence;
    for (const step of [1000, 100])
      while (left >= step) {
        const paid = await after.pay(version, mandate.payer, tpp.vrpPayment(mandate.consentId, request, (step / 100).toFixed(2)));
        expect(paid.status, paid.text).toBe(201);
        left -= step;
      }
    if (left > 0) {
      const rest = (left / 100).toFixed(2);
      expect((await after.pay(version, mandate.payer, tpp.vrpPayment(mandate.consentId, request, rest))).status).toBe(201);
    }
    const over = await after.pay(version, mandate.payer, tpp.vrpPayment(mandate.consentId, request, '0.01'));
    expect(over.status, over.text).toBe(400);
    expect(over.json<{ Errors: { ErrorCode: string; Path: string }[] }>().Errors).toEqual([
      expect.objectContaining({ ErrorCode: 'U014', Path: 'Data.ControlParameters.PeriodicLimits[0].Amount' }),
    ]);
    expect((await debitsOf(after, debtor)).pence).toBe(LIMIT_PENCE);
  }, 120_000);
});
