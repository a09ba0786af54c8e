// What `obflow run` checks before its first request, so stale or wrong state is named instead of
// run on: the saved environment was made for this target and client, and the registration and environment for the
// settings the config names now (src/pipeline/saved-settings.ts), the transport certificate is valid now, the
// consent mode is one the profile can do, and a single step's inputs from earlier steps are in the environment.

import type { PostmanEnvironment } from '../environment/index.js';
import { ObflowError } from '../errors.js';
import { API_FAMILIES, type ApiFamily } from '../api-families.js';
import { WRITTEN_VARIABLES, writersOf } from '../generate/variables.js';
import { verifyValidity } from '../pki/verify.js';
import { authMethodOf, type StoredRegistration } from '../registration/index.js';
import { checkBrowserReady } from './browser-check.js';
import { originOf } from '../run/origin.js';
import { readStepCollections } from '../run/index.js';
import { collectionsDirOf } from './generate.js';
import { checkSavedSettings } from './saved-settings.js';
import type { Session } from './session.js';
import type { Target } from './target.js';

export interface RunCheckOptions {
  environment: PostmanEnvironment;
  select?: string;
  collections?: Readonly<Record<string, object>>;
  /** The API family whose steps run (default accounts). */
  family?: ApiFamily;
}

/** Every check, cheapest first; nothing has been sent when one throws. */
export async function checkBeforeRun(session: Session, options: RunCheckOptions, registration: StoredRegistration): Promise<void> {
  checkConsentMode(session.target);
  await checkBrowserReady(session);
  // A certificate out of its validity window makes the bank's TLS or token endpoint refuse the client (a 401 that
  // reads like a registration problem): `doctor` and `register` name it, and so does `run`, before any request.
  verifyValidity(session.transport.x509, session.now(), 'the transport certificate');
  checkEnvironmentTarget(options.environment, session.target, registration);
  // A setting changed since `register` or `environment` (the auth method, the FAPI profile, the response type, …).
  await checkSavedSettings(session, registration, options.environment);
  const family: ApiFamily = options.family ?? API_FAMILIES.accounts;
  checkSigningMaterial(family, options.environment);
  const select = options.select ?? 'all';
  if (select !== 'all' && family.steps.includes(select)) {
    // The collections of the version this run speaks (v4.0's in collections/v4.0/, src/pipeline/generate.ts).
    const dir = collectionsDirOf(session.config.output.collections, session.config.flow.apiVersion, family);
    const collections = options.collections ?? (await readAvailableCollections(dir, family.steps));
    checkStepPrerequisites(select, options.environment, collections, family.steps);
  }
}

/**
 * A family that signs its requests (src/api-families.ts signsMessages) runs on an environment with the signing key
 * and the statement's ids (src/pipeline/client-values.ts): one written for flow.apis without it (before payments was
 * listed) would fail at the first signature. Named before any request: ERR_ENVIRONMENT_STALE.
 */
export function checkSigningMaterial(family: ApiFamily, environment: Pick<PostmanEnvironment, 'values'>): void {
  if (!family.signsMessages) return;
  const empty = ['signing_key', 'signing_kid', 'orgId', 'softwareId'].filter(
    (key) => (environment.values.find((entry) => entry.key === key)?.value ?? '') === '',
  );
  if (empty.length === 0) return;
  throw new ObflowError(
    'ERR_ENVIRONMENT_STALE',
    `flow.apis has ${family.name}, whose requests are signed, but the saved environment has no ${empty.join(', ')} (it was written for other API families); nothing was sent`,
    { hint: 'Run `obflow environment` again: it writes the signing key and the statement ids for flow.apis.' },
  );
}

/**
 * The saved environment must be the one made for what the session runs with: after `obflow sandbox` restarts on new
 * ports (or the config points at another bank) the file still carries the old addresses, and newman would call them —
 * a refused connection or, worse, another server. First the origins (scheme, host, port): `rs` with the target's
 * resource server, `issuer` and `configEndpoint` with its `{auth_url}`; for the sandbox also `tokenEndpoint` (a real
 * bank may serve its token endpoint from another host, RFC 8705 §5 mTLS endpoint aliases). Then what an origin does not
 * show: `configEndpoint` with its path (another `bank.auth_url` path on the same host: a typo, or another profile), and,
 * given the stored registration, the client (`register --client-id` or `register --force` since) and how it
 * authenticates. Throws ERR_ENVIRONMENT_STALE.
 */
export function checkEnvironmentTarget(
  environment: Pick<PostmanEnvironment, 'values'>,
  target: Pick<Target, 'name' | 'profile' | 'resourceBaseUrl' | 'authUrl'> & Partial<Pick<Target, 'discoveryUrl'>>,
  registration?: Pick<StoredRegistration, 'client_id' | 'token_endpoint_auth_method' | 'request_object_signing_alg'>,
): void {
  const expected: [string, string | undefined][] = [
    ['rs', originOf(target.resourceBaseUrl)],
    ['issuer', originOf(target.authUrl)],
    ['configEndpoint', originOf(target.authUrl)],
    ...(target.name === 'sandbox' ? [['tokenEndpoint', originOf(target.authUrl)] as [string, string | undefined]] : []),
  ];
  const values = new Map(environment.values.map((entry) => [entry.key, entry.value]));
  const saved = (key: string): string | undefined => {
    const value = values.get(key);
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  const stale = (what: string, hint: string): ObflowError =>
    new ObflowError('ERR_ENVIRONMENT_STALE', what, { hint: `${hint}: run \`obflow environment\` again.` });
  for (const [key, want] of expected) {
    const value = saved(key);
    if (want === undefined || value === undefined) continue;
    const have = originOf(value);
    if (have !== want) {
      throw stale(
        `the saved environment's ${key} is ${have ?? value}, but the ${target.name} target (${target.profile}) is at ${want}`,
        'The bank moved (e.g. `obflow sandbox` restarted on new ports)',
      );
    }
  }
  const discovery = saved('configEndpoint');
  if (target.discoveryUrl !== undefined && discovery !== undefined && discovery !== target.discoveryUrl) {
    throw stale(
      `the saved environment was made for ${discovery}, but the ${target.name} target (${target.profile}) is at ${target.discoveryUrl}`,
      'The config names another address now (bank.auth_url, or another profile on the same host)',
    );
  }
  if (registration === undefined) return;
  const client: [string, string, string][] = [
    ['_clientId', registration.client_id, 'client'],
    ['token_endpoint_auth_method', authMethodOf(registration), 'token endpoint authentication'],
    ['request_object_signing_alg', registration.request_object_signing_alg ?? 'none', 'request object signing'],
  ];
  for (const [key, want, what] of client) {
    const value = saved(key);
    if (value !== undefined && value !== want) {
      throw stale(
        `the saved environment was made for ${what} ${value}, but the stored registration has ${want}`,
        'The client changed since (`obflow register --client-id` or `--force`)',
      );
    }
  }
}

/**
 * The embedded sandbox's profiles consent one way each (src/sandbox/contracts.ts): a headless profile redirects with
 * the code at once, an interactive one shows its login and consent pages. Browser or manual consent at a headless
 * profile (or headless at an interactive one) can only fail deep in the run, blaming the bank: a usage error here.
 * A real bank's profiles are not known to obflow, so its consent mode is the user's word.
 */
export function checkConsentMode(target: Pick<Target, 'name' | 'profile' | 'consent'>): void {
  if (target.name !== 'sandbox') return;
  const interactive = target.profile.endsWith('-interactive');
  if (interactive === (target.consent !== 'headless')) return;
  const can = interactive ? 'browser or manual' : 'headless';
  throw new ObflowError(
    'ERR_USAGE',
    `the sandbox's ${target.profile} profile cannot do ${target.consent} consent (it consents ${interactive ? 'on its login and consent pages' : 'with one redirect, no pages'})`,
    {
      hint:
        `Use --consent ${can === 'headless' ? 'headless' : 'browser (or manual)'} or auto with ${target.profile}, ` +
        `or a${interactive ? ' headless' : 'n interactive'} profile (--profile ${interactive ? 'strict-headless' : 'strict-interactive'}).`,
    },
  );
}

/** The collections of the flow that exist (a single step's run needs only its own; the others say who writes what). */
async function readAvailableCollections(dir: string, steps: readonly string[]): Promise<Record<string, object>> {
  const collections: Record<string, object> = {};
  for (const name of steps) {
    try {
      Object.assign(collections, await readStepCollections(dir, [name]));
    } catch {
      // A missing or broken collection of another step: planRun reports the selected step's own.
    }
  }
  return collections;
}

/** How a step's collection uses each written variable (every family's: src/generate/variables.ts WRITTEN_VARIABLES):
 *  `{{key}}` in a request or a script, or `pm.environment.get('key')` in a script (quoted as the JSON file has it). */
const STATE_USES = WRITTEN_VARIABLES.map(({ key }) => ({
  key,
  placeholder: `{{${key}}}`,
  read: new RegExp(`get\\((?:\\\\)?['"]${key}(?:\\\\)?['"]\\)`),
}));

/** The state variables a step's requests use (`{{access_token}}`, `{{payment_self_url}}`), and those its scripts read
 *  that some step's request uses (`consent_id` for the consent URL): what the step cannot do without. */
function stateReads(collection: object): { requests: Set<string>; scripts: Set<string> } {
  const requests = new Set<string>();
  const scripts = new Set<string>();
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (record.request !== undefined) {
      const text = JSON.stringify(record.request);
      for (const use of STATE_USES) if (text.includes(use.placeholder)) requests.add(use.key);
    }
    if (record.event !== undefined) {
      const text = JSON.stringify(record.event);
      for (const use of STATE_USES) if (text.includes(use.placeholder) || use.read.test(text)) scripts.add(use.key);
    }
    if (record.item !== undefined) walk(record.item);
  };
  walk(collection);
  return { requests, scripts };
}

/** For each step: the state it needs that only earlier steps write, and the first of those steps for each (in the
 *  family's step order, default the account flow's). */
export function stepPrerequisites(
  collections: Readonly<Record<string, object>>,
  steps: readonly string[] = API_FAMILIES.accounts.steps,
): Map<string, Map<string, string>> {
  const reads = new Map(Object.entries(collections).map(([name, collection]) => [name, stateReads(collection)]));
  const carried = new Set([...reads.values()].flatMap((read) => [...read.requests]));
  const needs = new Map<string, Map<string, string>>();
  for (const [step, read] of reads) {
    const own = new Map<string, string>();
    for (const key of [...read.requests, ...[...read.scripts].filter((key) => carried.has(key))]) {
      const writers = writersOf(key);
      // A step that writes the value itself (the paging loop's cursor, refresh's own token) does not need it first.
      if (writers.includes(step)) continue;
      const writer = steps.find((name) => writers.includes(name));
      if (writer !== undefined && steps.indexOf(writer) < steps.indexOf(step)) own.set(key, writer);
    }
    needs.set(step, own);
  }
  return needs;
}

/**
 * `obflow run <step>` on its own reads what earlier steps wrote into the saved environment. After `obflow environment`
 * was run again (or a run stopped early) those values are empty, and the step would fail at the bank (a 401 that
 * blames the registration). Names the step to run first — the earliest one whose own inputs are there — before
 * anything is sent. → ERR_STEP_PREREQUISITE.
 */
export function checkStepPrerequisites(
  select: string,
  environment: Pick<PostmanEnvironment, 'values'>,
  collections: Readonly<Record<string, object>>,
  steps: readonly string[] = API_FAMILIES.accounts.steps,
): void {
  const values = new Map(environment.values.map((entry) => [entry.key, entry.value]));
  const empty = (key: string) => {
    const value = values.get(key);
    return typeof value !== 'string' || value === '';
  };
  const needs = stepPrerequisites(collections, steps);
  const missingOf = (step: string) => [...(needs.get(step) ?? new Map<string, string>())].filter(([key]) => empty(key));
  const missing = missingOf(select);
  if (missing.length === 0) return;
  // Walk back to the first step that can run now: its own inputs are all there.
  let first = missing[0]?.[1] ?? select;
  for (let guard = 0; guard < steps.length; guard += 1) {
    const earlier = missingOf(first)[0];
    if (earlier === undefined) break;
    first = earlier[1];
  }
  const keys = missing.map(([key]) => key);
  const writers = [...new Set(missing.map(([, writer]) => writer))];
  const last = steps[steps.indexOf(select) - 1];
  const which = first === last ? `\`obflow run ${first}\`` : `the steps from \`obflow run ${first}\` to \`obflow run ${last}\``;
  throw new ObflowError(
    'ERR_STEP_PREREQUISITE',
    `step ${select} needs ${keys.join(', ')} from ${writers.join(', ')}, and the saved environment has none (\`obflow environment\` was run again, or an earlier run stopped); nothing was sent`,
    { hint: `Run ${which} first, or \`obflow run all\`.` },
  );
}
