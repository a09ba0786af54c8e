// The AIS v3.1 integration files' emulator (sandbox-ais-*.test.ts): real mutual TLS, a strict and a permissive client
// registered on it, the seeded test users, and the wire helpers (headers, GET, consent POST, headless authorisation,
// checks against both official OpenAPI files).

import { randomUUID } from 'node:crypto';

import { beforeAll, expect } from 'vitest';

import { accountIdOf } from '../../src/sandbox/data/users.js';
import { responseProblems } from '../helpers/obie-schemas.js';
import { BANK_FINANCIAL_ID, useTestSandbox } from '../helpers/sandbox-client.js';
import type { SandboxFixture, SandboxTpp, WireResponse } from '../helpers/sandbox-client.js';

export const SEED = 'ais-integration';
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const ALL_TXN = [
  'ReadAccountsDetail',
  'ReadBalances',
  'ReadTransactionsCredits',
  'ReadTransactionsDebits',
  'ReadTransactionsDetail',
];

export type Json = Record<string, unknown>;
export interface Txn extends Json {
  TransactionId: string;
  CreditDebitIndicator: string;
  BookingDateTime: string;
  Status: string;
  Balance?: { Amount: { Amount: string }; CreditDebitIndicator: string };
}
export interface TxnPage {
  Data: { Transaction: Txn[] };
  Links: { Self: string; First: string; Prev?: string; Next?: string; Last: string };
  Meta: { TotalPages: number; FirstAvailableDateTime?: string; LastAvailableDateTime?: string };
}

export let sandbox: SandboxFixture;
export let tpp: SandboxTpp;
export let permissive: SandboxTpp;
/** Added to the real clock by the sandbox's `now` (only moved forward by the expiry tests, at the very end). */
export const clock = { offset: 0 };

export const idOf = (key: string): string => accountIdOf(SEED, key);
export const aisp = (path: string): string => `${sandbox.urls.aisp_base_url}${path}`;

export function expectValid(method: string, template: string, status: number, body: unknown): void {
  expect(responseProblems(method, template, status, body)).toEqual([]);
}

export function headers(token: string | undefined, extra: Record<string, string | undefined> = {}): Record<string, string> {
  const all: Record<string, string | undefined> = {
    accept: 'application/json',
    'x-fapi-financial-id': BANK_FINANCIAL_ID,
    'x-fapi-interaction-id': randomUUID(),
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    ...extra,
  };
  return Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

export async function get(
  client: SandboxTpp,
  token: string | undefined,
  pathOrUrl: string,
  extra: Record<string, string | undefined> = {},
): Promise<WireResponse> {
  return client.fetch('GET', pathOrUrl.startsWith('https://') ? pathOrUrl : aisp(pathOrUrl), { headers: headers(token, extra) });
}

export async function postConsent(
  client: SandboxTpp,
  token: string,
  body: unknown,
  extra: Record<string, string | undefined> = {},
): Promise<WireResponse> {
  return client.fetch('POST', aisp('/account-access-consents'), {
    headers: headers(token, { 'content-type': 'application/json', ...extra }),
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Consent with `data` (Permissions and dates) authorised headlessly by `user`; the authorization-code token. */
export async function authorised(client: SandboxTpp, user: string, data: Json): Promise<{ consentId: string; token: string }> {
  const created = await postConsent(client, await client.clientCredentials(), { Data: data, Risk: {} });
  expect(created.status, created.text).toBe(201);
  const consentId = created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
  const authorize = await client.authorize({ consentId, loginHint: user });
  const code = authorize.params.get('code');
  expect(code, authorize.location).toBeTruthy();
  const exchanged = await client.exchangeCode(code ?? '', authorize.redirectUri);
  expect(exchanged.status, exchanged.text).toBe(200);
  return { consentId, token: exchanged.json<{ access_token: string }>().access_token };
}

export function expectStandardHeaders(response: WireResponse, interactionId?: string): void {
  expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(typeof response.headers.date).toBe('string');
  const echoed = response.headers['x-fapi-interaction-id'];
  if (interactionId === undefined) expect(echoed).toMatch(UUID);
  else expect(echoed).toBe(interactionId);
}

/** Starts the file's emulator (seeded, its clock moved by `clock.offset`) and registers `tpp` and `permissive` on it. */
export function useAisSandbox(): void {
  // The clock is this module's, and test files may share a worker's modules (vitest.config.ts): the expiry tests of
  // an earlier file must not have moved this file's clock.
  beforeAll(() => {
    clock.offset = 0;
  });
  sandbox = useTestSandbox({ seed: SEED, now: () => new Date(Date.now() + clock.offset) });
  beforeAll(async () => {
    tpp = await sandbox.tpp('strict-headless');
    permissive = await sandbox.tpp('permissive-headless');
  });
}
