// The emulator's AIS v3.1 consents end to end (account-access-consents): creation, reads, deletion, status and expiry
// over real mutual TLS with real registration and headless authorisation; bodies checked against both official OpenAPI
// files (v3.1.1 and v3.1.11). The emulator and wire helpers: sandbox-ais-fixture.ts.

import { randomUUID } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { schemaProblems } from '../helpers/obie-schemas.js';
import { SandboxTpp } from '../helpers/sandbox-client.js';
import type { Json } from './sandbox-ais-fixture.js';
import {
  aisp,
  ALL_TXN,
  clock,
  expectStandardHeaders,
  expectValid,
  get,
  headers,
  permissive,
  postConsent,
  sandbox,
  tpp,
  useAisSandbox,
  UUID,
} from './sandbox-ais-fixture.js';

useAisSandbox();

describe('account-access-consents', () => {
  it('creates a consent (201, OBReadConsentResponse1, absolute Self link, echoed interaction id)', async () => {
    const interactionId = randomUUID();
    const response = await postConsent(
      tpp,
      await tpp.clientCredentials(),
      {
        Data: {
          Permissions: ALL_TXN,
          ExpirationDateTime: '2099-01-01T00:00:00+00:00',
          TransactionFromDateTime: '2020-01-01T00:00:00+00:00',
        },
        Risk: {},
      },
      { 'x-fapi-interaction-id': interactionId },
    );
    expect(response.status, response.text).toBe(201);
    expectStandardHeaders(response, interactionId);
    const body = response.json<{ Data: Json; Links: { Self: string } }>();
    expectValid('POST', '/account-access-consents', 201, body);
    expect(body.Data).toMatchObject({
      Status: 'AwaitingAuthorisation',
      Permissions: ALL_TXN,
      ExpirationDateTime: '2099-01-01T00:00:00+00:00',
    });
    expect(body.Links.Self).toBe(aisp(`/account-access-consents/${String(body.Data.ConsentId)}`));
  });

  it('gives back the date-times it was sent as the same instants (fractional seconds kept), on create and on read', async () => {
    const cc = await tpp.clientCredentials();
    const sent = {
      ExpirationDateTime: '2099-01-01T10:00:00.415Z',
      TransactionFromDateTime: '2020-01-01T01:00:00.5+01:00',
      TransactionToDateTime: '2098-12-31T23:59:59.999999Z',
    };
    const expected = {
      ExpirationDateTime: '2099-01-01T10:00:00.415+00:00',
      TransactionFromDateTime: '2020-01-01T00:00:00.5+00:00',
      TransactionToDateTime: '2098-12-31T23:59:59.999999+00:00',
    };
    const created = await postConsent(tpp, cc, { Data: { Permissions: ALL_TXN, ...sent }, Risk: {} });
    expect(created.status, created.text).toBe(201);
    const body = created.json<{ Data: Json & { ConsentId: string } }>();
    expectValid('POST', '/account-access-consents', 201, body);
    expect(body.Data).toMatchObject(expected);
    const read = await get(tpp, cc, `/account-access-consents/${body.Data.ConsentId}`);
    expectValid('GET', '/account-access-consents/{ConsentId}', 200, read.json());
    expect(read.json<{ Data: Json }>().Data).toMatchObject(expected);
  });

  const invalid: [string, unknown, string, string][] = [
    ['no Data', { Risk: {} }, 'UK.OBIE.Field.Missing', 'Data'],
    ['no Risk', { Data: { Permissions: ALL_TXN } }, 'UK.OBIE.Field.Missing', 'Risk'],
    ['no Permissions', { Data: {}, Risk: {} }, 'UK.OBIE.Field.Missing', 'Data.Permissions'],
    ['empty Permissions', { Data: { Permissions: [] }, Risk: {} }, 'UK.OBIE.Field.Invalid', 'Data.Permissions'],
    [
      'unknown permission',
      { Data: { Permissions: ['ReadAccountsBasic', 'ReadEverything'] }, Risk: {} },
      'UK.OBIE.Field.Invalid',
      'Data.Permissions[1]',
    ],
    [
      'Basic without Credits/Debits',
      { Data: { Permissions: ['ReadAccountsBasic', 'ReadTransactionsBasic'] }, Risk: {} },
      'UK.OBIE.Field.Invalid',
      'Data.Permissions',
    ],
    [
      'Detail without Credits/Debits',
      { Data: { Permissions: ['ReadAccountsBasic', 'ReadTransactionsDetail'] }, Risk: {} },
      'UK.OBIE.Field.Invalid',
      'Data.Permissions',
    ],
    [
      'Credits without Basic/Detail',
      { Data: { Permissions: ['ReadAccountsBasic', 'ReadTransactionsCredits'] }, Risk: {} },
      'UK.OBIE.Field.Invalid',
      'Data.Permissions',
    ],
    ['no ReadAccounts*', { Data: { Permissions: ['ReadBalances'] }, Risk: {} }, 'UK.OBIE.Field.Invalid', 'Data.Permissions'],
    [
      'malformed ExpirationDateTime',
      { Data: { Permissions: ALL_TXN, ExpirationDateTime: 'next tuesday' }, Risk: {} },
      'UK.OBIE.Field.InvalidDate',
      'Data.ExpirationDateTime',
    ],
    [
      'past ExpirationDateTime',
      { Data: { Permissions: ALL_TXN, ExpirationDateTime: '2001-01-01T00:00:00+00:00' }, Risk: {} },
      'UK.OBIE.Field.InvalidDate',
      'Data.ExpirationDateTime',
    ],
    [
      'impossible TransactionFromDateTime',
      { Data: { Permissions: ALL_TXN, TransactionFromDateTime: '2024-02-30T00:00:00+00:00' }, Risk: {} },
      'UK.OBIE.Field.InvalidDate',
      'Data.TransactionFromDateTime',
    ],
    [
      'window backwards',
      {
        Data: {
          Permissions: ALL_TXN,
          TransactionFromDateTime: '2025-01-02T00:00:00+00:00',
          TransactionToDateTime: '2025-01-01T00:00:00+00:00',
        },
        Risk: {},
      },
      'UK.OBIE.Field.InvalidDate',
      'Data.TransactionToDateTime',
    ],
    [
      'date-time without offset (strict)',
      { Data: { Permissions: ALL_TXN, TransactionFromDateTime: '2025-01-02T00:00:00' }, Risk: {} },
      'UK.OBIE.Field.InvalidDate',
      'Data.TransactionFromDateTime',
    ],
    [
      'unknown Data field (strict)',
      { Data: { Permissions: ALL_TXN, Colour: 'blue' }, Risk: {} },
      'UK.OBIE.Field.Unexpected',
      'Data.Colour',
    ],
    ['body not JSON', '{"Data":', 'UK.OBIE.Resource.InvalidFormat', ''],
    ['body not an object', '[1,2]', 'UK.OBIE.Field.Invalid', '$'],
  ];
  it.each(invalid)('refuses %s with 400 %s at %s', async (_name, body, errorCode, path) => {
    const interactionId = randomUUID();
    const response = await postConsent(tpp, await tpp.clientCredentials(), body, { 'x-fapi-interaction-id': interactionId });
    expect(response.status, response.text).toBe(400);
    expectStandardHeaders(response, interactionId);
    const error = response.json<{ Code: string; Errors: { ErrorCode: string; Path?: string }[] }>();
    expectValid('POST', '/account-access-consents', 400, error);
    expect(error.Errors).toContainEqual(
      expect.objectContaining(path === '' ? { ErrorCode: errorCode } : { ErrorCode: errorCode, Path: path }),
    );
  });

  it('permissive profiles read an offset-less date-time as UTC and ignore unknown fields', async () => {
    const response = await postConsent(
      permissive,
      await permissive.clientCredentials(),
      { Data: { Permissions: ALL_TXN, TransactionFromDateTime: '2025-01-02T00:00:00', Colour: 'blue' }, Risk: {} },
      { 'x-fapi-financial-id': undefined },
    );
    expect(response.status, response.text).toBe(201);
    const body = response.json<{ Data: Json }>();
    expectValid('POST', '/account-access-consents', 201, body);
    expect(body.Data.TransactionFromDateTime).toBe('2025-01-02T00:00:00+00:00');
  });

  it('answers 415 for a body that is not application/json', async () => {
    const interactionId = randomUUID();
    const response = await tpp.fetch('POST', aisp('/account-access-consents'), {
      headers: headers(await tpp.clientCredentials(), { 'content-type': 'text/plain', 'x-fapi-interaction-id': interactionId }),
      body: JSON.stringify({ Data: { Permissions: ALL_TXN }, Risk: {} }),
    });
    expect(response.status).toBe(415);
    expectStandardHeaders(response, interactionId);
    expect(response.text).toBe('');
  });

  it('answers a body over 256 KiB with 413, the interaction id and an OBErrorResponse1 (AIS and registration routes)', async () => {
    const big = JSON.stringify({ Data: { Permissions: ALL_TXN, Padding: 'x'.repeat(300 * 1024) }, Risk: {} });
    const interactionId = randomUUID();
    const consent = await postConsent(tpp, await tpp.clientCredentials(), big, { 'x-fapi-interaction-id': interactionId });
    const registrationId = randomUUID();
    const registration = await tpp.fetch('POST', sandbox.urls.registration_endpoint, {
      headers: { 'content-type': 'application/jwt', 'x-fapi-interaction-id': registrationId },
      body: 'e'.repeat(300 * 1024),
    });
    for (const [response, id] of [
      [consent, interactionId],
      [registration, registrationId],
    ] as const) {
      expect(response.status, response.text).toBe(413);
      expectStandardHeaders(response, id);
      expect(schemaProblems('OBErrorResponse1', response.json())).toEqual([]);
      expect(response.json()).toMatchObject({ Id: id });
    }
    // Every other resource-origin answer carries it too, registration included.
    const registered = await tpp.registerRaw('not-a-jwt');
    expect(registered.status).toBe(400);
    expect(registered.headers['x-fapi-interaction-id']).toMatch(UUID);
  });

  it('walks AwaitingAuthorisation → Authorised → deleted (204; then 400 NotFound, reads 403, no re-authorisation)', async () => {
    const cc = await tpp.clientCredentials();
    const created = await postConsent(tpp, cc, { Data: { Permissions: ALL_TXN }, Risk: {} });
    const consentId = created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
    const awaiting = await get(tpp, cc, `/account-access-consents/${consentId}`);
    expect(awaiting.status).toBe(200);
    expectValid('GET', '/account-access-consents/{ConsentId}', 200, awaiting.json());
    expect(awaiting.json<{ Data: Json }>().Data.Status).toBe('AwaitingAuthorisation');

    const authorize = await tpp.authorize({ consentId, loginHint: 'alex' });
    const exchanged = await tpp.exchangeCode(authorize.params.get('code') ?? '', authorize.redirectUri);
    const token = exchanged.json<{ access_token: string }>().access_token;
    const authorisedGet = await get(tpp, cc, `/account-access-consents/${consentId}`);
    expectValid('GET', '/account-access-consents/{ConsentId}', 200, authorisedGet.json());
    expect(authorisedGet.json<{ Data: Json }>().Data.Status).toBe('Authorised');
    expect((await get(tpp, token, '/accounts')).status).toBe(200);

    const deleted = await tpp.fetch('DELETE', aisp(`/account-access-consents/${consentId}`), { headers: headers(cc) });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expectStandardHeaders(deleted, deleted.headers['x-fapi-interaction-id'] as string);

    const after = await get(tpp, cc, `/account-access-consents/${consentId}`);
    expect(after.status).toBe(400);
    expectValid('GET', '/account-access-consents/{ConsentId}', 400, after.json());
    expect(after.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe('UK.OBIE.Resource.NotFound');
    const again = await tpp.fetch('DELETE', aisp(`/account-access-consents/${consentId}`), { headers: headers(cc) });
    expect(again.status).toBe(400);
    expectValid('DELETE', '/account-access-consents/{ConsentId}', 400, again.json());

    const read = await get(tpp, token, '/accounts');
    expect(read.status).toBe(403);
    expect(read.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe('UK.OBIE.Resource.InvalidConsentStatus');
    const reauthorise = await tpp.authorize({ consentId, loginHint: 'alex' });
    expect(reauthorise.params.get('code')).toBeNull();
  });

  it('records a PSU cancellation as Rejected, which stays terminal', async () => {
    const interactive = new SandboxTpp(sandbox.urls, sandbox.identity, 'strict-interactive');
    try {
      // The sandbox clock is ahead of the real one by now: date the JWTs by it.
      const at = Math.floor((Date.now() + clock.offset) / 1000);
      await interactive.register({ iat: at, exp: at + 600 });
      const cc = await interactive.clientCredentials();
      const created = await postConsent(interactive, cc, { Data: { Permissions: ALL_TXN }, Risk: {} });
      const consentId = created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
      const cancelled = await interactive.authorizeInteractive({ consentId }, { username: 'sam', password: 'sam-sandbox-2', cancel: true });
      expect(cancelled.params.get('code')).toBeNull();
      const rejected = await get(interactive, cc, `/account-access-consents/${consentId}`);
      expectValid('GET', '/account-access-consents/{ConsentId}', 200, rejected.json());
      expect(rejected.json<{ Data: Json }>().Data.Status).toBe('Rejected');
      const retry = await interactive.authorizeInteractive({ consentId }, { username: 'sam', password: 'sam-sandbox-2' });
      expect(retry.params.get('code')).toBeNull();
      expect((await get(interactive, cc, `/account-access-consents/${consentId}`)).json<{ Data: Json }>().Data.Status).toBe('Rejected');
    } finally {
      await interactive.close();
    }
  });

  it("hides another client's consent (400 NotFound)", async () => {
    const created = await postConsent(tpp, await tpp.clientCredentials(), { Data: { Permissions: ALL_TXN }, Risk: {} });
    const consentId = created.json<{ Data: { ConsentId: string } }>().Data.ConsentId;
    const other = await get(permissive, await permissive.clientCredentials(), `/account-access-consents/${consentId}`);
    expect(other.status).toBe(400);
    expect(other.json<{ Errors: { ErrorCode: string }[] }>().Errors[0]?.ErrorCode).toBe('UK.OBIE.Resource.NotFound');
  });
});
