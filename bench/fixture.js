// The bench's bank: a temporary state folder with a local identity, `obflow sandbox` running as its own process
// (loopback, free ports), a registered client and its saved environment, and the files plain newman and the raw
// client need (certificate list, CA bundle). The emulator's request log (stderr, one line per request) is kept, so the
// bench can check that obflow, newman and the raw client made the same requests in the same order.

import { URL } from 'node:url';
import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { childEnv, newmanBin, obflowBin, repo, timed } from './lib.js';

/**
 * `options.apis`: the API families the emulator serves and the client registers for (default: the config's, accounts);
 * `options.env`: more OBFLOW_* settings of every obflow command (a config file, another collections folder).
 */
export async function startFixture(options = {}) {
  const tmp = await mkdtemp(join(tmpdir(), 'obflow-bench-peers-'));
  const stateDir = join(tmp, 'state');
  const cliEnv = {
    OBFLOW_STATE_DIR: stateDir,
    OBFLOW_OUTPUT__COLLECTIONS: join(repo, 'collections'),
    OBFLOW_OUTPUT__REPORTS: join(tmp, 'reports'),
    ...(options.apis === undefined ? {} : { OBFLOW_FLOW__APIS: options.apis.join(','), OBFLOW_SANDBOX__APIS: options.apis.join(',') }),
    ...options.env,
  };
  const obflow = (args, options = {}) =>
    timed(process.execPath, [obflowBin, ...args], { cwd: tmp, tmp, ...options, env: { ...cliEnv, ...options.env } });

  await obflow(['init', '--json']);
  const identity = JSON.parse(await readFile(join(stateDir, 'identity', 'identity.json'), 'utf8'));
  const file = (name) => join(stateDir, 'identity', identity.files[name]);
  const cert = file('transport_certificate');
  const key = file('transport_key');
  const ca = [file('directory_root_ca'), file('directory_issuing_ca')];

  let sandbox = await startSandbox(stateDir, cliEnv, { log: true });
  await obflow(['register', '--json']);
  await obflow(['environment', '--json']);
  const savedEnvironment = join(stateDir, 'environments', 'sandbox-strict-headless.postman_environment.json');
  const environment = join(tmp, 'environment.json');
  await copyFile(savedEnvironment, environment);

  // What a newman user writes by hand: one certificate for both of the bank's origins, and the bank's CA.
  const certList = join(tmp, 'ssl-client-cert-list.json');
  const origins = [sandbox.urls.sandbox_base_url, new URL(sandbox.urls.profiles['strict-headless'].auth_url).origin];
  await writeFile(
    certList,
    JSON.stringify([{ name: 'bench', matches: origins.map((origin) => `${origin}/*`), key: { src: key }, cert: { src: cert } }]),
  );
  const caBundle = join(tmp, 'ca.pem');
  await writeFile(caBundle, (await Promise.all(ca.map((path) => readFile(path, 'utf8')))).join('\n'));

  return {
    tmp,
    stateDir,
    cliEnv,
    obflow,
    cert,
    key,
    ca,
    certList,
    caBundle,
    serverCert: file('server_certificate'),
    serverKey: file('server_key'),
    /** The environment as `obflow environment` wrote it, before any run (every round starts from it). */
    environment,
    savedEnvironment,
    get sandbox() {
      return sandbox;
    },
    /** Restarts the emulator on the same ports (issuer URLs carry them), with or without its request log. */
    async restartSandbox(options) {
      const { resource, auth } = sandbox.ports;
      await sandbox.stop();
      sandbox = await startSandbox(stateDir, cliEnv, { ...options, resourcePort: resource, authPort: auth });
    },
    /** Stops the emulator and removes the temporary folder (a test identity's private keys are in it). */
    async close() {
      await sandbox.stop();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}

/** `obflow sandbox` as a child process; resolves once its addresses file names it. */
async function startSandbox(stateDir, cliEnv, options) {
  const args = [obflowBin, 'sandbox', ...(options.log ? [] : ['--json'])];
  if (options.resourcePort !== undefined)
    args.push('--resource-port', String(options.resourcePort), '--auth-port', String(options.authPort));
  const child = spawn(process.execPath, args, { env: childEnv(cliEnv), stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  let partial = '';
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => {
    const text = partial + chunk;
    const parts = text.split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  const exited = new Promise((done) => child.on('close', done));
  const addressesFile = join(stateDir, 'sandbox', 'addresses.json');
  for (let waited = 0; ; waited += 50) {
    if (child.exitCode !== null) throw new Error(`bench: obflow sandbox exited ${child.exitCode}: ${lines.join('\n')}`);
    if (/sandbox ready|"sandbox_base_url"/.test(stdout)) break;
    if (waited > 60_000) throw new Error('bench: obflow sandbox did not start within 60 s');
    await sleep(50);
  }
  const addresses = JSON.parse(await readFile(addressesFile, 'utf8'));
  const urls = addresses.urls ?? addresses;
  return {
    urls,
    pid: child.pid,
    ports: { resource: Number(new URL(urls.sandbox_base_url).port), auth: Number(new URL(urls.profiles['strict-headless'].auth_url).port) },
    /** Index into the request log, to take the requests of one run. */
    mark: () => lines.length,
    /** The requests logged since `mark`, each as `origin METHOD path status` with run-specific ids normalised. */
    async requestsSince(mark) {
      // The log line is written when the answer is sent: let the pipe drain.
      let count = -1;
      while (count !== lines.length) {
        count = lines.length;
        await sleep(100);
      }
      return lines
        .slice(mark)
        .filter((line) => /^(resource|auth) /.test(line))
        .map(signature);
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** `resource GET /open-banking/…/account-access-consents/<id> 200 1.2ms client=… interaction=…` → comparable text. */
function signature(line) {
  const [origin, method, url, status] = line.split(' ');
  return `${origin} ${method} ${url.replace(/\/account-access-consents\/[^/?]+/, '/account-access-consents/{ConsentId}')} ${status}`;
}

/**
 * The argv of plain `newman run` of `collection` on the bench's bank, as a newman user writes it: the environment, the
 * certificate list and the CA bundle; `iterations` (-n) and a JUnit file (the report obflow writes too) when given.
 */
export function plainNewmanArgs(fixture, collection, { environment = fixture.environment, iterations, junit } = {}) {
  return [
    newmanBin,
    'run',
    collection,
    ...(iterations === undefined ? [] : ['-n', String(iterations)]),
    '--environment',
    environment,
    '--ssl-client-cert-list',
    fixture.certList,
    '--ssl-extra-ca-certs',
    fixture.caBundle,
    ...(junit === undefined ? [] : ['--reporters', 'junit', '--reporter-junit-export', junit]),
  ];
}
