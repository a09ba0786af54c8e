// Ties the emulator's own route table (src/sandbox/resource/routes.ts) to the OBIE Account and Transaction API
// OpenAPI files: every path and method of v3.1.1 and v3.1.11 is either an implemented operation or listed as an
// endpoint this bank does not implement (404, OBIE R/W Data API Profile "HTTP Status Codes"), and the tables name no
// path the standard lacks. The emulator never reads the files itself; this test skips (saying why) without them.

import { readFileSync } from 'node:fs';

import { expect, it } from 'vitest';
import { parse } from 'yaml';

import { describeWith, obieSpecs, SPEC_FILES as FILES, specPath } from '../helpers/prerequisites.js';
import { AISP_BASE_PATH, IMPLEMENTED_ROUTES, UNIMPLEMENTED_PATHS, matchRoute } from '../../src/sandbox/resource/routes.js';

const SPEC_FILES = [FILES.obie311, FILES.obie3111] as const;
const present = obieSpecs.missing === undefined;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** path template → methods (upper case) the OpenAPI file defines for it. */
function specPaths(file: string): Map<string, string[]> {
  const doc = parse(readFileSync(specPath(file), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  return new Map(
    Object.entries(doc.paths).map(([path, item]) => [
      path,
      METHODS.filter((method) => item[method] !== undefined).map((method) => method.toUpperCase()),
    ]),
  );
}

/** A concrete request path for a template: each `{Parameter}` becomes a plausible id. */
const concrete = (template: string): string => `${AISP_BASE_PATH}${template.replace(/\{(\w+)\}/g, (_, name: string) => `${name}-1`)}`;

describeWith(obieSpecs, 'route table against the OBIE v3.1.1 and v3.1.11 OpenAPI files', () => {
  const union = new Map<string, Set<string>>();
  if (present) {
    for (const file of SPEC_FILES) {
      for (const [path, methods] of specPaths(file)) union.set(path, new Set([...(union.get(path) ?? []), ...methods]));
    }
  }
  const implemented = new Set(IMPLEMENTED_ROUTES.map((row) => row.template));

  it('lists every path of the standard exactly once, as implemented or not implemented', () => {
    expect([...union.keys()].sort()).toEqual([...implemented, ...UNIMPLEMENTED_PATHS].sort());
    expect(new Set(UNIMPLEMENTED_PATHS).size).toBe(UNIMPLEMENTED_PATHS.length);
    for (const path of UNIMPLEMENTED_PATHS) expect(implemented.has(path), path).toBe(false);
  });

  it('implements exactly the standard methods of an implemented path (GET also answers HEAD)', () => {
    for (const row of IMPLEMENTED_ROUTES) {
      const methods = Object.keys(row.methods).filter((method) => method !== 'HEAD');
      expect(methods.sort(), row.template).toEqual([...(union.get(row.template) ?? [])].sort());
    }
  });

  it.each([...union.entries()].map(([path, methods]) => [path, [...methods]] as const))(
    '%s is matched as the table says',
    (template, methods) => {
      for (const method of methods) {
        const match = matchRoute(method, concrete(template));
        expect(match.outcome, `${method} ${template}`).toBe(implemented.has(template) ? 'route' : 'not-implemented');
      }
    },
  );
});
