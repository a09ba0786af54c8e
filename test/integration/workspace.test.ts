// `obflow workspace` as its users meet it (issue 13): `obflow sandbox` in its own process (real mTLS on free ports),
// the workspace built against it, copied to an empty folder (no obflow, no node_modules of ours) and run there with
// its own run.sh; the workspace without --include-secrets scanned for every secret the run saw; Chromium opening the
// guide and the report from the copy with no failed load and no console error; refusals with one coded line.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { openSession, type Session } from '../../src/pipeline/session.js';
import { STEP_NAMES } from '../../src/generate/flow.js';
import { bankOriginsOf } from '../../src/run/certificates.js';
import { makeWorkspace, type WorkspaceOutcome } from '../../src/pipeline/workspace.js';
import { runCli, startSandboxProcess, type SandboxProcess } from '../helpers/cli.js';
import { CHROMIUM_PATH, chromium, describeWith } from '../helpers/prerequisites.js';
import { issuedSecrets, keyMaterial } from '../helpers/secrets.js';

const cwd = mkdtempSync(join(tmpdir(), 'obflow-workspace-'));
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
const copied = mkdtempSync(join(tmpdir(), 'obflow-workspace-copy-'));

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
    plain = await makeWorkspace(session, { out: plainDir, zip: zipPath, includeSecrets: false, force: false, run: true, now: new Date() });
    const withSecrets = await cli(['workspace', '--include-secrets', '--no-run', '--out', secretDir]);
    expect(withSecrets.code, withSecrets.stderr).toBe(0);
    expect(withSecrets.stdout).toMatch(/^warning: .*private key.*$/m);
  }, 120_000);

  it('obflow run --reporters cli,junit,html,json: no file any reporter wrote holds a secret of the run', () => {
    const { secrets } = secretsSeen();
    const reports = filesOf(join(stateDir, 'reports'));
    // One JUnit file per newman.run: the whole headless flow is one run, its id_token checks inside it (issue 21).
    expect([...reports.keys()].sort()).toEqual(['discovery--refresh.xml', 'obflow-run.json', 'report.html']);
    for (const [path, bytes] of reports)
      for (const secret of secrets)
        expect(bytes.toString('utf8').includes(secret), `${path} holds a secret (${secret.slice(0, 6)}…)`).toBe(false);
    const html = reports.get('report.html')?.toString('utf8') ?? '';
    expect(html).toMatch(/<span class="verdict ok">passed<\/span>/);
    expect(html).toContain('Holiday fund');
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
    expect([...files.keys()].sort()).toEqual(
      expect.arrayContaining([
        'index.html',
        'reports/report.html',
        'run.sh',
        'run.cmd',
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
      expect(text, path).not.toMatch(/PRIVATE KEY/);
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

  it('copied to an empty folder, its run.sh runs the whole flow against the emulator with only Node.js: green, report written', () => {
    cpSync(secretDir, join(copied, 'ws'), { recursive: true });
    rmSync(join(copied, 'ws', 'reports'), { recursive: true, force: true });
    // The npm cache answers when it can (CI and offline machines); newman is installed from the workspace's lockfile.
    const result = spawnSync(join(copied, 'ws', 'run.sh'), [], {
      cwd: copied,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? copied, npm_config_prefer_offline: 'true' },
      timeout: 240_000,
    });
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toMatch(/^passed: (\d+)\/\1 checks; report: /m);
    expect(existsSync(join(copied, 'ws', 'node_modules', 'newman', 'package.json'))).toBe(true);
    const report = readFileSync(join(copied, 'ws', 'reports', 'report.html'), 'utf8');
    expect(report).toContain('runner <b>workspace run.mjs (newman)</b>');
    expect(report).toMatch(/Holiday fund/);
  }, 300_000);

  it('run.sh without Node.js prints one line saying what to install (exit 2); a workspace without secrets says what to paste', () => {
    const bin = mkdtempSync(join(tmpdir(), 'obflow-no-node-'));
    for (const tool of ['sh', 'dirname'])
      symlinkSync(spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim(), join(bin, tool));
    const noNode = spawnSync(join(plainDir, 'run.sh'), [], { encoding: 'utf8', env: { PATH: bin } });
    rmSync(bin, { recursive: true, force: true });
    expect(noNode.status).toBe(2);
    expect(noNode.stderr).toMatch(/^error: run\.sh needs Node\.js 20\.19 or later: install it from https:\/\/nodejs\.org\/.*\n$/);
    const noSecrets = spawnSync(process.execPath, [join(plainDir, 'run.mjs')], { encoding: 'utf8' });
    expect(noSecrets.status).toBe(2);
    expect(noSecrets.stderr).toMatch(
      /^error: this workspace holds no secrets: certificates\/transport\.key, the environment's _clientSecret, the environment's basicToken missing\nhint: index\.html[^\n]*\n$/,
    );
  });
});

describeWith(chromium, 'the workspace in Chromium', () => {
  it('index.html and the report open from the copied folder with no failed load and no console error; the certificate table names every origin', async () => {
    const copy = join(copied, 'plain');
    mkdirSync(copy);
    cpSync(plainDir, copy, { recursive: true });
    const { chromium: browserType } = await import('playwright-core');
    const browser = await browserType.launch({ executablePath: CHROMIUM_PATH });
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
        } else {
          // Every collection step and the two local id_token checks (headless consent: no browser step).
          expect(await tab.locator('details.step').count()).toBe(STEP_NAMES.length + 2);
          expect(await tab.locator('.verdict').textContent()).toBe('passed');
        }
        await tab.close();
      }
    } finally {
      await browser.close();
    }
  }, 60_000);
});
