// Judges the emulator's AIS v4.0 answers by the official material (../shared/specs, see prerequisites.ts): the body
// against the v4.0 OpenAPI file (obie-schemas.ts, version '4.0': a status documented without a body must come with
// none), and each OBError1.ErrorCode against the OB Internal code set — an OBExternalStatusReason1Code value whose
// HTTP Status Category matches the answer's status. Without the files the test goes on and is reported as skipped
// at its end (presentOrSkipAtTheEnd), as the v3.1 checks are.

import { readFileSync } from 'node:fs';

import { csvRows } from '../../src/generate/schemas.js';
import { validateResponse } from './obie-schemas.js';
import { obieV4Specs, presentOrSkipAtTheEnd, SPEC_FILES, specPath } from './prerequisites.js';

export interface CodeSetEntry {
  set: string;
  code: string;
  name: string;
  /** HTTP Status Category ("400", "403", "5xx"), where the code set gives one. */
  category: string;
}

const loaded = new Map<string, CodeSetEntry[]>();

/** Every entry of a code set file (`internal`: OB Internal, `iso`: ISO External), trimmed. */
export function codeSet(file: 'internal' | 'iso'): CodeSetEntry[] {
  let entries = loaded.get(file);
  if (entries === undefined) {
    const text = readFileSync(specPath(file === 'internal' ? SPEC_FILES.codesetInternal : SPEC_FILES.codesetIso), 'utf8');
    entries = csvRows(text)
      .filter((row) => (row[0] ?? '').trim() !== '' && (row[1] ?? '').trim() !== '')
      .map((row) => ({
        set: (row[0] ?? '').trim(),
        code: (row[1] ?? '').trim(),
        name: (row[2] ?? '').trim(),
        category: file === 'internal' ? (row[4] ?? '').trim() : '',
      }));
    loaded.set(file, entries);
  }
  return entries;
}

/** The OBExternalStatusReason1Code entry of a code value, if the code set has it. */
export function statusReason(code: string): CodeSetEntry | undefined {
  return codeSet('internal').find((entry) => entry.set === 'OBExternalStatusReason1Code' && entry.code === code);
}

/** Does `status` fall in a code set category ("400", "403", "5xx")? */
export function inHttpCategory(status: number, category: string): boolean {
  return /^\dxx$/.test(category) ? String(status)[0] === category[0] : String(status) === category;
}

/**
 * Every problem of a v4.0 answer: `text` is the raw body ('' for none). Empty when the answer is what the v4.0 file
 * documents for (method, path template, status) and every ErrorCode is a code of the category of the status — or
 * when the files are missing (then the test is reported as skipped at its end).
 */
export function v4Problems(method: string, pathTemplate: string, status: number, text: string): string[] {
  if (!presentOrSkipAtTheEnd(obieV4Specs)) return [];
  const where = `v4.0 ${method} ${pathTemplate} ${status}`;
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    return [`${where}: the body is not JSON`];
  }
  const result = validateResponse('4.0', method, pathTemplate, status, body);
  const problems = result.valid ? [] : [`${where}: ${result.errors.join('; ')}`];
  const errors = (body as { Errors?: { ErrorCode?: unknown }[] } | undefined)?.Errors;
  for (const error of Array.isArray(errors) ? errors : []) {
    const code = String(error.ErrorCode);
    const entry = statusReason(code);
    if (entry === undefined) problems.push(`${where}: ErrorCode ${code} is not in OBExternalStatusReason1Code`);
    else if (!inHttpCategory(status, entry.category))
      problems.push(`${where}: ErrorCode ${code} (${entry.name}) has HTTP category ${entry.category || 'none'}, not ${status}`);
  }
  return problems;
}
