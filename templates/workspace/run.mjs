// Runs the whole flow of this workspace with newman (pinned in package.json), presenting the transport certificate to
// every bank origin and verifying the bank's server certificate against certificates/bank-ca.pem, then writes
// reports/report.html. Started by run.sh / run.cmd from the workspace's top folder; lives in runner/ with what it
// needs. In this order: the secrets the workspace does not hold are asked for (secrets.mjs: kept in memory, never
// saved), then newman is installed into runner/node_modules/ on the first run, then the flow runs. Needs only Node.js.
//
//   node runner/run.mjs     exit 0: every check passed; 1: a check failed; 2: something to set up first

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`error: Node.js ${process.versions.node} is too old: install Node.js 20.19 or later (https://nodejs.org/) and run again.`);
  process.exit(2);
}

const manifest = JSON.parse(readFileSync(join(here, 'workspace.json'), 'utf8'));
const file = (relative) => join(root, ...relative.split('/'));
const stop = (message, hint) => {
  console.error(`error: ${message}`);
  if (hint) console.error(`hint: ${hint}`);
  process.exit(2);
};

const environment = JSON.parse(readFileSync(file(manifest.environment), 'utf8'));
// 1. The secrets, before anything is installed: a run that cannot start says so at once.
const { WorkspaceInterrupted, WorkspaceStop, gatherSecrets, inputOf } = await import('./secrets.mjs');
let given;
try {
  given = await gatherSecrets({ manifest, environment, root, input: inputOf() });
} catch (error) {
  if (error instanceof WorkspaceInterrupted) process.exit(130);
  if (error instanceof WorkspaceStop) stop(error.message, error.hint);
  throw error;
}
for (const entry of environment.values) if (given.values[entry.key] !== undefined) entry.value = given.values[entry.key];

// 2. newman (and handlebars for the report), pinned by package-lock.json, into runner/node_modules/ on the first run.
if (!existsSync(join(here, 'node_modules', 'newman', 'package.json'))) {
  console.error('installing the runner (newman, pinned in runner/package-lock.json) into runner/node_modules/ (first run only)…');
  // One command string through the shell: npm is npm.cmd on Windows, which Node starts only through a shell.
  const install = spawnSync('npm ci --no-audit --no-fund --loglevel=error', { cwd: here, shell: true, stdio: ['ignore', 2, 2] });
  if (install.status !== 0) stop('npm ci failed', 'Check the network (or the npm registry setting) and run again.');
}

// Both need node_modules (handlebars, newman): imported once the checks above passed.
const {
  ACCOUNTS_LIST,
  accountLabels,
  accountsFromValues,
  attachNewman,
  createReportCollector,
  foldersOf,
  itemSteps,
  outcomesFromValues,
  renderReport,
  vrpMandateLines,
} = await import('./report.mjs');
const { failureOfSteps, stepCountNote, withoutWarning } = await import('./rules.mjs');
// newman reads fs.F_OK as it loads, which Node.js 24 deprecates (DEP0176): not a line for the person running this.
const { default: newman } = await withoutWarning('DEP0176', () => import('newman'));
const collection = JSON.parse(readFileSync(file(manifest.collection), 'utf8'));
const steps = itemSteps(foldersOf(collection));
const collector = createReportCollector({
  secretKeys: manifest.secretKeys,
  secrets: environment.values.filter((entry) => entry.type === 'secret' && entry.value !== '').map((entry) => entry.value),
});
const ranAt = new Date().toISOString();
const labels = new Map();

const options = {
  collection,
  environment,
  // One certificate for every bank origin, port included: a port-less pattern matches only 443 and newman would
  // silently send no certificate (obflow docs/pipeline.md#newman-findings).
  sslClientCertList: [
    {
      name: 'transport certificate',
      matches: manifest.origins.map((origin) => `${origin}/*`),
      cert: { src: file(manifest.certificates.cert) },
      key: { src: given.keyFile },
    },
  ],
  ...(manifest.certificates.ca ? { sslExtraCaCerts: file(manifest.certificates.ca) } : {}),
  insecure: false,
  bail: true,
  timeoutRequest: 30000,
  // No newman cli reporter: it prints URLs with their queries (the request object) and unredacted messages. The
  // lines below come from the redacted report model.
  reporters: [],
  workingDir: root,
};

const summary = await new Promise((resolve, reject) => {
  const emitter = newman.run(options, (error, result) => (error ? reject(error) : resolve(result)));
  attachNewman(emitter, collector, (item) => steps.get(item) ?? '');
  emitter.on('request', (_error, args) => {
    // The accounts list names the accounts in the report (labels: src/runner-rules.ts); nothing else of a body is kept.
    if (args?.request?.method !== 'GET' || !ACCOUNTS_LIST.test(args.request.url.toString()) || args.response?.stream === undefined) return;
    try {
      for (const [accountId, label] of accountLabels(JSON.parse(args.response.stream.toString('utf8')))) labels.set(accountId, label);
    } catch {
      // not JSON: the step's own checks say so
    }
  });
});

const finalValues = summary.environment.toJSON().values ?? [];
for (const entry of finalValues) collector.learn(entry.key, typeof entry.value === 'string' ? entry.value : '');
const ranSteps = new Set(
  [...steps.values()].filter((step) => summary.run.executions.some((execution) => steps.get(execution.item?.name) === step)),
);
// The run's values as the rules read them (a secret variable is never read as a value).
const values = finalValues.map((entry) => ({
  key: entry.key,
  value: typeof entry.value === 'string' ? entry.value : JSON.stringify(entry.value ?? ''),
  type: manifest.secretKeys.includes(entry.key) ? 'secret' : 'default',
}));
// What the run paid and checked (the payment, the funds checks, the VRP mandate), as obflow's own report shows it.
const outcomes = outcomesFromValues(values);
const { payment, funds, vrp } = outcomes;
const model = collector.model(
  {
    ...manifest.meta,
    ...outcomes,
    obflowVersion: manifest.meta.obflowVersion,
    ranAt,
    runner: 'workspace run.mjs (newman)',
    order: foldersOf(collection).map((step) => step.name),
    complete: foldersOf(collection).every((step) => ranSteps.has(step.name)),
  },
  accountsFromValues(values, labels),
);
const failed = model.passed === false || summary.run.failures.length > 0;
for (const step of model.steps) {
  const mark = { passed: '✓', failed: '✗', skipped: '–', 'not-reached': '·' }[step.status] ?? '?';
  console.log(
    `${mark} ${step.name}${step.status === 'skipped' ? `  skipped: ${step.skipReason ?? ''}` : step.status === 'not-reached' ? '  not reached' : ''}`,
  );
  for (const request of step.requests) {
    if (request.method !== '') console.log(`    ${request.method} ${request.path} → ${request.error ?? request.status ?? ''}`);
    for (const assertion of request.assertions.filter((candidate) => !candidate.passed))
      console.log(`      ✗ ${assertion.name}${assertion.message ? `: ${assertion.message}` : ''}`);
  }
}
for (const account of model.accounts)
  console.log(
    `${account.accountId} ${account.label ?? ''}: ${account.balance ? `${account.balance.amount} ${account.balance.currency}` : 'balance n/a'}, ${account.transactions ?? 'n/a'} transactions`,
  );
if (payment !== undefined)
  console.log(
    `payment ${payment.paymentId ?? 'not made'}: ${payment.amount ?? ''} ${payment.currency ?? ''} to ${payment.creditor ?? ''}, ` +
      `${payment.status ?? 'n/a'}; consent ${payment.consentId ?? ''} ${payment.consentStatus ?? ''}` +
      (payment.signatures ? `; ${payment.signatures.signed} signed, ${payment.signatures.verified} bank signatures verified` : ''),
  );
if (funds !== undefined)
  console.log(
    `funds checks: ${funds.checks.map((check) => `${check.amount} ${check.currency} ${check.available ? 'available' : 'not available'}`).join(', ')}`,
  );
if (vrp !== undefined) for (const line of vrpMandateLines(vrp)) console.log(line);
mkdirSync(join(root, 'reports'), { recursive: true });
const target = join(root, 'reports', 'report.html');
// Whose side a failure is on and what to do, by the rows obflow's own report uses (rules.mjs failureOfSteps): the
// page opens with it, and the last lines here say it too.
const failure = failureOfSteps(model.steps, 'the failed step below, and its checks');
writeFileSync(`${target}.tmp`, renderReport(failure === undefined ? model : { ...model, failure }));
renameSync(`${target}.tmp`, target);
// One count on every page (index.html, the report, this line): steps as the run plan lists them (the collection's
// folders), checks as newman's assertions; what the count covers in the words obflow's summary uses (rules.mjs).
const planned = foldersOf(collection).length;
const passedSteps = model.steps.filter((step) => step.passed === true).length;
console.log(
  `${failed ? 'FAILED' : 'passed'}: ${passedSteps}/${planned} steps (${stepCountNote(planned, [])}: obflow's own runs add their local ` +
    `id_token checks), ${model.totals.assertions - model.totals.failed}/${model.totals.assertions} checks; report: ${target}`,
);
const told = failureOfSteps(model.steps, `the report, ${target}`);
if (told !== undefined) {
  console.error(told.sentence);
  console.error(`hint: ${told.hint}`);
}
process.exitCode = failed ? 1 : 0;
