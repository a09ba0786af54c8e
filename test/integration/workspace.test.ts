// `obflow workspace` as its users meet it: `obflow sandbox` in its own process (real mTLS on free
// ports), the workspace built against it, copied to an empty folder (no obflow, no node_modules of ours) and run there
// with its own run.sh — the workspace without secrets given them on run.sh's prompt (stdin piped), asked for before
// anything is installed; every shared file scanned for every secret the runs saw; the top folder holds only what a
// person opens; Chromium opening the guide and the report from the copy with no failed load and no console error, one
// count of steps and checks on both and on run.sh's last line, the guide's Basic helper giving the runs' Basic value;
// refusals with one coded line.

import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { createPrivateKey } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { openSession, type Session } from '../../src/pipeline/session.js';
import { STEP_NAMES } from '../../src/generate/flow.js';
import { bankOriginsOf } from '../../src/run/certificates.js';
import { basicCredentials } from '../../src/runner-rules.js';
import { makeWorkspace, type WorkspaceOutcome } from '../../src/pipeline/workspace.js';
import { runCli, startSandboxProcess, type SandboxProcess } from '../helpers/cli.js';
import { CHROMIUM_PATH, chromium, describeWith, needs } from '../helpers/prerequisites.js';
import { issuedSecrets, keyMaterial } from '../helpers/secrets.js';
import { tempDirSync } from '../helpers/temp.js';

const cwd = tempDirSync('obflow-workspace-');
const stateDir = join(cwd, '.obflow');
let sandbox: SandboxProcess | undefined;

const cli = (args: string[]) => runCli(args, { cwd });

/** Every file under a folder, relative path → bytes. */
function filesOf(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const visit = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) visit(path);
      else files.set(relative(dir, path), readFileSync(path));
    }
  };
  visit(dir);
  return files;
}

/** The entries of a zip (central directory → local data, inflated): proves the archive as much as its contents. */
function unzip(archive: Buffer): Map<string, { data: Buffer; mode: number }> {
  const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = archive.readUInt16LE(end + 10);
  let at = archive.readUInt32LE(end + 16);
  const entries = new Map<string, { data: Buffer; mode: number }>();
  for (let index = 0; index < count; index += 1) {
    expect(archive.readUInt32LE(at)).toBe(0x02014b50);
    const size = archive.readUInt32LE(at + 20);
    const nameLength = archive.readUInt16LE(at + 28);
    const extra = archive.readUInt16LE(at + 30) + archive.readUInt16LE(at + 32);
    const mode = (archive.readUInt32LE(at + 38) >>> 16) & 0o777;
    const local = archive.readUInt32LE(at + 42);
    const name = archive.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const start = local + 30 + archive.readUInt16LE(local + 26) + archive.readUInt16LE(local + 28);
    entries.set(name, { data: inflateRawSync(archive.subarray(start, start + size)), mode });
    at += 46 + nameLength + extra;
  }
  return entries;
}

/** Every secret the runs saw: the client secret, the secret values of the saved environment (the last `obflow run`'s
 *  tokens) and of the workspace run's environment, and every private key of the identity, whole and line by line. */
function secretsSeen(): { secrets: Set<string>; kinds: string[]; keyLines: string[] } {
  const registrations = join(stateDir, 'registrations');
  const registration = JSON.parse(readFileSync(join(registrations, readdirSync(registrations)[0] ?? ''), 'utf8')) as {
    client_id: string;
    client_secret: string;
  };
  const saved = JSON.parse(readFileSync(join(stateDir, 'environments', 'sandbox-strict-headless.postman_environment.json'), 'utf8')) as {
    values: { key: string; value: string; type: string }[];
  };
  const identity = JSON.parse(readFileSync(join(stateDir, 'identity', 'identity.json'), 'utf8')) as {
    files: Record<string, string>;
    directory_private: Record<string, string>;
  };
  const keyFiles = Object.entries({ ...identity.files, ...identity.directory_private })
    .filter(([name]) => /key/.test(name))
    .map(([, file]) => readFileSync(join(stateDir, 'identity', file), 'utf8'));
  // The key bodies, line by line (base64 lines of 64 characters), as well as whole.
  const { lines: keyLines } = keyMaterial(keyFiles);
  // What was issued — the registration response, the identity's key files (whole, line by line, every private JWK
  // member), what the flow took from token and authorisation responses in both runs — never what the environments
  // happen to mark secret: a value that lost its marking is still scanned for.
  const secrets = issuedSecrets({
    registration,
    environments: [saved.values, plain?.run?.environment.values ?? []],
    keyPems: keyFiles,
  });
  const kinds = saved.values
    .filter((entry) => entry.type === 'secret' && entry.value !== '')
    .map((entry) => entry.key)
    .sort();
  return { secrets, kinds, keyLines };
}

let session: Session;
let plain: WorkspaceOutcome;
const plainDir = join(cwd, 'plain');
const zipPath = join(cwd, 'plain.zip');
const secretDir = join(cwd, 'with-secrets');
const v4Dir = join(cwd, 'v4');
const copied = tempDirSync('obflow-workspace-copy-');
/** The plain workspace copied and run with its secrets given on run.sh's prompt (the test below fills it). */
const promptedDir = join(copied, 'prompted');
let prompted: SpawnSyncReturns<string> | undefined;

/** What the registrant has and gives on run.sh's prompt: the transport key's file (as a path relative to where run.sh
 *  is started) and the client secret. */
function registrant(): { keyFile: string; clientId: string; clientSecret: string } {
  const registrations = join(stateDir, 'registrations');
  const registration = JSON.parse(readFileSync(join(registrations, readdirSync(registrations)[0] ?? ''), 'utf8')) as {
    client_id: string;
    client_secret: string;
  };
  const identity = JSON.parse(readFileSync(join(stateDir, 'identity', 'identity.json'), 'utf8')) as { files: Record<string, string> };
  return {
    keyFile: relative(cwd, join(stateDir, 'identity', identity.files.transport_key ?? '')),
    clientId: registration.client_id,
    clientSecret: registration.client_secret,
  };
}

/** run.sh of a workspace copy on a terminal: util-linux's `script` gives it a pseudo-terminal (stdin a TTY, the
 *  terminal's echo as it is); each answer is typed once its question is on the screen. Resolves with what the terminal
 *  showed and the exit code. */
function onTerminal(dir: string, answers: readonly { after: string; type: string }[]): Promise<{ code: number | null; screen: string }> {
  const child = spawn('script', ['-qec', join(dir, 'run.sh'), '/dev/null'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? copied, TERM: 'dumb' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let screen = '';
  let next = 0;
  child.stdout.on('data', (chunk: Buffer) => {
    screen += chunk.toString('utf8');
    const answer = answers[next];
    if (
      answer !== undefined &&
      screen.split(answer.after).length - 1 > answers.slice(0, next).filter((one) => one.after === answer.after).length
    ) {
      next += 1;
      child.stdin.write(answer.type);
    }
  });
  return new Promise((done) => child.on('exit', (code) => done({ code, screen })));
}

/** run.sh of a workspace copy, started from the obflow folder with `input` on its stdin; newman comes from the npm
 *  cache when it can (CI and offline machines), installed from the workspace's lockfile. */
function runSh(dir: string, input: string): SpawnSyncReturns<string> {
  return spawnSync(join(dir, 'run.sh'), [], {
    cwd,
    input,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? copied, npm_config_prefer_offline: 'true' },
    timeout: 240_000,
  });
}

beforeAll(async () => {
  expect((await cli(['init', '--quiet'])).code).toBe(0);
  sandbox = await startSandboxProcess(cwd);
}, 60_000);

afterAll(async () => {
  await session?.close();
  await sandbox?.stop();
  rmSync(cwd, { recursive: true, force: true });
  rmSync(copied, { recursive: true, force: true });
});

describe('obflow workspace refuses before anything is written', () => {
  it('without a registration: ERR_NOT_REGISTERED, one coded line with a hint, exit 2, no folder', async () => {
    const result = await cli(['workspace', '--out', plainDir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_NOT_REGISTERED .*\nhint: .*obflow register.*\n$/);
    expect(existsSync(plainDir)).toBe(false);
  });

  it('without an environment: ERR_FILE_MISSING naming `obflow environment`, exit 2, no folder, no zip', async () => {
    expect((await cli(['register', '--quiet'])).code).toBe(0);
    const result = await cli(['workspace', '--out', plainDir, '--zip', zipPath]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: ERR_FILE_MISSING .*\nhint: .*obflow environment.*\n$/);
    expect(existsSync(plainDir)).toBe(false);
    expect(existsSync(zipPath)).toBe(false);
    expect(readdirSync(cwd).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });
});

describe('the workspace against the emulator', () => {
  beforeAll(async () => {
    expect((await cli(['environment', '--quiet'])).code).toBe(0);
    // A run before: the saved environment then holds tokens and codes the workspace must not carry along.
    expect((await cli(['generate', '--quiet', '--out-collections', 'collections'])).code).toBe(0);
    const before = await cli(['run', 'all', '--quiet', '--out-collections', 'collections', '--reporters', 'cli,junit,html,json']);
    expect(before.code, before.stderr).toBe(0);
    const config = parseConfig({ stateDir }, 'test');
    session = await openSession(config);
    plain = await makeWorkspace(session, {
      out: plainDir,
      zip: zipPath,
      includeSecrets: false,
      force: false,
      run: true,
      now: new Date(),
      cwd: process.cwd(),
    });
    const withSecrets = await cli(['workspace', '--include-secrets', '--no-run', '--out', secretDir]);
    expect(withSecrets.code, withSecrets.stderr).toBe(0);
    expect(withSecrets.stdout).toMatch(/^warning: .*private key.*$/m);
  }, 120_000);

  it('obflow run --reporters cli,junit,html,json: no file any reporter wrote holds a secret of the run', () => {
    const { secrets } = secretsSeen();
    const reports = filesOf(join(stateDir, 'reports'));
    // One JUnit file per newman.run: the whole headless flow is one run, its id_token checks inside it.
    expect([...reports.keys()].sort()).toEqual(['discovery--refresh.xml', 'obflow-run.json', 'report.html']);
    for (const [path, bytes] of reports)
      for (const secret of secrets)
        expect(bytes.toString('utf8').includes(secret), `${path} holds a secret (${secret.slice(0, 6)}…)`).toBe(false);
    const html = reports.get('report.html')?.toString('utf8') ?? '';
    expect(html).toMatch(/<span class="verdict ok">passed<\/span>/);
    expect(html).toContain('Holiday fund');
  });

  it('names the API version it was made for, and its guide says how to make the other', async () => {
    const madeFor = (dir: string): string =>
      /<dl class="made-for" id="made-for">([\s\S]*?)<\/dl>/.exec(readFileSync(join(dir, 'index.html'), 'utf8'))?.[1] ?? '';
    expect(madeFor(plainDir)).toContain('<dt>API version</dt><dd>Account and Transaction API v3.1 (/open-banking/v3.1/aisp)</dd>');
    expect(readFileSync(join(plainDir, 'index.html'), 'utf8')).toMatch(
      /<p id="api-version">[^]*<code>obflow workspace --api-version 4\.0<\/code>/,
    );
    const v4 = await cli(['workspace', '--api-version', '4.0', '--no-run', '--out', v4Dir]);
    expect(v4.code, v4.stderr).toBe(0);
    expect(madeFor(v4Dir)).toContain('<dt>API version</dt><dd>Account and Transaction API v4.0 (/open-banking/v4.0/aisp)</dd>');
    const guide = readFileSync(join(v4Dir, 'index.html'), 'utf8');
    expect(guide).toMatch(/<p id="api-version">[^]*<code>obflow workspace --api-version 3\.1<\/code>/);
    expect(guide).not.toContain('--api-version 4.0</code>');
    // Its own run's report names the balance as v4.0 does (run.mjs spreads the manifest's meta into the report's).
    const manifest = (dir: string) =>
      JSON.parse(readFileSync(join(dir, 'runner', 'workspace.json'), 'utf8')) as { meta: Record<string, unknown> };
    expect(manifest(v4Dir).meta.balanceType).toBe('ITAV');
    expect(manifest(plainDir).meta).not.toHaveProperty('balanceType');
    // …and it is what it says: the v4.0 collections.
    expect(readFileSync(join(v4Dir, 'collections', 'obflow-ais.postman_collection.json'), 'utf8')).toContain(
      '/open-banking/v4.0/aisp/accounts',
    );
  });

  it('without --include-secrets holds zero secret bytes: client secret, basicToken, private key, every token and code of both runs', () => {
    expect(plain.run?.passed).toBe(true);
    const { secrets, kinds, keyLines } = secretsSeen();
    expect(kinds).toEqual(
      expect.arrayContaining(['_clientSecret', 'access_token', 'basicToken', 'client_credentials_token', 'id_token', 'refresh_token']),
    );
    expect(keyLines.length).toBeGreaterThan(10);
    // Each RSA key's JWK members are scanned one by one (d, p, q, dp, dq, qi).
    expect([...secrets].filter((secret) => /^[A-Za-z0-9_-]{40,}$/.test(secret)).length).toBeGreaterThanOrEqual(6 * 3);
    const files = filesOf(plainDir);
    // The top folder: what a person opens (the guide, the run scripts, the report, what Postman imports); the rest in runner/.
    expect(readdirSync(plainDir).sort()).toEqual([
      'certificates',
      'collections',
      'environment',
      'index.html',
      'reports',
      'run.cmd',
      'run.sh',
      'runner',
    ]);
    expect([...files.keys()].sort()).toEqual(
      expect.arrayContaining([
        'index.html',
        'reports/report.html',
        'run.sh',
        'run.cmd',
        'runner/run.mjs',
        'runner/secrets.mjs',
        'runner/workspace.json',
        'runner/package-lock.json',
        'certificates/transport.pem',
        'certificates/bank-ca.pem',
        'environment/obflow.postman_environment.json',
        'collections/obflow-ais.postman_collection.json',
      ]),
    );
    expect(files.has('certificates/transport.key')).toBe(false);
    const zipped = unzip(readFileSync(zipPath));
    expect([...zipped.keys()].sort()).toEqual([...files.keys()].map((path) => `plain/${path}`).sort());
    for (const [path, bytes] of [...files, ...[...zipped].map(([path, entry]) => [path, entry.data] as const)]) {
      const text = bytes.toString('utf8');
      for (const secret of secrets) expect(text.includes(secret), `${path} holds a secret (${secret.slice(0, 6)}…)`).toBe(false);
      // A PEM private key (the guide and runner/secrets.mjs name the format in words, never with a key body).
      expect(text, path).not.toMatch(/-----BEGIN [A-Z ]*PRIVATE KEY-----\r?\n[A-Za-z0-9+/]/);
    }
    const environment = JSON.parse(files.get('environment/obflow.postman_environment.json')?.toString('utf8') ?? '') as {
      values: { key: string; value: string; type: string }[];
    };
    expect(environment.values.filter((entry) => entry.type === 'secret').every((entry) => entry.value === '')).toBe(true);
    expect(statSync(plainDir).mode & 0o777).toBe(0o755);
  });

  it('with --include-secrets: the key and client secret are in, folders 0700, files 0600 (scripts 0700)', () => {
    const files = filesOf(secretDir);
    expect(files.get('certificates/transport.key')?.toString('utf8')).toMatch(/PRIVATE KEY/);
    expect(statSync(secretDir).mode & 0o777).toBe(0o700);
    for (const path of files.keys())
      expect(statSync(join(secretDir, path)).mode & 0o777, path).toBe(path.endsWith('.sh') || path.endsWith('.cmd') ? 0o700 : 0o600);
    for (const folder of ['certificates', 'collections', 'environment']) expect(statSync(join(secretDir, folder)).mode & 0o777).toBe(0o700);
  });

  it('an existing workspace is not overwritten without --force: ERR_WORKSPACE_EXISTS; with --force it is replaced whole', async () => {
    const refused = await cli(['workspace', '--no-run', '--out', plainDir]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error: ERR_WORKSPACE_EXISTS /);
    const replaced = await cli(['workspace', '--no-run', '--force', '--include-secrets', '--out', join(cwd, 'replaced')]);
    expect(replaced.code, replaced.stderr).toBe(0);
    const again = await cli(['workspace', '--no-run', '--force', '--out', join(cwd, 'replaced')]);
    expect(again.code, again.stderr).toBe(0);
    expect(existsSync(join(cwd, 'replaced', 'certificates', 'transport.key'))).toBe(false);
    expect(readdirSync(cwd).filter((name) => name.endsWith('.tmp') || name.endsWith('.old'))).toEqual([]);
  });

  it('without secrets, run.sh asks for them before installing anything: no answer, or a wrong key file, is one line and exit 2', () => {
    const dir = join(copied, 'unanswered');
    cpSync(plainDir, dir, { recursive: true });
    const unanswered = runSh(dir, '');
    expect(unanswered.status, unanswered.stderr).toBe(2);
    expect(unanswered.stderr).toMatch(
      /^error: the run needs the transport private key file and the client secret: the transport private key file was not given\nhint: run\.sh \/ run\.cmd asks for them[^\n]*\n$/m,
    );
    const { clientSecret } = registrant();
    const wrongKey = runSh(dir, `${join(stateDir, 'identity', 'tpp', 'signing.key')}\n${clientSecret}\n`);
    expect(wrongKey.status, wrongKey.stderr).toBe(2);
    expect(wrongKey.stderr).toMatch(/^error: \S+signing\.key is not the key of certificates\/transport\.pem\nhint: /m);
    expect(wrongKey.stderr).not.toContain(clientSecret);
    // Nothing installed, nothing written: the checks come first.
    expect(existsSync(join(dir, 'runner', 'node_modules'))).toBe(false);
    expect([...filesOf(dir).keys()].sort()).toEqual([...filesOf(plainDir).keys()].sort());
  });

  it('made without secrets, copied to an empty folder, its run.sh given the key file and the client secret on its prompt runs the whole flow against the emulator: green, report written, no secret in any file', () => {
    cpSync(plainDir, promptedDir, { recursive: true });
    rmSync(join(promptedDir, 'reports'), { recursive: true, force: true });
    const { keyFile, clientId, clientSecret } = registrant();
    prompted = runSh(promptedDir, `${keyFile}\n${clientSecret}\n`);
    expect(prompted.status, `${prompted.stdout}\n${prompted.stderr}`).toBe(0);
    expect(prompted.stdout).toMatch(
      new RegExp(
        `^passed: ${STEP_NAMES.length}/${STEP_NAMES.length} steps \\(${STEP_NAMES.length} collection steps, no local steps: obflow's own runs add their local id_token checks\\), (\\d+)/\\1 checks; report: `,
        'm',
      ),
    );
    // Asked first, installed after (newman into runner/node_modules: the top folder stays as it was).
    const asked = prompted.stderr.indexOf('Client secret of client');
    expect(asked).toBeGreaterThanOrEqual(0);
    expect(prompted.stderr.indexOf('installing the runner')).toBeGreaterThan(asked);
    expect(existsSync(join(promptedDir, 'runner', 'node_modules', 'newman', 'package.json'))).toBe(true);
    expect(readdirSync(promptedDir).sort()).toEqual(readdirSync(plainDir).sort());
    const report = readFileSync(join(promptedDir, 'reports', 'report.html'), 'utf8');
    expect(report).toContain('runner <b>workspace run.mjs (newman)</b>');
    expect(report).toMatch(/Holiday fund/);
    // The secrets given and derived (the Basic value), the key, and everything the earlier runs saw: in no file of the
    // workspace (its installed runner included), nor in what run.sh printed.
    const { secrets } = secretsSeen();
    for (const secret of [clientSecret, basicCredentials(clientId, clientSecret)]) secrets.add(secret);
    const files = filesOf(promptedDir);
    expect(files.size).toBeGreaterThan(1000);
    for (const [path, bytes] of files) {
      const text = bytes.toString('utf8');
      for (const secret of secrets) if (text.includes(secret)) expect.fail(`${path} holds a secret (${secret.slice(0, 6)}…)`);
    }
    for (const secret of secrets) expect(`${prompted.stdout}${prompted.stderr}`.includes(secret), secret.slice(0, 6)).toBe(false);
  }, 300_000);

  it('on a terminal: a wrong key file is asked again, the client secret is not shown as it is typed, Ctrl-C at a question ends with 130 before anything is installed', async () => {
    const { keyFile, clientSecret } = registrant();
    const dir = join(copied, 'terminal');
    cpSync(plainDir, dir, { recursive: true });
    const interrupted = await onTerminal(dir, [
      { after: 'path to the file: ', type: 'no-such.key\r' },
      { after: 'path to the file: ', type: `${keyFile}\r` },
      { after: 'as you type): ', type: '\u0003' },
    ]);
    expect(interrupted.code, interrupted.screen).toBe(130);
    expect(interrupted.screen).toMatch(/cannot read \S*no-such\.key \(ENOENT\): try again/);
    expect(existsSync(join(dir, 'runner', 'node_modules'))).toBe(false);
    // The whole run on the terminal, with the runner the prompted run installed.
    symlinkSync(join(promptedDir, 'runner', 'node_modules'), join(dir, 'runner', 'node_modules'));
    const ran = await onTerminal(dir, [
      { after: 'path to the file: ', type: `${keyFile}\r` },
      { after: 'as you type): ', type: `${clientSecret}\r` },
    ]);
    expect(ran.code, ran.screen).toBe(0);
    // The path the person typed is echoed as usual; the secret is not.
    expect(ran.screen).toContain(keyFile);
    expect(ran.screen.includes(clientSecret)).toBe(false);
    expect(ran.screen).toMatch(/^passed: (\d+)\/\1 steps \([^)]*\), (\d+)\/\2 checks; report: /m);
  }, 120_000);

  it('with --include-secrets, copied to an empty folder, its run.sh asks nothing and runs the whole flow: green', () => {
    const dir = join(copied, 'ws');
    cpSync(secretDir, dir, { recursive: true });
    rmSync(join(dir, 'reports'), { recursive: true, force: true });
    // The runner the prompted run installed (installing is that test's subject).
    symlinkSync(join(promptedDir, 'runner', 'node_modules'), join(dir, 'runner', 'node_modules'));
    const result = runSh(dir, '');
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^passed: (\d+)\/\1 steps \([^)]*\), (\d+)\/\2 checks; report: /m);
  }, 120_000);

  it('run.sh without Node.js prints one line saying what to install (exit 2)', () => {
    const bin = tempDirSync('obflow-no-node-');
    for (const tool of ['sh', 'dirname'])
      symlinkSync(spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim(), join(bin, tool));
    const noNode = spawnSync(join(plainDir, 'run.sh'), [], { encoding: 'utf8', env: { PATH: bin } });
    rmSync(bin, { recursive: true, force: true });
    expect(noNode.status).toBe(2);
    expect(noNode.stderr).toMatch(/^error: run\.sh needs Node\.js 20\.19 or later: install it from https:\/\/nodejs\.org\/.*\n$/);
  });
});

describeWith(chromium, 'the workspace in Chromium', () => {
  it('index.html and the report open from the copied folder with no failed load and no console error; the certificate table names every origin; one count of steps and checks on the guide, the report and run.sh; the Basic helper', async () => {
    const copy = join(copied, 'plain');
    mkdirSync(copy);
    cpSync(plainDir, copy, { recursive: true });
    const { chromium: browserType } = await import('playwright-core');
    const browser = await browserType.launch({ executablePath: CHROMIUM_PATH });
    /** Steps and checks as each page states them. */
    const counts: Record<string, { steps: number; checks: number }> = {};
    try {
      for (const page of ['index.html', 'reports/report.html']) {
        const tab = await browser.newPage();
        const problems: string[] = [];
        tab.on('requestfailed', (request) => problems.push(`failed ${request.url()}`));
        tab.on('console', (message) => {
          if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.text()}`);
        });
        tab.on('pageerror', (error) => problems.push(`page ${error.message}`));
        const requests: string[] = [];
        tab.on('request', (request) => requests.push(request.url()));
        const response = await tab.goto(`file://${join(copy, page)}`, { waitUntil: 'load' });
        expect(response?.ok() ?? true).toBe(true);
        expect(problems, page).toEqual([]);
        // Self-contained: the page is the only thing loaded.
        expect(
          requests.filter((url) => !url.startsWith('file://')),
          page,
        ).toEqual([]);
        if (page === 'index.html') {
          const rows = await tab.locator('#certificate-table tbody tr').evaluateAll((trs) =>
            trs.map((tr) => ({
              origin: tr.getAttribute('data-origin'),
              host: tr.querySelector('.host')?.textContent,
              port: tr.querySelector('.port')?.textContent,
            })),
          );
          const environment = JSON.parse(readFileSync(join(copy, 'environment', 'obflow.postman_environment.json'), 'utf8')) as {
            values: { key: string; value: string }[];
          };
          const origins = bankOriginsOf(environment.values);
          expect(origins.length).toBe(2);
          expect(rows).toEqual(origins.map((origin) => ({ origin, host: new URL(origin).hostname, port: new URL(origin).port })));
          expect(await tab.locator('figure svg text').count()).toBeGreaterThanOrEqual(22);
          counts.guide = {
            steps: Number(await tab.locator('#counts [data-steps]').getAttribute('data-steps')),
            checks: Number(await tab.locator('#counts [data-checks]').getAttribute('data-checks')),
          };
          expect(await tab.locator('#counts').textContent()).toContain(`${counts.guide.steps} steps`);
          // Postman's Basic value made in the page, by the very function the runs use (nothing to compute by hand).
          const { clientId } = registrant();
          const secret = 'a secret: with/odd+chars é';
          await tab.locator('#basic-secret').fill(secret);
          expect(await tab.locator('#basic-value').textContent()).toBe(basicCredentials(clientId, secret));
          expect(problems, page).toEqual([]);
        } else {
          // The steps the workspace's own run runs: the collection's (its run.mjs has no local id_token steps).
          expect(await tab.locator('details.step').count()).toBe(STEP_NAMES.length);
          expect(await tab.locator('.verdict').textContent()).toBe('passed');
          const header = (await tab.locator('header').textContent()) ?? '';
          counts.report = {
            steps: Number(/(\d+) steps/.exec(header)?.[1]),
            checks: Number(/(\d+) (?:checks|assertions)/.exec(header)?.[1]),
          };
        }
        await tab.close();
      }
    } finally {
      await browser.close();
    }
    const ran = /^passed: \d+\/(\d+) steps \([^)]*\), \d+\/(\d+) checks;/m.exec(prompted?.stdout ?? '');
    counts['run.sh'] = { steps: Number(ran?.[1]), checks: Number(ran?.[2]) };
    expect(counts.guide?.steps).toBe(STEP_NAMES.length);
    expect(counts.guide?.checks).toBeGreaterThan(100);
    expect(counts).toEqual({ guide: counts.guide, report: counts.guide, 'run.sh': counts.guide });
  }, 60_000);

  it("a run the bank refuses (a wrong client secret typed): run.sh and the report page say whose side and what to do, by obflow's own rules", async () => {
    const dir = join(copied, 'refused');
    cpSync(plainDir, dir, { recursive: true });
    rmSync(join(dir, 'reports'), { recursive: true, force: true });
    // The runner the prompted run installed (installing is that test's subject).
    symlinkSync(join(promptedDir, 'runner', 'node_modules'), join(dir, 'runner', 'node_modules'));
    const { keyFile } = registrant();
    const result = runSh(dir, `${keyFile}\nnot-the-client-secret\n`);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(1);
    const sentence =
      "The run stopped at step client-credentials (client-credentials: POST token): the bank refused the request (HTTP 401); the fault is on the client's side.";
    expect(result.stderr).toContain(`${sentence}\nhint: The bank refused the request (invalid_client`);
    const { chromium: browserType } = await import('playwright-core');
    const browser = await browserType.launch({ executablePath: CHROMIUM_PATH });
    try {
      const tab = await browser.newPage();
      await tab.goto(`file://${join(dir, 'reports', 'report.html')}`, { waitUntil: 'load' });
      expect(await tab.locator('.failure .sentence').innerText()).toBe(sentence);
      const hint = (await tab.locator('.failure p').nth(1).innerText()).replace(/^What to do:\s*/, '');
      // The rule's workspace words (src/runner-rules.ts): the secret and key files of this run first, then whoever made it.
      expect(hint).toBe(
        "The bank refused the request (invalid_client (unknown client or wrong client secret)), as the standard lets it: the fault is on the client's side " +
          '(the request, the registration, or a setting this workspace was made with); the bank did not accept the client authentication ' +
          '(client_secret_basic: the client id and secret; private_key_jwt: the assertion signed with the signing key; tls_client_auth: the ' +
          'transport certificate): check the client secret and the key files given for this run (run.sh asks for them; in Postman, the ' +
          'environment and the certificate settings); if they are right, whoever made this workspace registers the client again ' +
          '(`obflow register --force`, `obflow environment`, then `obflow workspace`). Details: the failed step below, and its checks.',
      );
      expect(hint).not.toContain('not-the-client-secret');
      const technical = tab.locator('.failure details');
      expect(await technical.getAttribute('open')).toBeNull();
      expect(await technical.locator('pre').textContent()).toMatch(
        /✗ client-credentials › client-credentials: POST token: status is 200 — the bank answered 401/,
      );
    } finally {
      await browser.close();
    }
  }, 120_000);
});

describe('a private_key_jwt client (signs its client assertion with the signing key): the workspace asks for the key files, never a secret to paste', () => {
  const pkjCwd = tempDirSync('obflow-workspace-pkj-');
  const pkjDir = join(pkjCwd, 'ws');
  const PKJ = { OBFLOW_BANK__TOKEN_ENDPOINT_AUTH_METHOD: 'private_key_jwt' };
  let pkjSandbox: SandboxProcess | undefined;
  const keyOf = (name: string): string => {
    const identity = JSON.parse(readFileSync(join(pkjCwd, '.obflow', 'identity', 'identity.json'), 'utf8')) as {
      files: Record<string, string>;
    };
    return join(pkjCwd, '.obflow', 'identity', identity.files[name] ?? '');
  };

  beforeAll(async () => {
    expect((await runCli(['init', '--quiet'], { cwd: pkjCwd })).code).toBe(0);
    pkjSandbox = await startSandboxProcess(pkjCwd);
    for (const args of [['register'], ['environment'], ['workspace', '--no-run', '--out', pkjDir]]) {
      const result = await runCli([...args, '--quiet'], { cwd: pkjCwd, env: PKJ });
      expect(result.code, result.stderr).toBe(0);
    }
  }, 60_000);
  afterAll(async () => {
    await pkjSandbox?.stop();
    rmSync(pkjCwd, { recursive: true, force: true });
  });

  it('run.sh asks for the transport key and the signing key files (no client secret), makes the JWK and runs green; no key in any file', () => {
    const manifest = JSON.parse(readFileSync(join(pkjDir, 'runner', 'workspace.json'), 'utf8')) as { secrets: Record<string, unknown> };
    expect(Object.keys(manifest.secrets).sort()).toEqual(['signingKey', 'transportKey']);
    const result = spawnSync(join(pkjDir, 'run.sh'), [], {
      cwd: pkjCwd,
      input: `${keyOf('transport_key')}\n${keyOf('signing_key')}\n`,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? pkjCwd, npm_config_prefer_offline: 'true' },
      timeout: 240_000,
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stderr).toContain('Signing key');
    expect(result.stderr).not.toContain('Client secret');
    expect(result.stdout).toMatch(/^passed: (\d+)\/\1 steps \([^)]*\), (\d+)\/\2 checks; report: /m);
    const { lines, members } = keyMaterial([readFileSync(keyOf('transport_key'), 'utf8'), readFileSync(keyOf('signing_key'), 'utf8')]);
    for (const [path, bytes] of filesOf(pkjDir)) {
      const text = bytes.toString('utf8');
      for (const secret of [...lines, ...members]) if (text.includes(secret)) expect.fail(`${path} holds a key (${secret.slice(0, 6)}…)`);
    }
  }, 300_000);

  it("the guide's JWK helper (Chromium) reads the signing key file into the JWK the run makes, in the page", async () => {
    needs(chromium);
    const { chromium: browserType } = await import('playwright-core');
    const browser = await browserType.launch({ executablePath: CHROMIUM_PATH });
    try {
      const tab = await browser.newPage();
      const problems: string[] = [];
      tab.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
      });
      tab.on('pageerror', (error) => problems.push(error.message));
      await tab.goto(`file://${join(pkjDir, 'index.html')}`);
      expect(await tab.locator('#basic-helper').count()).toBe(0);
      await tab.locator('#jwk-file').setInputFiles(keyOf('signing_key'));
      await expect.poll(async () => (await tab.locator('#jwk-value').textContent()) ?? '').toMatch(/^\{"kty":"RSA"/);
      const { kty, n, e, d, p, q, dp, dq, qi } = createPrivateKey(readFileSync(keyOf('signing_key'))).export({ format: 'jwk' });
      expect(JSON.parse((await tab.locator('#jwk-value').textContent()) ?? '')).toEqual({ kty, n, e, d, p, q, dp, dq, qi });
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});
