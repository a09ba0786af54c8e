// One max_pages default (src/generate/flow-defaults.ts DEFAULT_MAX_PAGES): the config's flow.maxPages, the variable
// contract's max_pages and the transactions script's fallback (a Postman user's environment without max_pages).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { configSchema } from '../../src/config/schema.js';
import { DEFAULT_MAX_PAGES, ENVIRONMENT_VARIABLES } from '../../src/generate/variables.js';
import { REPO_ROOT } from '../helpers/prerequisites.js';

describe('the max_pages default', () => {
  it('is 200 pages per account', () => {
    expect(DEFAULT_MAX_PAGES).toBe(200);
  });

  it('is the config default, the contract default and the script fallback alike', () => {
    expect(configSchema.parse({}).flow.maxPages).toBe(DEFAULT_MAX_PAGES);
    expect(ENVIRONMENT_VARIABLES.find((spec) => spec.key === 'max_pages')?.default).toBe(String(DEFAULT_MAX_PAGES));
    const script = readFileSync(join(REPO_ROOT, 'templates', 'scripts', 'transactions.test.js'), 'utf8');
    const fallbacks = [...script.matchAll(/env\.get\('max_pages'\) \|\| '(\d+)'/g)].map((match) => Number(match[1]));
    expect(fallbacks).toEqual([DEFAULT_MAX_PAGES]);
  });
});
