// The bench's raw peer: a plain undici client over mutual TLS that makes the whole-flow collection's requests in the
// same order (docs/collections.md "The flow"), reading nothing but the Postman environment obflow wrote and checking
// nothing beyond what it needs to go on (status, JSON parse). Run as its own process so its start counts, like newman's.
//
//   node bench/raw-client.js <job.json>
//   job: { mode: 'flow' | 'transactions' | 'plan', environment, cert, key, ca: [pem paths], collection, out? }
//   flow          discovery → … → unsupported, as the whole-flow collection; writes { values, requests } to `out`
//   transactions  every page of every account of `account_ids` with `access_token` (the transactions step)
//   plan          obtains fresh single-use material (consent awaiting authorisation, unexchanged code, access token)
//                 and writes to `out` the whole flow's requests as a Postman collection with no scripts (bench/flow.js)

import { Buffer } from 'node:buffer';
import { URL, URLSearchParams } from 'node:url';
import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { Agent, request } from 'undici';

const job = JSON.parse(await readFile(process.argv[2], 'utf8'));
const envJson = JSON.parse(await readFile(job.environment, 'utf8'));
const env = Object.fromEntries(envJson.values.map((entry) => [entry.key, entry.value]));
const [cert, key, ...ca] = await Promise.all([job.cert, job.key, ...job.ca].map((path) => readFile(path, 'utf8')));
const dispatcher = new Agent({ connect: { cert, key, ca, rejectUnauthorized: true } });
const aisp = `${env.rs}/open-banking/v3.1/aisp`;
const consentBody = await consentBodyOf(job.collection);
let requests = 0;
/** Every request made, for `plan` (method, url, headers, body). */
const log = [];

async function call(method, url, headers, body) {
  requests += 1;
  const sent = { 'x-fapi-interaction-id': randomUUID(), ...headers };
  log.push({ method, url, headers: sent, body });
  const response = await request(url, { method, headers: sent, body, dispatcher, maxRedirections: 0 });
  const text = await response.body.text();
  return { status: response.statusCode, headers: response.headers, text, json: () => JSON.parse(text) };
}

function expect(response, status, what) {
  if (response.status !== status)
    throw new Error(`raw client: ${what} answered ${response.status}, not ${status}: ${response.text.slice(0, 200)}`);
  return response;
}

const ais = (token) => ({ Accept: 'application/json', Authorization: `Bearer ${token}`, 'x-fapi-financial-id': env.obParticipantId });
const form = (fields) => new URLSearchParams(fields).toString();
const tokenHeaders = () => ({
  Accept: 'application/json',
  Authorization: `Basic ${env.basicToken}`,
  'Content-Type': 'application/x-www-form-urlencoded',
});

async function discovery() {
  const config = expect(await call('GET', env.configEndpoint, { Accept: 'application/json' }), 200, 'discovery').json();
  env.authEndpoint = config.authorization_endpoint;
  env.tokenEndpoint = config.token_endpoint;
  env.jwksUri = config.jwks_uri;
}

/** The bank's id_token keys, as the psu-consent step's first request reads them. */
async function jwks() {
  return expect(await call('GET', env.jwksUri, { Accept: 'application/json' }), 200, 'jwks').json();
}

/** The refresh step: the refresh_token grant, then /accounts with the new token. */
async function refresh(refreshToken) {
  const response = await call(
    'POST',
    env.tokenEndpoint,
    tokenHeaders(),
    form({ grant_type: 'refresh_token', refresh_token: refreshToken }),
  );
  return accounts(expect(response, 200, 'refresh').json().access_token);
}

async function clientCredentials() {
  const response = await call('POST', env.tokenEndpoint, tokenHeaders(), form({ grant_type: 'client_credentials', scope: 'accounts' }));
  return expect(response, 200, 'client credentials').json().access_token;
}

async function createConsent(ccToken) {
  const headers = { ...ais(ccToken), 'Content-Type': 'application/json; charset=utf-8' };
  return expect(await call('POST', `${aisp}/account-access-consents`, headers, consentBody), 201, 'consent').json().Data.ConsentId;
}

/** The consent URL exactly as templates/scripts/psu-consent.prerequest.js builds it (same parameters, same order). */
function consentUrl(consentId) {
  const responseType = env.response_type || 'code id_token';
  const loginHint = env.psu_login_hint || '';
  const now = Math.floor(Date.now() / 1000);
  const intent = { value: consentId, essential: true };
  const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const claims = {
    iss: env._clientId,
    aud: env.issuer,
    response_type: responseType,
    client_id: env._clientId,
    redirect_uri: env.redirectUrl,
    scope: 'openid accounts',
    state: randomUUID(),
    nonce: randomUUID(),
    iat: now,
    nbf: now,
    exp: now + 600,
    jti: randomUUID(),
    claims: {
      id_token: {
        openbanking_intent_id: intent,
        acr: { essential: true, values: ['urn:openbanking:psd2:sca', 'urn:openbanking:psd2:ca'] },
      },
      userinfo: { openbanking_intent_id: intent },
    },
  };
  if (loginHint !== '') claims.login_hint = loginHint;
  const params = [
    ['response_type', responseType],
    ['client_id', env._clientId],
    ['redirect_uri', env.redirectUrl],
    ['scope', 'openid accounts'],
    ['state', claims.state],
    ['nonce', claims.nonce],
  ];
  if (loginHint !== '') params.push(['login_hint', loginHint]);
  params.push(['request', `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`]);
  const query = params.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
  return `${env.authEndpoint}${env.authEndpoint.includes('?') ? '&' : '?'}${query}`;
}

async function authorize(consentId) {
  const response = await call('GET', consentUrl(consentId), {});
  if (response.status !== 302 && response.status !== 303) expect(response, 302, 'authorize');
  const location = new URL(String(response.headers.location));
  const params = new URLSearchParams(location.hash.length > 1 ? location.hash.slice(1) : location.search);
  return params.get('code');
}

/** The code exchange's token response (access_token, refresh_token, id_token). */
async function exchangeTokens(code) {
  const response = await call(
    'POST',
    env.tokenEndpoint,
    tokenHeaders(),
    form({ grant_type: 'authorization_code', code, redirect_uri: env.redirectUrl }),
  );
  return expect(response, 200, 'code exchange').json();
}

async function reads(token, ids) {
  for (const id of ids) expect(await call('GET', `${aisp}/accounts/${id}`, ais(token)), 200, 'account').json();
  for (const id of ids) expect(await call('GET', `${aisp}/accounts/${id}/balances`, ais(token)), 200, 'balances').json();
  expect(await call('GET', `${aisp}/balances`, ais(token)), 200, 'all balances').json();
  const transactions = await pages(token, ids);
  for (const path of [
    'transactions',
    'beneficiaries',
    'direct-debits',
    'standing-orders',
    'products',
    'offers',
    'party',
    'scheduled-payments',
    'statements',
  ]) {
    // Endpoints the bank does not implement: 404, no body (OBIE R/W Data API Profile, "HTTP Status Codes").
    expect(await call('GET', `${aisp}/${path}`, ais(token)), 404, path);
  }
  return transactions;
}

/** Every page of every account, following Links.Next as given (AIS v3.1 "Pagination"). */
async function pages(token, ids) {
  let count = 0;
  for (const id of ids) {
    let url = `${aisp}/accounts/${id}/transactions`;
    for (let page = 0; url !== undefined && page < Number(env.max_pages || '1000'); page += 1) {
      const body = expect(await call('GET', url, ais(token)), 200, 'transactions').json();
      count += body.Data.Transaction.length;
      url = body.Links?.Next;
    }
  }
  return count;
}

async function accounts(token) {
  return expect(await call('GET', `${aisp}/accounts`, ais(token)), 200, 'accounts')
    .json()
    .Data.Account.map((account) => account.AccountId);
}

async function flow() {
  await discovery();
  const ccToken = await clientCredentials();
  const consentId = await createConsent(ccToken);
  expect(await call('GET', `${aisp}/account-access-consents/${consentId}`, ais(ccToken)), 200, 'consent read').json();
  await jwks();
  const tokens = await exchangeTokens(await authorize(consentId));
  const token = tokens.access_token;
  const ids = await accounts(token);
  const transactions = await reads(token, ids);
  if (typeof tokens.refresh_token === 'string') await refresh(tokens.refresh_token);
  return { access_token: token, account_ids: JSON.stringify(ids), transactions };
}

/**
 * The whole flow's requests with every single-use value fresh, so a collection without scripts can replay them and
 * get the answers the scripted flow gets: a consent still awaiting authorisation for the authorize call, a code not
 * yet exchanged for the code exchange, and an access token (of a third consent) for the reads.
 */
async function plan() {
  await discovery();
  const ccToken = await clientCredentials();
  const readTokens = await exchangeTokens(await authorize(await createConsent(ccToken)));
  const readToken = readTokens.access_token;
  const unexchanged = await authorize(await createConsent(ccToken));
  const awaiting = await createConsent(ccToken);
  const ids = await accounts(readToken);
  log.length = 0;
  await reads(readToken, ids);
  const readRequests = [...log];
  log.length = 0;
  if (typeof readTokens.refresh_token === 'string') await refresh(readTokens.refresh_token);
  const refreshRequests = [...log];
  log.length = 0;
  await jwks();
  const jwksRequest = log[0];
  log.length = 0;
  await discovery();
  await clientCredentials();
  await createConsent(ccToken);
  await call('GET', `${aisp}/account-access-consents/${awaiting}`, ais(ccToken)).catch(() => undefined);
  // The replayed requests: the calls above as made, then the consent URL and code exchange unsent, then the reads.
  const head = log.slice(0, 4);
  const consent = { method: 'GET', url: consentUrl(awaiting), headers: { 'x-fapi-interaction-id': randomUUID() } };
  const code = {
    method: 'POST',
    url: env.tokenEndpoint,
    headers: { 'x-fapi-interaction-id': randomUUID(), ...tokenHeaders() },
    body: form({ grant_type: 'authorization_code', code: unexchanged, redirect_uri: env.redirectUrl }),
  };
  const list = [
    ...head,
    jwksRequest,
    consent,
    code,
    { method: 'GET', url: `${aisp}/accounts`, headers: { 'x-fapi-interaction-id': randomUUID(), ...ais(readToken) } },
    ...readRequests,
    ...refreshRequests,
  ];
  return {
    info: {
      name: 'obflow whole flow, scripts removed (bench)',
      schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json',
    },
    item: list.map((entry, index) => ({
      name: `${index + 1} ${entry.method} ${new URL(entry.url).pathname}`,
      request: {
        method: entry.method,
        url: entry.url,
        header: Object.entries(entry.headers).map(([name, value]) => ({ key: name, value })),
        ...(entry.body === undefined ? {} : { body: { mode: 'raw', raw: entry.body } }),
      },
      ...(entry === consent ? { protocolProfileBehavior: { followRedirects: false } } : {}),
    })),
  };
}

/** The consent request body exactly as the collection sends it. */
async function consentBodyOf(collectionPath) {
  const collection = JSON.parse(await readFile(collectionPath, 'utf8'));
  const find = (items) => {
    for (const item of items ?? []) {
      if (item.request?.method === 'POST' && String(item.request.url?.raw ?? '').endsWith('/account-access-consents'))
        return item.request.body.raw;
      const found = find(item.item);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const body = find(collection.item);
  if (body === undefined) throw new Error('raw client: no consent request in the collection');
  return body;
}

let output;
if (job.mode === 'flow') output = { values: await flow(), requests };
else if (job.mode === 'transactions') output = { transactions: await pages(env.access_token, JSON.parse(env.account_ids)), requests };
else if (job.mode === 'plan') output = await plan();
else throw new Error(`raw client: unknown mode ${job.mode}`);
if (job.out !== undefined) await writeFile(job.out, JSON.stringify(output));
await dispatcher.close();
