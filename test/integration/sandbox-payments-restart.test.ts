// A payment survives the bank being killed (docs/sandbox-payments.md, "Idempotency"; docs/sandbox.md "State"): the
// emulator runs in its own process (from dist), a payment is acknowledged, the process is killed with SIGKILL before
// the next request, and the emulator restarted on the same data folder answers the payment, its consent used up, the
// same key's replay with that payment (never a second one), one debit in AIS — and signs with the same key.

import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { PaymentsTpp, paymentConsentRequest, paymentsIdentity, verifyBankSignature } from '../helpers/payments-client.js';
import { BANK_FINANCIAL_ID, startTestSandbox } from '../helpers/sandbox-client.js';
import type { TestSandbox } from '../helpers/sandbox-client.js';
import { DIST_SANDBOX, spawnSandbox as spawnDistSandbox } from '../helpers/sandbox-process.js';
import { tempDirSync } from '../helpers/temp.js';

const APIS = ['accounts', 'payments', 'funds'] as const;

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

describe('kill -9 right after a payment is acknowledged', () => {
  it('loses nothing and duplicates nothing once restarted', async () => {
    const dataDir = tempDirSync('obflow-payments-kill-');
    const started = await spawnDistSandbox(dataDir, APIS);
    child = started.process;
    const running = started.process;
    const urls = started.urls;

    const tpp = new PaymentsTpp(urls, await paymentsIdentity());
    opened.push(tpp);
    const registered = await tpp.register({ scope: 'openid accounts payments fundsconfirmations' });
    const request = paymentConsentRequest('4.0', { InstructedAmount: { Amount: '7.77', Currency: 'GBP' } });
    const { consentId, token } = await tpp.paymentConsent('4.0', request);
    const payer = await tpp.authorised(consentId, 'openid payments');
    const ais = await tpp.headlessFlow();
    const jwksBefore = await tpp.jwks();
    const key = 'kill-9-payment-key';
    const body = tpp.paymentRequest(consentId, request);
    const made = await tpp.post(`${tpp.pisp('4.0')}/domestic-payments`, payer, body, { key });
    expect(made.status, made.text).toBe(201);
    const paymentId = String(made.json<{ Data: Json }>().Data.DomesticPaymentId);

    // The acknowledgement arrived; nothing else is sent before the kill.
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
    expect(running.signalCode).toBe('SIGKILL');

    // Same ports: the issuers (and so the tokens' and the client's issuer) are the same.
    const restarted: TestSandbox = await startTestSandbox({
      dataDir,
      apis: APIS,
      resourcePort: Number(new URL(urls.sandbox_base_url).port),
      authPort: Number(new URL(urls.profiles['strict-headless'].auth_url).port),
    });
    opened.push(restarted);
    const after = new PaymentsTpp(restarted.urls, tpp.identity);
    opened.push(after);
    after.client = registered;

    const replayed = await after.post(`${after.pisp('4.0')}/domestic-payments`, payer, body, { key });
    expect(replayed.status, replayed.text).toBe(201);
    expect(replayed.json<{ Data: Json }>().Data.DomesticPaymentId).toBe(paymentId);
    const read = await after.get(`${after.pisp('4.0')}/domestic-payments/${paymentId}`, token);
    expect(read.json<{ Data: Json }>().Data).toMatchObject({ DomesticPaymentId: paymentId, Status: 'ACSC' });
    expect((await after.get(`${after.pisp('4.0')}/domestic-payment-consents/${consentId}`, token)).json<{ Data: Json }>().Data.Status).toBe(
      'COND',
    );
    // A new key does not pay the consumed consent a second time.
    expect((await after.post(`${after.pisp('4.0')}/domestic-payments`, payer, body)).status).toBe(400);

    // One debit of 7.77 in AIS, with the payment's id.
    const headers = { 'x-fapi-financial-id': BANK_FINANCIAL_ID };
    const debtor = String(read.json<{ Data: { Debtor: Json } }>().Data.Debtor.Identification);
    const account = (await after.get(`${after.aisBase()}/accounts`, ais.accessToken, headers))
      .json<{ Data: { Account: { AccountId: string; Account: { Identification: string }[] }[] } }>()
      .Data.Account.find((candidate) => candidate.Account[0]?.Identification === debtor);
    const entries = (await after.get(`${after.aisBase()}/accounts/${account?.AccountId ?? ''}/transactions`, ais.accessToken, headers))
      .json<{ Data: { Transaction: { TransactionId: string; Amount: { Amount: string } }[] } }>()
      .Data.Transaction.filter((entry) => entry.TransactionId === paymentId);
    expect(entries).toEqual([expect.objectContaining({ TransactionId: paymentId, Amount: { Amount: '7.77', Currency: 'GBP' } })]);

    // The message-signing key survived in keys.json: the same JWKS, and the answers verify with it.
    expect(await after.jwks()).toEqual(jwksBefore);
    expect(() => verifyBankSignature(read.headers['x-jws-signature'] as string, read.text, jwksBefore)).not.toThrow();
  }, 90_000);
});
