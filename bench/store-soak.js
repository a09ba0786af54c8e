// `node bench/store-soak.js [--dist <folder>]`: the emulator's store under a long-lived CI sandbox's load
// (docs/sandbox.md, "State"). Two sandboxes side by side in one run, on the compiled code in dist/ (or another build's dist, to compare
// before and after): one on an empty data folder, one on a folder holding 20,000 tokens and 3,000 clients (written in
// the earlier one-JSON-file-per-collection format, which every build reads: the current one migrates it on start).
//
//  token         client_credentials p50, full store  vs  empty store            target ≤ 1.5×
//  registration  DCR POST p50, full store            vs  empty store            target ≤ 1.5×
//  reads         p99 of unrelated reads (discovery) while 4 writers mint tokens, full store  vs  empty store   ≤ 2×
//  start         the sandbox's start (the whole file checked: docs/sandbox.md), full store  vs  empty store   information
//
// Every target is a ratio measured in the same run (the machine may be shared); absolute times are printed beside.
// Prints a table and exits 1 if a target is missed.

import { Buffer } from 'node:buffer';
import { fork } from 'node:child_process';
import { createHash, createPrivateKey, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

import { Agent, request } from 'undici';

const distFlag = process.argv.indexOf('--dist');
const dist = resolve(distFlag > 0 ? process.argv[distFlag + 1] : join(import.meta.dirname, '..', 'dist'));

// Each sandbox runs in its own process, as a CI sandbox does: the load generator's TLS work is not on its event loop.
if (process.argv[2] === '--serve') {
  const { startSandbox } = await import(join(dist, 'sandbox', 'index.js'));
  const started = performance.now();
  const handle = await startSandbox(JSON.parse(await readFile(process.argv[3], 'utf8')));
  process.send({ urls: handle.urls, startMs: performance.now() - started });
  process.on('message', async () => {
    await handle.close();
    process.exit(0);
  });
  // The bench died (an error before it closed us): no sandbox outlives it.
  process.on('disconnect', () => process.exit(0));
  await new Promise(() => undefined);
}

const { issueLocalIdentity } = await import(join(dist, 'pki', 'issue.js'));
const { buildRegistrationClaims } = await import(join(dist, 'registration', 'claims.js'));
const { signRegistration } = await import(join(dist, 'registration', 'sign.js'));

const TOKENS = 20_000;
const CLIENTS = 3_000;
const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 60);
const READS = Number(process.env.SOAK_READS ?? 300);
const PROFILE = 'strict-headless';

const work = await mkdtemp(join(tmpdir(), 'obflow-store-soak-'));
const manifest = await issueLocalIdentity({ dir: join(work, 'identity') });
const text = (name) => readFile(join(work, 'identity', manifest.files[name]), 'utf8');
const identity = {
  serverCertificate: await text('server_certificate'),
  serverKey: await text('server_key'),
  ca: [await text('directory_root_ca'), await text('directory_issuing_ca')],
  directoryJwks: JSON.parse(await text('directory_jwks')),
  transportCert: await text('transport_certificate'),
  transportKey: await text('transport_key'),
  signingKey: createPrivateKey(await text('signing_key')),
  statement: (await text('software_statement')).trim(),
};

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))];
const hash = (value) => createHash('sha256').update(value).digest('base64url');

/** A data folder in the earlier format: clients.json and tokens.json, one JSON object each. */
async function filledFolder() {
  const dataDir = await mkdtemp(join(tmpdir(), 'obflow-store-soak-full-'));
  const now = Date.now();
  const clients = {};
  const clientIds = [];
  for (let i = 0; i < CLIENTS; i++) {
    const clientId = randomUUID();
    clientIds.push(clientId);
    const metadata = {
      client_id: clientId,
      client_id_issued_at: Math.floor(now / 1000),
      client_secret_expires_at: 0,
      redirect_uris: ['https://tpp.example/callback'],
      token_endpoint_auth_method: 'client_secret_basic',
      grant_types: ['authorization_code', 'client_credentials', 'refresh_token'],
      response_types: ['code', 'code id_token'],
      scope: 'openid accounts',
      software_statement: identity.statement,
    };
    clients[clientId] = {
      clientId,
      profile: PROFILE,
      softwareId: `software-${i}`,
      orgId: 'org-soak',
      redirectUris: ['https://tpp.example/callback'],
      certificateThumbprints: [hash(`thumb-${i}`)],
      clientSecret: randomBytes(32).toString('base64url'),
      clientIdIssuedAt: Math.floor(now / 1000),
      clientName: `Soak TPP ${i}`,
      scopes: ['openid', 'accounts'],
      grantTypes: metadata.grant_types,
      responseTypes: metadata.response_types,
      requestObjectSigningAlg: 'none',
      softwareJwks: identity.directoryJwks,
      metadata,
    };
  }
  const tokens = {};
  for (let i = 0; i < TOKENS; i++) {
    const refresh = i % 2 === 1;
    tokens[hash(`soak-token-${i}`)] = {
      kind: refresh ? 'refresh' : 'access',
      clientId: clientIds[i % CLIENTS],
      profile: PROFILE,
      grant: 'authorization_code',
      scopes: ['openid', 'accounts'],
      consentId: randomUUID(),
      certificateThumbprint: hash(`thumb-${i % CLIENTS}`),
      codeHash: hash(`soak-code-${Math.floor(i / 2)}`),
      // Refresh tokens live 90 days, access tokens 1 hour: every one is still live, nothing is pruned at start.
      expiresAt: new Date(now + (refresh ? 90 * 86_400_000 : 3_600_000)).toISOString(),
      revoked: false,
    };
  }
  await writeFile(join(dataDir, 'clients.json'), JSON.stringify(clients));
  await writeFile(join(dataDir, 'tokens.json'), JSON.stringify(tokens));
  return dataDir;
}

async function start(dataDir) {
  const options = join(work, `${dataDir.split('/').pop()}.options.json`);
  await writeFile(
    options,
    JSON.stringify({
      serverCertificate: identity.serverCertificate,
      serverKey: identity.serverKey,
      clientCa: identity.ca,
      directoryJwks: identity.directoryJwks,
      dataDir,
    }),
  );
  const child = fork(import.meta.filename, ['--serve', options, ...(distFlag > 0 ? ['--dist', dist] : [])], { stdio: 'inherit' });
  const { urls, startMs } = await new Promise((done, fail) => {
    child.once('message', done);
    child.once('exit', (code) => fail(new Error(`the sandbox process exited ${code}`)));
  });
  const agent = new Agent({ connect: { ca: identity.ca, cert: identity.transportCert, key: identity.transportKey } });
  const close = async () => {
    await agent.close();
    const exited = new Promise((done) => child.once('exit', done));
    child.send('close');
    await exited;
  };
  return { agent, dataDir, startMs, urls, close };
}

async function call(agent, method, url, headers = {}, body) {
  const response = await request(url, { method, dispatcher: agent, headers, ...(body === undefined ? {} : { body }) });
  const answer = await response.body.text();
  return { status: response.statusCode, body: answer };
}

async function register(sandbox) {
  // The registration request exactly as obflow builds and signs it (docs/bank-interface.md §2.1).
  const claims = buildRegistrationClaims({
    softwareStatement: identity.statement,
    statementClaims: { software_id: manifest.software_id, software_roles: ['AISP'], software_redirect_uris: [...manifest.redirect_uris] },
    authUrl: sandbox.urls.profiles[PROFILE].auth_url,
    now: () => new Date(),
    newJti: randomUUID,
  });
  const jwt = await signRegistration(claims, identity.signingKey, manifest.kid);
  const started = performance.now();
  const answer = await call(
    sandbox.agent,
    'POST',
    sandbox.urls.registration_endpoint,
    { 'content-type': 'application/jwt', accept: 'application/json' },
    jwt,
  );
  const ms = performance.now() - started;
  if (answer.status !== 201) throw new Error(`registration answered ${answer.status}: ${answer.body}`);
  return { client: JSON.parse(answer.body), ms };
}

async function token(sandbox, client) {
  const basic = Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64');
  const started = performance.now();
  const answer = await call(
    sandbox.agent,
    'POST',
    sandbox.urls.profiles[PROFILE].token_url,
    { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    'grant_type=client_credentials&scope=accounts',
  );
  const ms = performance.now() - started;
  if (answer.status !== 200) throw new Error(`token answered ${answer.status}: ${answer.body}`);
  return ms;
}

const fullDir = await filledFolder();
const emptyDir = await mkdtemp(join(tmpdir(), 'obflow-store-soak-empty-'));
const empty = await start(emptyDir);
const full = await start(fullDir);
const sandboxes = { empty, full };
const clients = { empty: (await register(empty)).client, full: (await register(full)).client };

// Warm both (TLS sessions, JIT) before timing.
for (const name of ['empty', 'full']) for (let i = 0; i < 5; i++) await token(sandboxes[name], clients[name]);

// Side by side: each round times the same call on both stores, alternating which goes first.
const times = { token: { empty: [], full: [] }, registration: { empty: [], full: [] } };
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? ['empty', 'full'] : ['full', 'empty'];
  for (const name of order) times.token[name].push(await token(sandboxes[name], clients[name]));
  for (const name of order) times.registration[name].push((await register(sandboxes[name])).ms);
}

/** p99 of unrelated reads (discovery) on `sandbox` while 4 writers mint tokens on it as fast as it answers. */
async function readsUnderWrites(name) {
  const sandbox = sandboxes[name];
  let writing = true;
  const writers = Array.from({ length: 4 }, async () => {
    let minted = 0;
    while (writing) {
      await token(sandbox, clients[name]);
      minted++;
    }
    return minted;
  });
  const reads = [];
  for (let i = 0; i < READS; i++) {
    const started = performance.now();
    const answer = await call(sandbox.agent, 'GET', sandbox.urls.profiles[PROFILE].discovery_url);
    reads.push(performance.now() - started);
    if (answer.status !== 200) throw new Error(`discovery answered ${answer.status}`);
  }
  writing = false;
  return { p99: percentile(reads, 99), minted: (await Promise.all(writers)).reduce((a, b) => a + b, 0) };
}
const readsEmpty = await readsUnderWrites('empty');
const readsFull = await readsUnderWrites('full');

const results = [];
function ratio(name, values, target) {
  const value = percentile(values.full, 50);
  const baseline = percentile(values.empty, 50);
  results.push({
    name,
    full: `${value.toFixed(1)} ms`,
    empty: `${baseline.toFixed(1)} ms`,
    measure: `${(value / baseline).toFixed(2)}×`,
    target: `≤ ${target}×`,
    ok: value / baseline <= target,
  });
}
ratio('token endpoint p50', times.token, 1.5);
ratio('registration p50', times.registration, 1.5);
results.push({
  name: `unrelated reads p99 (${readsFull.minted} / ${readsEmpty.minted} tokens written meanwhile)`,
  full: `${readsFull.p99.toFixed(1)} ms`,
  empty: `${readsEmpty.p99.toFixed(1)} ms`,
  measure: `${(readsFull.p99 / readsEmpty.p99).toFixed(2)}×`,
  target: '≤ 2×',
  ok: readsFull.p99 / readsEmpty.p99 <= 2,
});

for (const sandbox of [empty, full]) await sandbox.close();
// Information: a start checks the whole file (integrity_check and every row's checksum); the first start of the full
// store also migrated its JSON files, so the restart shows the checks alone.
const restarted = { empty: await start(emptyDir), full: await start(fullDir) };
for (const [name, starts] of [
  ['start (first: the full store migrated and checked)', { full, empty }],
  ['restart (the whole file checked)', restarted],
]) {
  results.push({
    name,
    full: `${starts.full.startMs.toFixed(0)} ms`,
    empty: `${starts.empty.startMs.toFixed(0)} ms`,
    measure: `${(starts.full.startMs / starts.empty.startMs).toFixed(2)}×`,
    target: '—',
    ok: true,
  });
}

console.log(
  `store soak on ${dist}: ${TOKENS} tokens and ${CLIENTS} clients stored; start ${empty.startMs.toFixed(0)} ms empty, ${full.startMs.toFixed(0)} ms full; ${ROUNDS} rounds, ${READS} reads`,
);
console.table(results);

for (const sandbox of Object.values(restarted)) await sandbox.close();
await rm(work, { recursive: true, force: true });
await rm(fullDir, { recursive: true, force: true });
await rm(emptyDir, { recursive: true, force: true });
process.exitCode = results.every((row) => row.ok) ? 0 : 1;
