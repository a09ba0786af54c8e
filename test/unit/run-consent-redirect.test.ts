// Reading the PSU's redirect (shared by the browser and manual consent drivers) and the manual consent step.

import { describe, expect, it } from 'vitest';
import type { PostmanEnvironment } from '../../src/environment/merge.js';
import { manualConsentStep } from '../../src/run/consent/manual.js';
import { readConsentRedirect } from '../../src/run/consent/redirect.js';
import { codeOf } from '../helpers/errors.js';

const REDIRECT = 'https://tpp.example/callback';
describe('readConsentRedirect', () => {
  it('reads code and id_token from the fragment, code from the query', () => {
    expect(readConsentRedirect(`${REDIRECT}#code=c1&id_token=t1&state=s1`, { redirectUri: REDIRECT, state: 's1' })).toEqual({
      code: 'c1',
      idToken: 't1',
      state: 's1',
    });
    expect(readConsentRedirect(` ${REDIRECT}?code=c2&state=s1 `, { redirectUri: REDIRECT, state: 's1' })).toEqual({
      code: 'c2',
      state: 's1',
    });
  });

  it('refuses what is not the redirect, an error, another state, no code', () => {
    expect(codeOf(() => readConsentRedirect('not a url', { redirectUri: REDIRECT }))).toBe('ERR_USAGE');
    expect(codeOf(() => readConsentRedirect('https://evil.example/callback?code=c', { redirectUri: REDIRECT }))).toBe('ERR_USAGE');
    expect(codeOf(() => readConsentRedirect(`${REDIRECT}/other?code=c`, { redirectUri: REDIRECT }))).toBe('ERR_USAGE');
    expect(codeOf(() => readConsentRedirect(`${REDIRECT}#error=access_denied&state=s1`, { redirectUri: REDIRECT, state: 's1' }))).toBe(
      'ERR_CONSENT_REJECTED',
    );
    expect(codeOf(() => readConsentRedirect(`${REDIRECT}#code=c&state=other`, { redirectUri: REDIRECT, state: 's1' }))).toBe(
      'ERR_REMOTE_RESPONSE',
    );
    expect(codeOf(() => readConsentRedirect(`${REDIRECT}#state=s1`, { redirectUri: REDIRECT, state: 's1' }))).toBe('ERR_REMOTE_RESPONSE');
  });
});

describe('manualConsentStep', () => {
  const environment: PostmanEnvironment = {
    id: 'e',
    name: 'e',
    _postman_variable_scope: 'environment',
    values: [
      { key: 'consent_url', value: 'https://bank.example/authorize?probe', type: 'default', enabled: true },
      { key: 'psu_consent_url', value: 'https://bank.example/authorize?psu', type: 'default', enabled: true },
      { key: 'redirectUrl', value: REDIRECT, type: 'default', enabled: true },
      { key: 'state', value: 's1', type: 'default', enabled: true },
    ],
  };

  it('shows the PSU their own consent URL and writes what the pasted redirect carries', async () => {
    const shown: string[] = [];
    const step = manualConsentStep({ ask: async (url) => (shown.push(url), `${REDIRECT}#code=c9&id_token=t9&state=s1`) });
    if (!('local' in step)) throw new TypeError('a local step');
    expect(await step.local(environment)).toEqual({ auth_code: 'c9', id_token: 't9' });
    expect(shown).toEqual(['https://bank.example/authorize?psu']);
  });

  it('a hand-edited redirectUrl that is not a URL: a coded error naming what to redo', async () => {
    const broken = {
      ...environment,
      values: environment.values.map((entry) => (entry.key === 'redirectUrl' ? { ...entry, value: 'callback' } : entry)),
    };
    const step = manualConsentStep({ ask: async () => `${REDIRECT}#code=c&state=s1` });
    if (!('local' in step)) throw new TypeError('a local step');
    await expect(step.local(broken)).rejects.toMatchObject({ code: 'ERR_FILE_UNREADABLE' });
  });

  it('no answer is a usage error', async () => {
    const step = manualConsentStep({ ask: async () => undefined });
    if (!('local' in step)) throw new TypeError('a local step');
    await expect(step.local(environment)).rejects.toMatchObject({ code: 'ERR_USAGE' });
  });
});
