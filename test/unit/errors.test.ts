// The closed set of error codes and docs/errors.md stay in sync: every code documented once with its exit class.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, EXIT_CODES, ObflowError } from '../../src/errors.js';

const rows = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('| ERR_'))
  .map((line) => line.split('|').map((cell) => cell.trim()));

describe('error codes', () => {
  it('documents every code exactly once, with its exit code, cause and fix', () => {
    const documented = rows.map((cells) => cells[1]);
    expect([...documented].sort()).toEqual(Object.keys(ERROR_CODES).sort());
    for (const cells of rows) {
      const code = cells[1] as keyof typeof ERROR_CODES;
      expect(cells[2], code).toBe(String(EXIT_CODES[ERROR_CODES[code]]));
      expect(cells[3]?.length, `${code} cause`).toBeGreaterThan(10);
      expect(cells[4]?.length, `${code} fix`).toBeGreaterThan(10);
    }
  });

  it('carries code, hint and cause', () => {
    const cause = new Error('root');
    const error = new ObflowError('ERR_CERT_EXPIRED', 'expired', { hint: 'renew', cause });
    expect([error.code, error.hint, error.cause, error.exitClass]).toEqual(['ERR_CERT_EXPIRED', 'renew', cause, 'checks']);
  });
});
