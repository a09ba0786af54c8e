// The API family table (src/sandbox/families.ts) and the route, operation and member tables it names
// (src/sandbox/resource/routes.ts, payment-request.ts) against the official OpenAPI files of each family and version
// (Payment Initiation and Confirmation of Funds, v3.1.11 and v4.0): every path is implemented or listed as not
// implemented (404), every method of an implemented path is an operation, each operation's grant, request signature,
// idempotency key and signed answer are the files', the base paths are the files' servers, and the members the bank
// reads are the schemas' properties. The emulator never reads the files; this test skips (saying why) without them.

import { describe, expect, it } from 'vitest';

import { SANDBOX_APIS } from '../../src/config/schema.js';
import { API_FAMILY_NAMES } from '../../src/sandbox/contracts.js';
import type { AisApiVersion } from '../../src/sandbox/contracts.js';
import { FAMILIES, FAMILY_ROWS, isUnderVersion, matchResource, scopesForRoles, signsAnswers } from '../../src/sandbox/families.js';
import { PAYMENT_MEMBERS } from '../../src/sandbox/resource/payment-request.js';
import { PAYMENT_STATUS } from '../../src/sandbox/resource/family-common.js';
import type { Operation, RouteTable } from '../../src/sandbox/resource/routes.js';
import { PAYMENT_CONSENT_STATUS } from '../../src/sandbox/resource/v4-codes.js';
import { openApiDoc } from '../helpers/obie-payments.js';
import type { PaymentApi } from '../helpers/obie-payments.js';
import { codeSet } from '../helpers/obie-v4.js';
import { describeWith, obiePaymentSpecs } from '../helpers/prerequisites.js';

const VERSIONS: readonly AisApiVersion[] = ['3.1', '4.0'];
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Doc = Record<string, unknown>;
const object = (value: unknown): Doc => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Doc) : {});

function resolve(doc: Doc, value: unknown): Doc {
  let node = object(value);
  while (typeof node.$ref === 'string') {
    let target: unknown = doc;
    for (const part of node.$ref.replace(/^#\//, '').split('/')) target = object(target)[part];
    node = object(target);
  }
  return node;
}

/** The file's operations: template → method (upper case) → its operation object. */
function operationsOf(doc: Doc): Map<string, Map<string, Doc>> {
  return new Map(
    Object.entries(object(doc.paths)).map(([path, item]) => [
      path,
      new Map(
        METHODS.filter((method) => object(item)[method] !== undefined).map((method) => [
          method.toUpperCase(),
          object(object(item)[method]),
        ]),
      ),
    ]),
  );
}

/** How the file says an operation is called (the same reading as the Operation rows). */
function operationOf(doc: Doc, operation: Doc): Operation & { scope: string } {
  const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []).map((parameter) => resolve(doc, parameter));
  const required = (name: string): boolean => parameters.some((parameter) => parameter.name === name && parameter.required === true);
  const [security] = Array.isArray(operation.security) ? operation.security : [];
  const [scheme = '', scopes = []] = Object.entries(object(security))[0] ?? [];
  const success = Object.entries(object(operation.responses)).find(([status]) => status.startsWith('2'));
  const headers = object(resolve(doc, success?.[1]).headers);
  return {
    grant: scheme === 'PSUOAuth2Security' ? 'authorization_code' : 'client_credentials',
    signedRequest: required('x-jws-signature'),
    signedResponse: object(headers['x-jws-signature']).required === true,
    idempotent: required('x-idempotency-key'),
    scope: String((scopes as unknown[])[0]),
  };
}

const FILES_OF: Readonly<Record<'payments' | 'funds', PaymentApi>> = { payments: 'pisp', funds: 'cbpii' };

describe('the family table', () => {
  it('has one row per family the emulator names, in order, and the config names the same (twin lists)', () => {
    expect(FAMILY_ROWS.map((family) => family.name)).toEqual([...API_FAMILY_NAMES]);
    expect([...SANDBOX_APIS]).toEqual([...API_FAMILY_NAMES]);
  });

  it('gives each OB role its scope, openid first (registration reads it)', () => {
    expect(scopesForRoles(['AISP'])).toEqual(['openid', 'accounts']);
    expect(scopesForRoles(['CBPII', 'PISP'])).toEqual(['openid', 'payments', 'fundsconfirmations']);
    expect(scopesForRoles([])).toEqual(['openid']);
  });

  it('serves a family only when it is named: its paths are then no paths at all (404 as unknown ones)', () => {
    const path = '/open-banking/v4.0/pisp/domestic-payments';
    expect(matchResource('POST', path, ['accounts'], VERSIONS).outcome).toBe('not-found');
    expect(matchResource('POST', path, ['accounts', 'payments'], VERSIONS)).toMatchObject({ outcome: 'route', family: 'payments' });
    expect(matchResource('POST', path, ['accounts', 'payments'], ['3.1']).outcome).toBe('not-found');
    expect(matchResource('GET', '/open-banking/v3.1/pisp/international-payments', ['payments'], VERSIONS)).toMatchObject({
      outcome: 'not-implemented',
      family: 'payments',
    });
    expect(matchResource('DELETE', '/open-banking/v3.1/cbpii/funds-confirmations', ['funds'], VERSIONS)).toEqual({
      outcome: 'method-not-allowed',
      allow: ['POST'],
    });
    expect(isUnderVersion('/open-banking/v4.0/cbpii/x', '4.0', ['funds'], VERSIONS)).toBe(true);
    expect(isUnderVersion('/open-banking/v4.0/cbpii/x', '4.0', ['accounts'], VERSIONS)).toBe(false);
  });

  it('needs the message-signing key exactly when a served family signs an answer', () => {
    expect(signsAnswers(['accounts'])).toBe(false);
    expect(signsAnswers(['accounts', 'funds'])).toBe(false);
    expect(signsAnswers(['payments'])).toBe(true);
  });
});

describeWith(obiePaymentSpecs, 'the payments and funds tables against the OpenAPI files', () => {
  const present = obiePaymentSpecs.missing === undefined;
  describe.each(['payments', 'funds'] as const)('%s', (name) => {
    const family = FAMILIES[name];
    const table = family.routes as RouteTable<{ kind: string }>;
    const api = FILES_OF[name];

    it.each(VERSIONS)('v%s: every path of the file is implemented or listed as not, and no other', (version) => {
      if (!present) return;
      const operations = operationsOf(openApiDoc(api, version));
      const implemented = table.implemented.map((row) => row.template);
      expect([...operations.keys()].sort()).toEqual([...implemented, ...table.unimplemented].sort());
      for (const row of table.implemented)
        expect(
          Object.keys(row.methods)
            .filter((method) => method !== 'HEAD')
            .sort(),
          row.template,
        ).toEqual([...(operations.get(row.template)?.keys() ?? [])].sort());
    });

    it.each(VERSIONS)(
      "v%s: each operation's grant, signing, idempotency and scope are the file's; the base path its servers'",
      (version) => {
        if (!present) return;
        const doc = openApiDoc(api, version);
        expect(object((doc.servers as unknown[])[0]).url).toBe(family.basePaths[version]);
        const operations = operationsOf(doc);
        for (const row of table.implemented)
          for (const [method, build] of Object.entries(row.methods)) {
            if (method === 'HEAD') continue;
            const { kind } = build('id');
            const file = operationOf(doc, operations.get(row.template)?.get(method) ?? {});
            const { scope, ...how } = file;
            expect((family.operations as Readonly<Record<string, Operation>>)[kind], `${method} ${row.template}`).toEqual(how);
            expect(scope, `${method} ${row.template}`).toBe(family.scope);
          }
      },
    );
  });

  it.each(VERSIONS)("v%s: the members the bank reads are the schemas' properties", (version) => {
    if (!present) return;
    const pisp = openApiDoc('pisp', version);
    const cbpii = openApiDoc('cbpii', version);
    const props = (doc: Doc, schema: Doc): string[] => Object.keys(object(resolve(doc, schema).properties));
    const at = (doc: Doc, name: string, ...path: string[]): Doc =>
      path.reduce(
        (node, member) => resolve(doc, object(node.properties)[member]),
        resolve(doc, object(object(doc.components).schemas)[name]),
      );
    const members = PAYMENT_MEMBERS[version];
    expect(members.consentData).toEqual(props(pisp, at(pisp, 'OBWriteDomesticConsent4', 'Data')));
    expect(members.paymentData).toEqual(props(pisp, at(pisp, 'OBWriteDomestic2', 'Data')));
    expect(members.initiation).toEqual(props(pisp, at(pisp, 'OBWriteDomesticConsent4', 'Data', 'Initiation')));
    expect(members.initiation).toEqual(props(pisp, at(pisp, 'OBWriteDomestic2', 'Data', 'Initiation')));
    expect(members.instructedAmount).toEqual(props(pisp, at(pisp, 'OBWriteDomesticConsent4', 'Data', 'Initiation', 'InstructedAmount')));
    expect(members.cashAccount).toEqual(props(pisp, at(pisp, 'OBWriteDomesticConsent4', 'Data', 'Initiation', 'CreditorAccount')));
    expect(members.cashAccount).toEqual(props(pisp, at(pisp, 'OBWriteDomesticConsent4', 'Data', 'Initiation', 'DebtorAccount')));
    expect(members.risk).toEqual(props(pisp, at(pisp, 'OBWriteDomesticConsent4', 'Risk')));
    expect(members.fundsConsentData).toEqual(props(cbpii, at(cbpii, 'OBFundsConfirmationConsent1', 'Data')));
    expect(members.fundsDebtorAccount).toEqual(props(cbpii, at(cbpii, 'OBFundsConfirmationConsent1', 'Data', 'DebtorAccount')));
    expect(members.fundsConfirmationData).toEqual(props(cbpii, at(cbpii, 'OBFundsConfirmation1', 'Data')));
  });

  it.each(VERSIONS)("v%s: a payment's status words are in the file's enums (and the v4.0 ones in the code set)", (version) => {
    if (!present) return;
    const pisp = openApiDoc('pisp', version);
    const schemas = object(object(pisp.components).schemas);
    const statusEnum = (name: string, ...path: string[]): unknown[] => {
      let node = resolve(pisp, schemas[name]);
      for (const member of path) {
        if (node.type === 'array') node = resolve(pisp, node.items);
        node = resolve(pisp, object(node.properties)[member]);
      }
      return Array.isArray(node.enum) ? node.enum : [];
    };
    const words = PAYMENT_STATUS[version];
    for (const word of [words.received, words.settled, words.rejected])
      expect(statusEnum('OBWriteDomesticResponse5', 'Data', 'Status')).toContain(word);
    const details =
      version === '3.1'
        ? statusEnum('OBWritePaymentDetailsResponse1', 'Data', 'PaymentStatus', 'Status')
        : statusEnum('OBWritePaymentDetails1', 'Status');
    for (const word of [words.settled, words.rejected]) expect(details).toContain(word);
    if (version === '4.0') {
      const external = codeSet('internal')
        .filter((row) => row.set === 'ExternalPaymentTransactionStatus1Code')
        .map((row) => row.code);
      for (const word of [words.received, words.settled, words.rejected]) expect(external).toContain(word);
      const reasons = codeSet('internal').filter((row) => row.set === 'OBExternalStatusReason1Code');
      expect(reasons.find((row) => row.code === words.rejectedReason?.StatusReasonCode)?.name).toBe(
        words.rejectedReason?.StatusReasonDescription,
      );
      const consentStatuses = statusEnum('OBWriteDomesticConsentResponse5', 'Data', 'Status');
      for (const row of Object.values(PAYMENT_CONSENT_STATUS)) {
        expect(consentStatuses).toContain(row.code);
        if (row.reason !== undefined) expect(reasons.find((entry) => entry.code === row.reason.code)?.name).toBe(row.reason.name);
      }
    } else {
      expect(statusEnum('OBWriteDomesticConsentResponse5', 'Data', 'Status')).toEqual(
        expect.arrayContaining(['AwaitingAuthorisation', 'Authorised', 'Consumed', 'Rejected']),
      );
    }
  });
});
