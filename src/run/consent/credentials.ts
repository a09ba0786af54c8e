// The PSU's credentials for a consent script at a real bank: from the environment (OBFLOW_PSU_USERNAME /
// OBFLOW_PSU_PASSWORD, or the names flow.browser.credentials gives) or a secret JSON file — never from the config file,
// which has no place for them (docs/pipeline.md, "Scripted consent").

import { readFile } from 'node:fs/promises';
import { ObflowError } from '../../errors.js';
import type { CredentialName } from './script.js';

export interface CredentialSource {
  usernameEnv: string;
  passwordEnv: string;
  /** `{ "username": "…", "password": "…" }`, read only for what the environment does not hold. */
  file?: string | undefined;
}

export async function readPsuCredentials(
  needed: readonly CredentialName[],
  source: CredentialSource,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Partial<Record<CredentialName, string>>> {
  const variable: Record<CredentialName, string> = { username: source.usernameEnv, password: source.passwordEnv };
  const found: Partial<Record<CredentialName, string>> = {};
  let file: Partial<Record<CredentialName, string>> | undefined;
  for (const name of needed) {
    const fromEnv = env[variable[name]];
    if (fromEnv !== undefined && fromEnv !== '') {
      found[name] = fromEnv;
      continue;
    }
    if (source.file !== undefined) file ??= await readSecretFile(source.file);
    const fromFile = file?.[name];
    if (fromFile === undefined || fromFile === '') {
      throw new ObflowError(
        'ERR_PSU_CREDENTIALS',
        `the consent script types the PSU's ${name}, but ${variable[name]} is unset${source.file === undefined ? '' : ` and ${source.file} has no "${name}"`}`,
        {
          hint: `Export ${variable[name]}, or put it in the secret file flow.browser.credentials.file (never in the config file).`,
        },
      );
    }
    found[name] = fromFile;
  }
  return found;
}

async function readSecretFile(path: string): Promise<Partial<Record<CredentialName, string>>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch (cause) {
    throw new ObflowError('ERR_PSU_CREDENTIALS', `the PSU credentials file ${path} cannot be read as JSON`, {
      hint: 'Point flow.browser.credentials.file at a JSON file { "username": "…", "password": "…" } (mode 0600).',
      cause,
    });
  }
  const object = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  const extra = object === undefined ? [] : Object.keys(object).filter((key) => key !== 'username' && key !== 'password');
  if (object === undefined || extra.length > 0 || Object.values(object).some((value) => typeof value !== 'string')) {
    // Not the credentials file (e.g. the config file itself): its keys are named, never its values.
    throw new ObflowError(
      'ERR_PSU_CREDENTIALS',
      `the PSU credentials file ${path} must hold only "username" and "password" strings${extra.length > 0 ? ` (it has ${extra.slice(0, 3).join(', ')})` : ''}`,
      {
        hint: 'Use a separate secret file { "username": "…", "password": "…" }, not the config file.',
      },
    );
  }
  return object as Partial<Record<CredentialName, string>>;
}
