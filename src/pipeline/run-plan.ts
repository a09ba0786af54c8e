// The run plan of a session, in one module: which steps run (the collections, the consent step the target's consent
// mode asks for — browser, manual or none — and the id_token checks after the consent and the code exchange), the
// environment with the flow inputs this run was given, and what newman presents and trusts (the certificate list, a
// PEM copy of a legacy PFX, the bank's CA). runStage (src/pipeline/run.ts) runs it. The flow inputs are the rows
// of src/generate/variables.ts's INPUT_VARIABLES that name a `flow` key: one table, read here.

import { API_FAMILIES, type ApiFamily } from '../api-families.js';
import type { ObflowConfig } from '../config/schema.js';
import { environmentValue, withEnvironmentValues, type PostmanEnvironment } from '../environment/index.js';
import { ObflowError } from '../errors.js';
import { INPUT_VARIABLES, type FlowInputKey } from '../generate/variables.js';
import type { IdentityPaths } from '../pki/types.js';
import { browserConsentStep, spkiPinOf } from '../run/consent/browser.js';
import { manualConsentStep } from '../run/consent/manual.js';
import { browserConsentOptions } from '../run/consent/settings.js';
import { idTokenStep, jsonOver, jwksCache } from '../run/id-token.js';
import {
  bankOriginsOf,
  buildRunPlan,
  buildSslClientCertList,
  readStepCollections,
  writeCaBundle,
  writeSslClientCertList,
  type RunStep,
  type SslClientCert,
} from '../run/index.js';
import { stateLayout } from '../state/layout.js';
import type { Session } from './session.js';
import { writeTransportCopy } from './transport-copy.js';
import { collectionsDirOf } from './generate.js';
import { sandboxPsuUser } from './target.js';
import { familyInputs } from './family-inputs.js';

type FlowSession = Pick<Session, 'config' | 'target' | 'overrides'>;

/** Each flow input's value for the session, by the `flow` key it comes from (consent mode from the target, which
 *  resolves `auto`). A Record over every key variables.ts names: a new input without a value does not compile. */
const FLOW_VALUES: Record<FlowInputKey, (session: FlowSession) => string | undefined> = {
  responseType: (session) => session.config.flow.responseType,
  consent: (session) => (session.target.consent === 'headless' ? 'headless' : 'interactive'),
  psuUser: (session) => session.config.flow.psuUser,
  maxPages: (session) => String(session.config.flow.maxPages),
};

/** The flow inputs, one row each: the variable, the `flow` key (and flag) it comes from, its value. */
const FLOW_INPUTS = INPUT_VARIABLES.flatMap((variable) =>
  variable.flow === undefined ? [] : [{ key: variable.key, from: variable.flow, value: FLOW_VALUES[variable.flow] }],
) satisfies readonly { from: keyof ObflowConfig['flow'] }[];

/** What the config and flags ask for, as environment values. */
export function flowInputs(session: FlowSession): Record<string, string | undefined> {
  return Object.fromEntries(FLOW_INPUTS.map((input) => [input.key, input.value(session)]));
}

/** Only the inputs the command's flags set (session.overrides.flow): those win over a saved environment's values. */
export function givenFlowInputs(session: FlowSession): Record<string, string> {
  const given: Record<string, string> = {};
  for (const input of FLOW_INPUTS) {
    const value = input.value(session);
    if (session.overrides.flow?.[input.from] !== undefined && value !== undefined) given[input.key] = value;
  }
  return given;
}

export interface RunPlan {
  steps: RunStep[];
  environment: PostmanEnvironment;
  sslClientCertList: SslClientCert[];
  /** The bank's CA as one PEM file (newman `sslExtraCaCerts`), when the target names one. */
  caBundle?: string;
  /** Removes what the plan wrote that must not outlive the run (a legacy PFX's decrypted key); call it when the run ends. */
  release: () => Promise<void>;
}

/** The plan of one run of the session: steps, environment, certificate list and CA (written to the run folder). */
export async function planRun(
  session: Session,
  options: {
    environment: PostmanEnvironment;
    select?: string;
    collections?: Record<string, object>;
    collectionStepsOnly?: boolean;
    /** The API family whose steps run (default accounts, the only row so far: src/api-families.ts). */
    family?: ApiFamily;
  },
): Promise<RunPlan> {
  const { config, target } = session;
  const state = stateLayout(config.stateDir);
  // Flow inputs given for this run (flags) win over what `obflow environment` saved (config values were applied there);
  // the families' inputs (the payment, the funds checks, signing) are the config's now, whatever was saved.
  const environment = withEnvironmentValues(options.environment, { ...familyInputs(config), ...givenFlowInputs(session) });
  const origins = bankOriginsOf(environment.values);
  if (origins.length === 0) {
    // A hand-edited or truncated file: without a bank address there is nothing to present the certificate to.
    throw new ObflowError('ERR_FILE_UNREADABLE', 'the environment names no https bank address (rs, issuer, tokenEndpoint, …)', {
      hint: 'Run `obflow environment` again to rewrite it.',
    });
  }
  // Only the steps this run needs: `run accounts` must not fail on another step's missing file.
  const family = options.family ?? API_FAMILIES.accounts;
  const wanted =
    options.select === undefined || options.select === 'all' ? family.steps : family.steps.filter((name) => name === options.select);
  const collections =
    options.collections ?? (await readStepCollections(collectionsDirOf(config.output.collections, config.flow.apiVersion, family), wanted));
  const consentStep =
    target.consent === 'browser' ? await browserConsent(session) : target.consent === 'manual' ? await manualConsent(session) : undefined;
  const steps: RunStep[] = buildRunPlan({
    stepNames: family.steps,
    collections,
    ...(options.select !== undefined ? { select: options.select } : {}),
    ...(consentStep ? { consentStep } : {}),
    localAfter: options.collectionStepsOnly === true ? [] : idTokenSteps(session, environmentValue(environment, 'response_type')),
  });
  const newman = await newmanTransport(session);
  try {
    const sslClientCertList = buildSslClientCertList({ origins, transport: newman.transport });
    const caBundle = target.serverCaPem.length > 0 ? await writeCaBundle(state.runFile('target-ca.pem'), target.serverCaPem) : undefined;
    await writeSslClientCertList(state.runFile('ssl-client-cert-list.json'), sslClientCertList);
    return { steps, environment, sslClientCertList, ...(caBundle !== undefined ? { caBundle } : {}), release: newman.remove };
  } catch (error) {
    await newman.remove();
    throw error;
  }
}

/**
 * What newman reads the transport certificate from. A PFX in a legacy encoding (RC2-40, `openssl pkcs12 -legacy`) is
 * one Node 20's OpenSSL 3 cannot open, so newman would fail on it: hand newman a PEM copy in the run's temporary
 * folder (src/pipeline/transport-copy.ts), removed when the run ends and on interrupt.
 */
async function newmanTransport(session: Session): Promise<{ transport: IdentityPaths['transport']; remove: () => Promise<void> }> {
  const { transport } = session;
  if (transport.pfx === undefined || transport.pfx.nodeTlsReadable)
    return { transport: session.identity.transport, remove: async () => {} };
  return writeTransportCopy(transport);
}

/** The id_token checks FAPI requires of the client (src/run/id-token.ts): after the PSU consent and after the code
 *  exchange, with the bank's keys fetched once per run through the session's mutual-TLS dispatcher. The one after the
 *  consent belongs to the hybrid flow only (`code id_token`: the authorization response's detached signature, OIDC Core
 *  §3.3.2.5): with `code` (JARM, FAPI 2.0) there is no front-channel id_token, so the step is not in the plan — a step
 *  that can never run is neither passed nor skipped, and `--no-skips` must not refuse a flow for what it cannot have.
 *  `responseType` is what this run's environment sends (the saved value, or a flag's): the config may have changed
 *  since `obflow environment` wrote it, and the step must follow what the bank is actually asked for. */
export function idTokenSteps(
  session: Pick<Session, 'dispatcher' | 'now'>,
  responseType: string | undefined,
): { after: string; step: RunStep }[] {
  // The dispatcher is read at the first fetch, not here: a plan that never checks an id_token never loads undici.
  const keys = jwksCache((url) => jsonOver(session.dispatcher)(url));
  // As the collection reads it (psu-consent.prerequest): no response_type is the hybrid default.
  const hybrid = (responseType ?? '').trim() !== 'code';
  return [
    ...(hybrid ? [{ after: 'psu-consent', step: idTokenStep({ source: 'authorization', keys, now: session.now }) }] : []),
    { after: 'code-exchange', step: idTokenStep({ source: 'token', keys, now: session.now }) },
  ];
}

/** Whether the consent's redirect must carry iss (RFC 9207 §2.4): where the profile says so (FAPI 2.0), and wherever the bank's discovery
 *  says authorization_response_iss_parameter_supported (a client "MUST reject" a response without it there). */
export async function issRequired(session: Pick<Session, 'config' | 'discovery'>): Promise<boolean> {
  if (session.config.flow.fapi.issRequired) return true;
  return (await session.discovery()).authorization_response_iss_parameter_supported === true;
}

async function manualConsent(session: Session): Promise<RunStep> {
  return manualConsentStep({ ask: session.ask, requireIss: await issRequired(session) });
}

async function browserConsent(session: Session): Promise<RunStep> {
  // The embedded sandbox's PSU is a public test user; a bank's script reads its PSU from the environment or a secret file.
  const sandboxUser = session.config.target === 'sandbox' ? sandboxPsuUser(session.config) : undefined;
  const options = await browserConsentOptions(session.config.flow.browser, { sandboxUser, env: session.env });
  return browserConsentStep({
    ...options,
    trustedSpki: session.target.serverCaPem.map(spkiPinOf),
    ignoreHttpsErrors: session.target.insecure,
    requireIss: await issRequired(session),
    ...(session.onInterrupt === undefined ? {} : { onInterrupt: session.onInterrupt }),
    log: session.log,
  });
}
