// Ties the emulator's v4.0 tables to the official material: each code mapping (src/sandbox/resource/
// v4-codes.ts) to the v3.1.11 and v4.0 OpenAPI enums and the OB Internal / ISO External code sets, each v4.0 refusal
// (refusals.ts) to a code of its status's HTTP category, the v4.0 route table to the v4.0 file's paths, and the
// emulator's version list to the TPP side's. Skips, saying why, without ../shared/specs.

import { readFileSync } from 'node:fs';

import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

import { API_VERSIONS } from '../../src/generate/api-versions.js';
import { AIS_API_VERSIONS } from '../../src/sandbox/contracts.js';
import { ObieError } from '../../src/sandbox/http/errors.js';
import { AisRefusal, REFUSALS, toV4Error } from '../../src/sandbox/resource/refusals.js';
import { IMPLEMENTED_ROUTES, UNIMPLEMENTED_PATHS } from '../../src/sandbox/resource/routes.js';
import {
  ACCOUNT_CATEGORY,
  ACCOUNT_TYPE_CODE,
  BALANCE_TYPE,
  CONSENT_STATUS,
  ENTRY_STATUS,
  ERROR_CODE,
} from '../../src/sandbox/resource/v4-codes.js';
import { codeSet, inHttpCategory, statusReason } from '../helpers/obie-v4.js';
import { describeWith, obieSpecs, obieV4Specs, SPEC_FILES, specPath } from '../helpers/prerequisites.js';

type Schemas = Record<string, { enum?: string[]; properties?: Record<string, { enum?: string[] }> }>;
const schemasOf = (file: string): Schemas =>
  (parse(readFileSync(specPath(file), 'utf8')) as { components: { schemas: Schemas } }).components.schemas;
const enumOf = (schemas: Schemas, name: string): string[] => {
  const values = schemas[name]?.enum;
  if (values === undefined) throw new Error(`no enum ${name}`);
  return values;
};
/** The code set entry (set, code), or undefined. */
const entry = (file: 'internal' | 'iso', set: string, code: string) => codeSet(file).find((row) => row.set === set && row.code === code);

it('the emulator serves the versions the TPP side names (twin lists)', () => {
  expect([...AIS_API_VERSIONS]).toEqual([...API_VERSIONS]);
});

describe('refusals as data', () => {
  it('a v4.0 refusal whose code is of another category than its status is an emulator bug, not an answer', () => {
    expect(() => toV4Error(ObieError.of(403, 'UK.OBIE.Field.Invalid', 'x'))).toThrow(TypeError);
    expect(() => toV4Error(ObieError.of(400, 'UK.OBIE.Rules.AfterCutOffDateTime', 'x'))).toThrow(TypeError);
    expect(toV4Error(ObieError.of(400, 'UK.OBIE.Field.Invalid', 'x')).errors[0]?.ErrorCode).toBe('U002');
  });

  it.each(Object.keys(REFUSALS) as (keyof typeof REFUSALS)[])('%s: translates on v4.0 to a code of its category', (kind) => {
    const refusal = toV4Error(new AisRefusal(kind, '4.0', 'why'));
    expect(refusal.status).toBe(REFUSALS[kind]['4.0'].status);
    for (const error of refusal.errors) {
      const row = Object.values(ERROR_CODE).find((candidate) => candidate.code === error.ErrorCode);
      expect(row && inHttpCategory(refusal.status, row.category), `${kind} ${error.ErrorCode}`).toBe(true);
    }
  });
});

describeWith(obieV4Specs, 'v4.0 tables against the code sets and the v4.0 OpenAPI file', () => {
  // Read when the tests run, not when they are collected: without ../shared/specs the block is skipped, never an ENOENT.
  let v4: Schemas;
  beforeAll(() => {
    v4 = schemasOf(SPEC_FILES.obie40);
  });

  it('ERROR_CODE: each v3.1 name is its OBExternalStatusReason1Code code name, with the code set HTTP category', () => {
    for (const [name, row] of Object.entries(ERROR_CODE)) {
      const found = statusReason(row.code);
      expect(found, row.code).toBeDefined();
      expect(found?.name, row.code).toBe(name);
      expect(found?.category, row.code).toBe(row.category);
    }
  });

  it('BALANCE_TYPE and ENTRY_STATUS: ISO 20022 codes whose code names are the v3.1 names, in the v4.0 enums', () => {
    for (const [name, code] of Object.entries(BALANCE_TYPE)) {
      expect(entry('iso', 'ExternalBalanceType1Code', code)?.name, code).toBe(name);
      expect(enumOf(v4, 'OBBalanceType1Code')).toContain(code);
    }
    for (const [name, code] of Object.entries(ENTRY_STATUS)) {
      expect(entry('iso', 'ExternalEntryStatus1Code', code)?.name, code).toBe(name);
      expect(enumOf(v4, 'ExternalEntryStatus1Code')).toContain(code);
    }
  });

  it('ACCOUNT_CATEGORY and ACCOUNT_TYPE_CODE: OB Internal codes in the v4.0 enums', () => {
    for (const code of Object.values(ACCOUNT_CATEGORY)) {
      expect(entry('internal', 'OBInternalAccountType1Code', code), code).toBeDefined();
      expect(enumOf(v4, 'OBInternalAccountType1Code')).toContain(code);
    }
    for (const code of Object.values(ACCOUNT_TYPE_CODE)) {
      expect(entry('internal', 'OBExternalCashAccountType1Code', code), code).toBeDefined();
      expect(enumOf(v4, 'OBExternalAccountSubType1Code')).toContain(code);
    }
  });

  it('CONSENT_STATUS: OBInternalConsentStatus1Code codes in the v4.0 Status enum; each StatusReason a code set code', () => {
    const statuses = v4.OBReadConsentResponse1 as unknown as { properties: { Data: { properties: { Status: { enum: string[] } } } } };
    for (const row of Object.values(CONSENT_STATUS)) {
      expect(entry('internal', 'OBInternalConsentStatus1Code', row.code), row.code).toBeDefined();
      expect(statuses.properties.Data.properties.Status.enum).toContain(row.code);
      if (row.reason !== undefined) expect(statusReason(row.reason.code)?.name, row.reason.code).toBe(row.reason.name);
    }
  });

  it('the v4.0 file has the paths and methods of the route tables (implemented or not)', () => {
    const doc = parse(readFileSync(specPath(SPEC_FILES.obie40), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths).sort()).toEqual([...IMPLEMENTED_ROUTES.map((row) => row.template), ...UNIMPLEMENTED_PATHS].sort());
    for (const row of IMPLEMENTED_ROUTES) {
      const methods = Object.keys(doc.paths[row.template] ?? {})
        .filter((key) => ['get', 'post', 'put', 'patch', 'delete'].includes(key))
        .map((key) => key.toUpperCase());
      expect(
        Object.keys(row.methods)
          .filter((method) => method !== 'HEAD')
          .sort(),
        row.template,
      ).toEqual(methods.sort());
    }
  });
});

describeWith(obieSpecs, 'v4.0 tables against the v3.1.11 enums', () => {
  let v31: Schemas;
  beforeAll(() => {
    v31 = schemasOf(SPEC_FILES.obie3111);
  });
  it('every left side is a v3.1 enum value', () => {
    for (const name of Object.keys(BALANCE_TYPE)) expect(enumOf(v31, 'OBBalanceType1Code')).toContain(name);
    for (const name of Object.keys(ENTRY_STATUS)) expect(enumOf(v31, 'OBEntryStatus1Code')).toContain(name);
    for (const name of Object.keys(ACCOUNT_CATEGORY)) expect(enumOf(v31, 'OBExternalAccountType1Code')).toContain(name);
    for (const name of Object.keys(ACCOUNT_TYPE_CODE)) expect(enumOf(v31, 'OBExternalAccountSubType1Code')).toContain(name);
  });
});
