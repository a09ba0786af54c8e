// Reading back the environment obflow saved (`obflow environment`, then chained by each `obflow run`): the file may be
// missing, hand-edited or truncated, so its shape is checked before a run trusts it (Postman v2.1 environment:
// `values` an array of {key: string, value: string, type?, enabled?}).

import { readFile } from 'node:fs/promises';
import { ObflowError } from '../errors.js';
import { environmentIdOf, isSecretKey, sortValues, type PostmanEnvironment, type PostmanEnvironmentValue } from './merge.js';

const REGENERATE = 'Run `obflow environment` again to rewrite it.';

function unreadable(path: string, what: string, cause?: unknown): ObflowError {
  return new ObflowError('ERR_FILE_UNREADABLE', `the environment ${path} ${what}`, {
    hint: REGENERATE,
    ...(cause !== undefined ? { cause } : {}),
  });
}

/** Pure: the text of a saved environment → a typed environment, or ERR_FILE_UNREADABLE naming the first bad part.
 *  Disabled entries are dropped (newman would still substitute them); secret-ness is kept and re-derived by name. */
export function parseSavedEnvironment(text: string, path: string): PostmanEnvironment {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw unreadable(path, 'is not JSON', cause);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw unreadable(path, 'is not a Postman environment (an object with `values`)');
  const file = json as { id?: unknown; name?: unknown; values?: unknown };
  if (!Array.isArray(file.values)) throw unreadable(path, 'has no `values` array');
  const values: PostmanEnvironmentValue[] = [];
  for (const [index, entry] of (file.values as unknown[]).entries()) {
    const where = `values[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw unreadable(path, `has ${where} that is not an object`);
    const { key, value, type, enabled, disabled } = entry as {
      key?: unknown;
      value?: unknown;
      type?: unknown;
      enabled?: unknown;
      disabled?: unknown;
    };
    if (typeof key !== 'string' || key === '') throw unreadable(path, `has ${where}.key that is not a non-empty string`);
    if (typeof value !== 'string') throw unreadable(path, `has ${where}.value (${key}) that is not a string`);
    if (enabled === false || disabled === true) continue;
    values.push({ key, value, type: type === 'secret' || isSecretKey(key) ? 'secret' : 'default', enabled: true });
  }
  sortValues(values);
  const name = typeof file.name === 'string' ? file.name : 'obflow';
  return { id: typeof file.id === 'string' ? file.id : environmentIdOf(name), name, values, _postman_variable_scope: 'environment' };
}

/** Reads a saved environment: missing → ERR_FILE_MISSING ("run `obflow environment` first"), unreadable or
 *  malformed → ERR_FILE_UNREADABLE. */
export async function readSavedEnvironment(path: string): Promise<PostmanEnvironment> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new ObflowError('ERR_FILE_MISSING', `no environment at ${path}`, { hint: 'Run `obflow environment` first.', cause });
    }
    throw unreadable(path, `cannot be read (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, cause);
  }
  return parseSavedEnvironment(text, path);
}
