// The VRP family's tables (src/sandbox/resource/vrp-tables.ts, routes.ts VRP_ROUTES / VRP_OPERATIONS, vrp-limits.ts
// PERIOD_TYPES) against the official files: obie-vrp-v3.1.11.yaml, obie-vrp-v4.0.yaml, obl-cvrp-v4.0.yaml and the v4.0
// VRP pages' endpoint tables. Every path and method is implemented or declared not; each operation's signing and
// idempotency are the files', its grant the pages'; the members, enums, lengths and status words are the schemas'.
// The emulator never reads these files; this test skips (saying why) without them.

import { readFileSync } from 'node:fs';

import { expect, it } from 'vitest';

import { FAMILIES } from '../../src/sandbox/families.js';
import { PAYMENT_STATUS } from '../../src/sandbox/resource/family-common.js';
import type { Operation } from '../../src/sandbox/resource/routes.js';
import { VRP_OPERATIONS, VRP_ROUTES, VRP_UNIMPLEMENTED_METHODS } from '../../src/sandbox/resource/routes.js';
import { CONSENT_STATUS } from '../../src/sandbox/resource/v4-codes.js';
import { PERIOD_ALIGNMENTS, PERIOD_TYPE_NAMES } from '../../src/sandbox/resource/vrp-limits.js';
import {
  AUTHENTICATION_METHODS,
  FUNDS_AVAILABLE,
  INTERACTION_TYPES,
  VRP_MEMBERS,
  VRP_TYPES,
  VRP_VERSIONS,
  vrpTypesOf,
} from '../../src/sandbox/resource/vrp-tables.js';
import { openApiDoc } from '../helpers/obie-payments.js';
import type { PaymentApi } from '../helpers/obie-payments.js';
import { codeSet } from '../helpers/obie-v4.js';
import { describeWith, obieVrpSpecs, SPEC_FILES, specPath } from '../helpers/prerequisites.js';

type Doc = Record<string, unknown>;
const object = (value: unknown): Doc => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Doc) : {});
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Each file the family answers to: v3.1 the v3.1.11 file; v4.0 the VRP file and the cVRP file. */
const FILES: readonly (readonly ['3.1' | '4.0', PaymentApi])[] = [
  ['3.1', 'vrp'],
  ['4.0', 'vrp'],
  ['4.0', 'cvrp'],
];

function resolve(doc: Doc, value: unknown): Doc {
  let node = object(value);
  while (typeof node.$ref === 'string') {
    let target: unknown = doc;
    for (const part of node.$ref.replace(/^#\//, '').split('/')) target = object(target)[part];
    node = object(target);
  }
  if (Array.isArray(node.allOf)) return Object.assign({}, ...node.allOf.map((part) => resolve(doc, part))) as Doc;
  return node;
}

/** The schema at `name` then `path` (array items stepped through). */
function at(doc: Doc, name: string, ...path: string[]): Doc {
  let node = resolve(doc, object(object(doc.components).schemas)[name]);
  for (const member of path) {
    if (node.type === 'array') node = resolve(doc, node.items);
    node = resolve(doc, object(node.properties)[member]);
  }
  return node.type === 'array' ? resolve(doc, node.items) : node;
}
const props = (schema: Doc): string[] => Object.keys(object(schema.properties));
const codes = (schema: Doc): unknown[] =>
  Array.isArray(schema.enum) ? schema.enum : Array.isArray(schema['x-namespaced-enum']) ? schema['x-namespaced-enum'] : [];

/** The grant of each "METHOD /path" in the v4.0 pages' endpoint tables ("Client Credentials", "Authorization Code"). */
function pageGrants(): Map<string, Operation['grant']> {
  const grants = new Map<string, Operation['grant']>();
  for (const file of [SPEC_FILES.vrpConsentsPage, SPEC_FILES.vrpPaymentsPage])
    for (const line of readFileSync(specPath(file), 'utf8').split('\n')) {
      const cells = line.split('|').map((cell) => cell.trim());
      const endpoint = cells.find((cell) => /^(GET|POST|PUT|PATCH|DELETE) +\//.test(cell));
      const grant = cells.find((cell) => cell === 'Client Credentials' || cell === 'Authorization Code');
      if (endpoint !== undefined && grant !== undefined)
        grants.set(
          endpoint.replace(/ +/g, ' ').replace('{consentId}', '{ConsentId}'),
          grant === 'Client Credentials' ? 'client_credentials' : 'authorization_code',
        );
    }
  return grants;
}

describeWith(obieVrpSpecs, 'the VRP tables against the OpenAPI files and the v4.0 pages', () => {
  const present = obieVrpSpecs.missing === undefined;

  it.each(FILES)(
    'v%s %s: every path is implemented, every method served or declared not (405); the base path its servers',
    (version, api) => {
      if (!present) return;
      const doc = openApiDoc(api, version);
      expect(object((doc.servers as unknown[])[0]).url).toBe(FAMILIES.vrp.basePaths[version]);
      const paths = object(doc.paths);
      expect(Object.keys(paths).sort()).toEqual(VRP_ROUTES.implemented.map((row) => row.template).sort());
      for (const row of VRP_ROUTES.implemented) {
        const file = METHODS.filter((method) => object(paths[row.template])[method] !== undefined).map((method) => method.toUpperCase());
        const declared = VRP_UNIMPLEMENTED_METHODS[row.template] ?? [];
        const served = Object.keys(row.methods).filter((method) => method !== 'HEAD');
        expect(served.sort(), row.template).toEqual(file.filter((method) => !declared.includes(method)).sort());
        // What is declared not implemented is an operation of the v4.0 files, whose answers include 405.
        if (version === '4.0')
          for (const method of declared)
            expect(Object.keys(object(object(object(paths[row.template])[method.toLowerCase()]).responses))).toContain('405');
      }
    },
  );

  it.each(FILES)("v%s %s: each operation's signing and idempotency are the file's, its grant the v4.0 pages'", (version, api) => {
    if (!present) return;
    const doc = openApiDoc(api, version);
    const grants = pageGrants();
    for (const row of VRP_ROUTES.implemented)
      for (const [method, build] of Object.entries(row.methods)) {
        if (method === 'HEAD') continue;
        const operation = object(object(object(doc.paths)[row.template])[method.toLowerCase()]);
        const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []).map((parameter) => resolve(doc, parameter));
        const required = (name: string): boolean => parameters.some((parameter) => parameter.name === name && parameter.required === true);
        const success = Object.entries(object(operation.responses)).find(([status]) => status.startsWith('2'));
        const headers = object(resolve(doc, success?.[1]).headers);
        const label = `${method} ${row.template}`;
        expect(VRP_OPERATIONS[build('id').kind as keyof typeof VRP_OPERATIONS], label).toEqual({
          grant: grants.get(label),
          signedRequest: required('x-jws-signature'),
          signedResponse: object(headers['x-jws-signature']).required === true,
          idempotent: required('x-idempotency-key'),
        });
        // The files name client credentials (TPPOAuth2Security) for every operation, the pages do not: routes.ts says why.
        expect(Object.keys(object((operation.security as unknown[])[0])), label).toEqual(['TPPOAuth2Security']);
        expect(object((operation.security as unknown[])[0]).TPPOAuth2Security, label).toEqual([FAMILIES.vrp.scope]);
      }
  });

  it.each(FILES)("v%s %s: the members the bank reads are the schemas' properties", (version, api) => {
    if (!present) return;
    const doc = openApiDoc(api, version);
    const members = VRP_MEMBERS[version];
    expect(members.consentData).toEqual(props(at(doc, 'OBDomesticVRPConsentRequest', 'Data')));
    expect(members.controlParameters).toEqual(props(at(doc, 'OBDomesticVRPConsentRequest', 'Data', 'ControlParameters')));
    expect(members.periodicLimit).toEqual(props(at(doc, 'OBDomesticVRPConsentRequest', 'Data', 'ControlParameters', 'PeriodicLimits')));
    expect(members.initiation).toEqual(props(at(doc, 'OBDomesticVRPConsentRequest', 'Data', 'Initiation')));
    expect(members.initiation).toEqual(props(at(doc, 'OBDomesticVRPRequest', 'Data', 'Initiation')));
    expect(members.cashAccount).toEqual(props(at(doc, 'OBDomesticVRPConsentRequest', 'Data', 'Initiation', 'DebtorAccount')));
    expect(members.cashAccount).toEqual(props(at(doc, 'OBDomesticVRPConsentRequest', 'Data', 'Initiation', 'CreditorAccount')));
    expect(members.cashAccount).toEqual(props(at(doc, 'OBDomesticVRPRequest', 'Data', 'Instruction', 'CreditorAccount')));
    expect(members.paymentData.slice().sort()).toEqual(props(at(doc, 'OBDomesticVRPRequest', 'Data')).sort());
    expect(members.instruction).toEqual(props(at(doc, 'OBDomesticVRPRequest', 'Data', 'Instruction')));
    expect(members.fundsConfirmationData).toEqual(props(at(doc, 'OBVRPFundsConfirmationRequest', 'Data')));
    expect(members.risk).toEqual(props(at(doc, 'OBDomesticVRPConsentRequest', 'Risk')));
    expect(VRP_VERSIONS[version].accountNameMax).toBe(
      at(doc, 'OBDomesticVRPConsentRequest', 'Data', 'Initiation', 'DebtorAccount', 'Name').maxLength,
    );
  });

  it.each(FILES)("v%s %s: the VRPTypes, methods, interaction types, periods and limits' minimum are the file's", (version, api) => {
    if (!present) return;
    const doc = openApiDoc(api, version);
    const control = (...path: string[]): Doc => at(doc, 'OBDomesticVRPConsentRequest', 'Data', 'ControlParameters', ...path);
    const types = codes(control('VRPType'));
    // v4.0: the bank takes the cVRP file's types; the VRP file's are the rows whose answers are written to it.
    const served =
      api === 'vrp' && version === '4.0'
        ? Object.entries(VRP_TYPES)
            .filter(([, row]) => row.schema === 'vrp')
            .map(([name]) => name)
        : vrpTypesOf(version);
    expect(served).toEqual(types);
    expect(codes(at(doc, 'OBDomesticVRPRequest', 'Data', 'VRPType'))).toEqual(types);
    expect(Object.keys(AUTHENTICATION_METHODS)).toEqual(codes(control('PSUAuthenticationMethods')));
    expect(codes(at(doc, 'OBDomesticVRPRequest', 'Data', 'PSUAuthenticationMethod'))).toEqual(Object.keys(AUTHENTICATION_METHODS));
    expect([...INTERACTION_TYPES]).toEqual(codes(control('PSUInteractionTypes')));
    expect(PERIOD_TYPE_NAMES).toEqual(codes(control('PeriodicLimits', 'PeriodType')));
    expect([...PERIOD_ALIGNMENTS]).toEqual(codes(control('PeriodicLimits', 'PeriodAlignment')));
    const limits = resolve(
      doc,
      object(resolve(doc, at(doc, 'OBDomesticVRPConsentRequest', 'Data', 'ControlParameters').properties as Doc)).PeriodicLimits,
    );
    for (const name of types) expect(VRP_TYPES[name as keyof typeof VRP_TYPES].minimumPeriodicLimits, String(name)).toBe(limits.minItems);
    expect(Object.values(FUNDS_AVAILABLE)).toEqual(
      codes(at(doc, 'OBVRPFundsConfirmationResponse', 'Data', 'FundsAvailableResult', 'FundsAvailable')),
    );
  });

  it.each(FILES)(
    'v%s %s: the status words the bank answers are in the enums; a deleted consent is readable where CANC is',
    (version, api) => {
      if (!present) return;
      const doc = openApiDoc(api, version);
      const consentStatus = codes(at(doc, 'OBDomesticVRPConsentResponse', 'Data', 'Status'));
      const words = PAYMENT_STATUS[version];
      const paymentStatus = codes(at(doc, 'OBDomesticVRPResponse', 'Data', 'Status'));
      const detailStatus = codes(at(doc, 'OBDomesticVRPDetails', 'Data', 'PaymentStatus', 'Status'));
      for (const word of [words.received, words.settled, words.rejected]) expect(paymentStatus).toContain(word);
      for (const word of [words.settled, words.rejected]) expect(detailStatus).toContain(word);
      if (version === '4.0') {
        for (const row of Object.values(CONSENT_STATUS)) expect(consentStatus).toContain(row.code);
        expect(VRP_VERSIONS[version].revokedReadable).toBe(consentStatus.includes(CONSENT_STATUS.Revoked.code));
      } else {
        for (const word of ['AwaitingAuthorisation', 'Authorised', 'Rejected']) expect(consentStatus).toContain(word);
        expect(VRP_VERSIONS[version].revokedReadable).toBe(consentStatus.includes('Revoked'));
      }
      // obl-cvrp-CHANGELOG.md: "Removed CANC from payment Status enum list"; the VRP file still has it.
      expect(paymentStatus.includes('CANC')).toBe(api === 'vrp' && version === '4.0');
    },
  );

  it("the refusal of a payment outside its limits is the files' code: v3.1.11 lists it, the v4.0 code set names U014", () => {
    if (!present) return;
    const v31 = openApiDoc('vrp', '3.1');
    expect(codes(object(object(at(v31, 'OBError1').properties).ErrorCode))).toContain('UK.OBIE.Rules.FailsControlParameters');
    const row = codeSet('internal').find((entry) => entry.set === 'OBExternalStatusReason1Code' && entry.code === 'U014');
    expect(row?.name).toBe('UK.OBIE.Rules.FailsControlParameters');
  });
});
