// The request target handlers read (contracts.ts RequestTarget): serve.ts shares one parsed target between the
// requests for the same resource-origin target, so the type offers nothing that changes it. Held by
// `npm run typecheck`: each line below must stay a type error.

import { describe, expect, it } from 'vitest';

import type { RequestTarget } from '../../src/sandbox/contracts.js';

describe('a request target cannot be changed by a handler', () => {
  it('has no setter and its search parameters no mutator (type errors, checked by tsc)', () => {
    const target: RequestTarget = new URL('https://resource.invalid/open-banking/v3.1/aisp/accounts?page=2');
    const change = (): void => {
      // @ts-expect-error the path is read-only
      target.pathname = '/other';
      // @ts-expect-error the query is read-only
      target.search = '?page=3';
      // @ts-expect-error no set
      target.searchParams.set('page', '3');
      // @ts-expect-error no append
      target.searchParams.append('page', '3');
      // @ts-expect-error no delete
      target.searchParams.delete('page');
      // @ts-expect-error no sort
      target.searchParams.sort();
    };
    expect(typeof change).toBe('function');
    expect([target.pathname, target.searchParams.get('page')]).toEqual(['/open-banking/v3.1/aisp/accounts', '2']);
  });
});
