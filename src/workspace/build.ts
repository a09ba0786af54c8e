// The ready-made workspace for people who are not developers: pure — the target, the environment, the
// collections, the certificates and the templates in, the list of files out. `write.ts` puts them on disk (whole or
// not at all) and zips them. Secrets (transport key, client secret, basicToken, every token and code) are left out
// unless `includeSecrets`: the environment's secret values are emptied, and runner/workspace.json's `secrets` says
// what the workspace's run asks for (runner/secrets.mjs) and which values it derives, so nobody pastes or computes one
// by hand. The top folder holds what a person opens (the guide, the run scripts, the report, what Postman imports);
// the runner's own files are in runner/.

import Handlebars from 'handlebars';
import type { PostmanEnvironment } from '../environment/merge.js';
import { API_FAMILIES, type ApiFamily } from '../api-families.js';
import { apiBasePath, API_VERSION_ROWS, API_VERSIONS, type ApiVersion } from '../generate/api-versions.js';
import { bankOriginsOf, resolveVariables } from '../run/certificates.js';
import { originOf } from '../run/origin.js';
import { RUN_STATE_VARIABLES, ENVIRONMENT_VARIABLES } from '../generate/variables.js';
import { basicCredentials } from '../runner-rules.js';
import { certificateRows, originRoles } from './certificates.js';

export { certificateRows, originRoles, type CertificateRow } from './certificates.js';

export interface WorkspaceFile {
  /** Relative, forward slashes. */
  path: string;
  contents: string;
  /** Run scripts are executable. */
  executable?: boolean;
  /** Holds a secret (the key, the environment with secrets): 0600 whatever the workspace's mode. */
  secret?: boolean;
}

export interface WorkspaceInput {
  target: { name: string; profile: string; consent: 'headless' | 'browser' | 'manual' };
  environment: PostmanEnvironment;
  /** The generated collections (`<step>.postman_collection.json` and the whole flow). */
  collections: readonly { fileName: string; json: string }[];
  /** File name of the whole-flow collection among them. */
  flowCollection: string;
  /** The API version the collections speak (flow.apiVersion / --api-version). */
  apiVersion: ApiVersion;
  /** The API family whose flow the workspace holds (flow.apis, one family; default accounts). */
  family?: ApiFamily;
  transport: { certPem: string; chainPem: readonly string[]; keyPem: string };
  /** The bank's server CA certificates (PEM); empty: the system roots verify it. */
  serverCaPem: readonly string[];
  includeSecrets: boolean;
  /** Sandbox: the test user who logs in (the password only matters on interactive profiles). */
  psu?: { username: string; password: string };
  clientId: string;
  /** Where the registration (client id and secret) is kept, to tell people where the secret comes from. */
  registrationFile: string;
  /** Where the builder keeps the private keys (relative paths), to tell people which file the run asks for. */
  keyFiles: { transport: string; signing: string };
  /** Totals of the run that made the report (`reportHtml`): the guide states the same counts as the report. */
  lastRun?: { passed: boolean; checks: number; failedChecks: number };
  /** The HTML report of the run that produced the workspace, when there was one. */
  reportHtml?: string;
  obflowVersion: string;
  builtAt: string;
  /** templates/workspace/: index.html.hbs and the files copied as they are. */
  templates: { guide: string; copied: Readonly<Record<string, string>> };
}

/** Files of templates/workspace/ copied into every workspace unchanged (where: `copiedPath`). */
export const COPIED_FILES = [
  'run.mjs',
  'secrets.mjs',
  'run.sh',
  'run.cmd',
  'package.json',
  'package-lock.json',
  'report.mjs',
  'rules.mjs',
  'report.html.hbs',
  'timing.mjs',
  'timing.svg.hbs',
  'timing.css',
] as const;

/** What a person opens sits in the top folder: the guide, the run scripts (and the report, collections, environment
 *  and certificates folders). Everything the run scripts start is in RUNNER_DIR, with the manifest. */
export const TOP_FILES: readonly string[] = ['index.html', 'run.sh', 'run.cmd'];
export const RUNNER_DIR = 'runner';

/** Where a copied template file goes in the workspace. */
export function copiedPath(name: (typeof COPIED_FILES)[number]): string {
  return TOP_FILES.includes(name) ? name : `${RUNNER_DIR}/${name}`;
}

export const WORKSPACE_PATHS = {
  manifest: `${RUNNER_DIR}/workspace.json`,
  environment: 'environment/obflow.postman_environment.json',
  cert: 'certificates/transport.pem',
  key: 'certificates/transport.key',
  ca: 'certificates/bank-ca.pem',
  report: 'reports/report.html',
} as const;

/** Variables whose URL is only known during the run, and the address it is built on. */
const RUNTIME_URL_BASES: Readonly<Record<string, string>> = {
  consent_url: 'authEndpoint',
  psu_consent_url: 'authEndpoint',
  transactions_next_url: 'rs',
};

/** The bank-issued secrets a workspace's run asks for when it does not hold them, and the environment values it sets
 *  from each answer (runner/secrets.mjs): the client secret gives `_clientSecret` and the Basic value `basicToken`
 *  (basicCredentials, src/runner-rules.ts), the signing key file gives `signing_key` (a JWK). The transport key is
 *  asked for as a file unless certificates/transport.key is there. */
const ASKED_SECRETS = {
  clientSecret: ['_clientSecret', 'basicToken'],
  signingKey: ['signing_key'],
} as const;

/** What runner/workspace.json says the run asks for: only what this client has (a tls_client_auth client has no
 *  secret besides the transport key; the signing key only when the client signs). */
export function askedSecrets(input: Pick<WorkspaceInput, 'environment' | 'clientId' | 'registrationFile' | 'keyFiles'>): {
  transportKey: { from: string };
  clientSecret?: { clientId: string; from: string; sets: string[] };
  signingKey?: { from: string; sets: string[] };
} {
  const held = (keys: readonly string[]) =>
    keys.filter((key) => input.environment.values.some((entry) => entry.key === key && entry.type === 'secret' && entry.value !== ''));
  const clientSecret = held(ASKED_SECRETS.clientSecret);
  const signingKey = held(ASKED_SECRETS.signingKey);
  return {
    transportKey: { from: `obflow keeps it at ${input.keyFiles.transport}` },
    ...(clientSecret.length > 0
      ? {
          clientSecret: {
            clientId: input.clientId,
            from: `client_secret in ${input.registrationFile} (the bank showed it once, at registration)`,
            sets: clientSecret,
          },
        }
      : {}),
    ...(signingKey.length > 0 ? { signingKey: { from: `obflow keeps it at ${input.keyFiles.signing}`, sets: signingKey } } : {}),
  };
}

/** The guide's Postman helper computes the Basic value with the very function the runs use, inlined from its source. */
function basicCredentialsSource(): string {
  return `const basicCredentials = ${basicCredentials.toString()};`;
}

/** The environment as a workspace ships it: state of earlier runs cleared (every family's: a payment id, a consent
 *  status or a mandate's walk from obflow's run is not the workspace's), secrets emptied unless asked for. */
export function workspaceEnvironment(environment: PostmanEnvironment, includeSecrets: boolean): PostmanEnvironment {
  const state = new Map(RUN_STATE_VARIABLES.map((spec) => [spec.key, spec.default]));
  return {
    ...environment,
    values: environment.values.map((entry) => {
      const cleared = state.has(entry.key) ? (state.get(entry.key) ?? '') : entry.value;
      return { ...entry, value: entry.type === 'secret' && !includeSecrets ? '' : cleared };
    }),
  };
}

interface FlowStep {
  name: string;
  origins: string[];
}

/** Each step (a folder of the whole-flow collection) with the bank origins its requests go to. */
export function flowSteps(flow: object, environment: Pick<PostmanEnvironment, 'values'>): FlowStep[] {
  const values = Object.fromEntries(environment.values.map((entry) => [entry.key, entry.value]));
  const originsOf = (items: unknown, into: Set<string>): void => {
    if (!Array.isArray(items)) return;
    for (const item of items as { item?: unknown; request?: { url?: unknown } }[]) {
      originsOf(item.item, into);
      const url = item.request?.url;
      const raw = typeof url === 'string' ? url : typeof url === 'object' && url !== null ? (url as { raw?: unknown }).raw : undefined;
      if (typeof raw !== 'string') continue;
      const base = /^\{\{([^{}]+)\}\}/.exec(raw)?.[1];
      const resolved = resolveVariables(
        base !== undefined && RUNTIME_URL_BASES[base] !== undefined ? `{{${RUNTIME_URL_BASES[base]}}}` : raw,
        values,
      );
      const origin = originOf(resolved);
      if (origin !== undefined) into.add(origin);
    }
  };
  return ((flow as { item?: { name?: unknown; item?: unknown }[] }).item ?? []).map((folder) => {
    const origins = new Set<string>();
    originsOf(folder.item, origins);
    return { name: String(folder.name ?? ''), origins: [...origins].sort() };
  });
}

/** The flow as an SVG: one box per step in order, each naming the origin it calls (no script, no external resource). */
export function flowSvg(steps: readonly FlowStep[], origins: readonly string[], roles: ReadonlyMap<string, string> = new Map()): string {
  const row = 34;
  const labelOf = (one: string): string => (roles.has(one) ? `${roles.get(one) ?? ''}: ${one}` : one);
  const labels = steps.map((step) => (step.origins.length === 0 ? 'no request (local)' : step.origins.map(labelOf).join(', ')));
  // Wide enough for the longest line (≈ 7 px a character at 12 px): a step calling two servers names both in full.
  const width = Math.max(760, 256 + 10 + Math.max(0, ...labels.map((label) => label.length)) * 7);
  const height = 20 + steps.length * row;
  const colours = ['#1a73e8', '#188038', '#b06000', '#9334e6', '#c5221f'];
  const colourOf = (origin: string | undefined) =>
    colours[origin === undefined ? 0 : Math.max(0, origins.indexOf(origin)) % colours.length] ?? '#1a73e8';
  const escape = (text: string) => Handlebars.escapeExpression(text);
  const boxes = steps.map((step, index) => {
    const y = 10 + index * row;
    const origin = step.origins[0];
    const arrow =
      index < steps.length - 1
        ? `<line x1="110" y1="${y + 26}" x2="110" y2="${y + row}" stroke="#5f6368" stroke-width="1.5" marker-end="url(#arrow)"/>`
        : '';
    return (
      `<g><rect x="10" y="${y}" width="200" height="26" rx="5" fill="#fff" stroke="${colourOf(origin)}" stroke-width="2"/>` +
      `<text x="110" y="${y + 17}" text-anchor="middle" font-size="13">${index + 1}. ${escape(step.name)}</text>` +
      `<line x1="210" y1="${y + 13}" x2="250" y2="${y + 13}" stroke="${colourOf(origin)}" stroke-width="1.5" stroke-dasharray="4 3"/>` +
      `<text x="256" y="${y + 17}" font-size="12" fill="${colourOf(origin)}">${escape(labels[index] ?? '')}</text>${arrow}</g>`
    );
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="The flow: ${steps.length} steps in order" ` +
    `viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" font-family="system-ui, sans-serif">` +
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="5" refY="9" markerWidth="6" markerHeight="6" orient="auto"><path d="M0,0 L10,0 L5,10 z" fill="#5f6368"/></marker></defs>' +
    `${boxes.join('')}</svg>`
  );
}

/** Pure: every file of the workspace. */
export function buildWorkspace(input: WorkspaceInput): WorkspaceFile[] {
  const environment = workspaceEnvironment(input.environment, input.includeSecrets);
  const flow = input.collections.find((file) => file.fileName === input.flowCollection);
  if (flow === undefined) throw new TypeError(`no ${input.flowCollection} among the collections`);
  const steps = flowSteps(JSON.parse(flow.json) as object, input.environment);
  const origins = bankOriginsOf(input.environment.values);
  const secretKeys = ENVIRONMENT_VARIABLES.filter((spec) => spec.secret).map((spec) => spec.key);
  const asks = input.includeSecrets ? undefined : askedSecrets(input);
  const hasCa = input.serverCaPem.length > 0;
  const bank = input.target.name === 'sandbox' ? 'obflow sandbox (emulator)' : input.target.name;
  const family: ApiFamily = input.family ?? API_FAMILIES.accounts;
  const { reportBalanceType } = API_VERSION_ROWS[input.apiVersion];
  const manifest = {
    meta: {
      bank,
      profile: input.target.profile,
      obflowVersion: input.obflowVersion,
      // The report's accounts header names the balance as the version does (report.mjs; absent: InterimAvailable).
      ...(reportBalanceType !== undefined ? { balanceType: reportBalanceType } : {}),
    },
    collection: `collections/${input.flowCollection}`,
    environment: WORKSPACE_PATHS.environment,
    certificates: { cert: WORKSPACE_PATHS.cert, key: WORKSPACE_PATHS.key, ...(hasCa ? { ca: WORKSPACE_PATHS.ca } : {}) },
    origins,
    secretKeys,
    // What the run asks for when it is not in the folder (runner/secrets.mjs); none with --include-secrets.
    secrets: asks ?? {},
    includesSecrets: input.includeSecrets,
    builtAt: input.builtAt,
  };
  const guide = Handlebars.compile(input.templates.guide, { strict: true })({
    ...manifest.meta,
    builtAt: input.builtAt,
    // Who and what the workspace was made for, one row each (a new fact, such as the API version, is one more row).
    madeFor: [
      { label: 'Bank', value: bank },
      { label: 'Client profile', value: input.target.profile },
      { label: 'Client id', value: input.clientId, code: true },
      {
        label: 'API version',
        value: `${family.label} ${API_VERSION_ROWS[input.apiVersion].name} (${apiBasePath(family, input.apiVersion)})`,
      },
      { label: 'Built', value: `${input.builtAt} by obflow ${input.obflowVersion}` },
    ],
    apiVersion: input.apiVersion,
    // What the flow does, as the guide says it: the family's API, and whether it moves money (its payment is the
    // sandbox's unless the person points the workspace at a bank on purpose: flow.payments.allowLiveBank).
    family: {
      label: family.label,
      name: family.name,
      readsAccounts: family === API_FAMILIES.accounts,
      movesMoney: family.movesMoney,
      journey: family.journey ?? '',
    },
    // The guide says how to make the workspace of each other version obflow speaks.
    otherVersions: API_VERSIONS.filter((version) => version !== input.apiVersion),
    sandbox: input.target.name === 'sandbox',
    interactive: input.target.consent !== 'headless',
    psu: input.psu,
    clientId: input.clientId,
    flowSvg: new Handlebars.SafeString(flowSvg(steps, origins, originRoles(input.environment))),
    environmentName: input.environment.name,
    // One count on every page: steps as the run plan lists them (the whole-flow collection's folders, which the
    // workspace's run runs in order), checks as newman's assertions of the run that made the report.
    stepCount: steps.length,
    lastRun: input.lastRun === undefined ? false : { ...input.lastRun, passedChecks: input.lastRun.checks - input.lastRun.failedChecks },
    steps,
    rows: certificateRows(input.environment),
    paths: { ...WORKSPACE_PATHS, collection: manifest.collection },
    runner: RUNNER_DIR,
    hasCa,
    includeSecrets: input.includeSecrets,
    asks: asks === undefined ? false : { ...asks, clientSecret: asks.clientSecret ?? false, signingKey: asks.signingKey ?? false },
    // A string literal inside <script>: JSON, with `<` escaped so no `</script>` can close it.
    clientIdJson: new Handlebars.SafeString(JSON.stringify(input.clientId).replace(/</g, '\\u003c')),
    basicHelper: asks?.clientSecret?.sets.includes('basicToken') === true ? new Handlebars.SafeString(basicCredentialsSource()) : false,
    hasReport: input.reportHtml !== undefined,
  });
  const files: WorkspaceFile[] = [
    { path: 'index.html', contents: guide },
    { path: WORKSPACE_PATHS.manifest, contents: `${JSON.stringify(manifest, null, 2)}\n` },
    { path: WORKSPACE_PATHS.environment, contents: `${JSON.stringify(environment, null, 2)}\n`, secret: input.includeSecrets },
    ...input.collections.map((file) => ({ path: `collections/${file.fileName}`, contents: file.json })),
    {
      path: WORKSPACE_PATHS.cert,
      contents: `${[input.transport.certPem, ...input.transport.chainPem].map((pem) => pem.trim()).join('\n')}\n`,
    },
    ...(hasCa ? [{ path: WORKSPACE_PATHS.ca, contents: `${input.serverCaPem.map((pem) => pem.trim()).join('\n')}\n` }] : []),
    ...(input.includeSecrets ? [{ path: WORKSPACE_PATHS.key, contents: `${input.transport.keyPem.trim()}\n`, secret: true }] : []),
    ...(input.reportHtml !== undefined ? [{ path: WORKSPACE_PATHS.report, contents: input.reportHtml }] : []),
    ...COPIED_FILES.map((name) => ({
      path: copiedPath(name),
      contents: input.templates.copied[name] ?? '',
      ...(name.endsWith('.sh') || name.endsWith('.cmd') ? { executable: true } : {}),
    })),
  ];
  for (const file of files) if (file.contents === '') throw new TypeError(`empty workspace file ${file.path}`);
  return files;
}
