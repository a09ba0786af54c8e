// Every setting that shapes the stored registration or the saved environment, compared with what the config asks now,
// one row per setting: a changed `bank.token_endpoint_auth_method` (or request object alg, FAPI profile, redirect URI,
// response type, …) is named before the first request (ERR_ENVIRONMENT_STALE), never run on with the old value from
// the saved files — a run that passes with a setting obflow did not use tests something else than the config says.
// Which settings are compared, and why the rest need not be: docs/pipeline.md, "What a run compares".

import { createHash, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { PostmanEnvironment } from '../environment/index.js';
import { ObflowError } from '../errors.js';
import { INPUT_VARIABLES } from '../generate/variables.js';
import { readSigningKey } from '../pki/verify.js';
import {
  authMethodOf,
  profileOfRegistration,
  registeredScopeLacks,
  scopeForFamilies,
  subjectDnOf,
  type StoredRegistration,
} from '../registration/index.js';
import { FAMILY_LIST, familiesOf, familyScope } from '../api-families.js';
import { tokenAuthSetting } from './register.js';
import { flowInputs, givenFlowInputs } from './run-plan.js';
import type { Session } from './session.js';

export type SettingsSession = Pick<Session, 'config' | 'overrides' | 'target' | 'identity' | 'transport' | 'statement'>;

interface Compared {
  session: SettingsSession;
  registration: StoredRegistration;
  /** The saved environment's value of a key ('' and absent alike: not recorded). */
  saved: (key: string) => string | undefined;
  /** The saved value as written, '' included (a flow input's empty value is a value: no login_hint); absent: undefined. */
  written: (key: string) => string | undefined;
  signingKey: () => Promise<KeyObject>;
}

/** One setting: what the config asks now and what the stored registration or saved environment was made with;
 *  undefined when the row does not apply (`auto`, a value the file does not record). */
interface SettingRow {
  setting: string;
  madeBy: 'registration' | 'environment';
  values: (compared: Compared) => Promise<{ asked: string; made: string } | undefined> | { asked: string; made: string } | undefined;
  /** Default: the two differ. */
  stale?: (asked: string, made: string) => boolean;
  /** How the message shows the two values and the setting's value that fits what was made, when the compared values
   *  are not the setting's own (default: as compared, and `made` is the value to set back). */
  said?: (asked: string, made: string, compared: Compared) => { asked: string; made: string; back: string };
  /** The flag of `run` that gives the value for one run (the flow inputs). */
  flag?: string;
}

const registeredList = (registration: StoredRegistration, field: string): string[] | undefined => {
  const value = registration.metadata[field];
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : undefined;
};

/** A client stored with `register --client-id` (registered elsewhere): obflow knows only what the config said then. */
const external = (registration: StoredRegistration): boolean => registration.metadata.external === true;

/** A comma-separated list as the message shows it. */
const listed = (values: readonly string[]): string => values.join(', ');

/** What a registration is made of (docs/bank-interface.md §2.1 claims; RFC 7591 §2 metadata), compared with the config. */
const REGISTRATION_ROWS: readonly SettingRow[] = [
  {
    setting: 'bank.token_endpoint_auth_method',
    madeBy: 'registration',
    // `auto` follows the bank's list when the client is registered: the stored method is what it chose.
    values: ({ session, registration }) => {
      const asked = tokenAuthSetting(session.config);
      return asked === 'auto' ? undefined : { asked, made: authMethodOf(registration) };
    },
  },
  {
    setting: 'flow.request_object_signing_alg',
    madeBy: 'registration',
    values: ({ session, registration }) => ({
      asked: session.config.flow.request_object_signing_alg,
      made: registration.request_object_signing_alg ?? 'none',
    }),
  },
  {
    setting: 'flow.fapi',
    madeBy: 'registration',
    // FAPI 2.0 registers response_types ["code"] only; a client stored from elsewhere records no profile.
    values: ({ session, registration }) =>
      external(registration) ? undefined : { asked: session.config.flow.fapi.name, made: profileOfRegistration(registration).name },
  },
  {
    setting: 'bank.tls_client_auth_subject_dn',
    madeBy: 'registration',
    // RFC 8705 §2.1.2: the bank matches the presented certificate's subject with the registered DN.
    values: ({ session, registration }) => {
      const made = registration.metadata.tls_client_auth_subject_dn;
      if (authMethodOf(registration) !== 'tls_client_auth' || typeof made !== 'string') return undefined;
      return { asked: session.config.bank?.tls_client_auth_subject_dn ?? subjectDnOf(session.transport.certPem), made };
    },
  },
  {
    setting: 'identity.redirectUris',
    madeBy: 'registration',
    // The consent's redirect_uri must be one registered (docs/bank-interface.md §2.1, OIDC Core §3.1.2.1).
    values: ({ session, registration }) => {
      const made = registeredList(registration, 'redirect_uris');
      const asked =
        session.identity.redirectUris.length > 0 ? session.identity.redirectUris : (session.statement.claims.software_redirect_uris ?? []);
      return made === undefined || asked.length === 0 ? undefined : { asked: listed(asked), made: listed(made) };
    },
    stale: (asked, made) => asked.split(', ').some((uri) => !made.split(', ').includes(uri)),
  },
  {
    setting: 'flow.apis',
    madeBy: 'registration',
    // Each family's token needs its scope (OB R/W Data API Profile, "Scopes & Grant Types"): a client registered for
    // fewer families is refused their tokens. The registration response's `scope` (RFC 7591 §3.2.1) says what it has; a
    // client stored from elsewhere whose response names none is not compared.
    values: ({ session, registration }) => {
      const granted = registration.metadata.scope;
      if (typeof granted !== 'string') return undefined;
      return { asked: scopeForFamilies(familiesOf(session.config.flow.apis)), made: granted };
    },
    stale: (asked, made) => registeredScopeLacks({ metadata: { client_id: '', scope: made } }, asked) !== undefined,
    // Compared as scopes, said as families: the setting's value is a list of families, and several share a scope
    // (payments and vrp: "payments"), so the families that fit the registration are each family its scope covers.
    said: (asked, made, { session }) => {
      const granted = made.split(/\s+/);
      const covered = FAMILY_LIST.filter((family) => granted.includes(familyScope(family))).map((family) => family.name);
      return {
        asked: `${listed(session.config.flow.apis)} (scope ${asked})`,
        made: `scope ${made}`,
        back: covered.length > 0 ? covered.join(',') : 'families the registration has a scope for',
      };
    },
  },
  {
    setting: 'registration.refresh_token_grant',
    madeBy: 'registration',
    // Asked for and not registered: the bank may issue no refresh token, and the refresh step would be skipped for a
    // reason the config no longer has. Registered and no longer asked for is harmless (the grant is only allowed).
    values: ({ session, registration }) => {
      const grants = registeredList(registration, 'grant_types');
      return grants === undefined
        ? undefined
        : { asked: String(session.config.registration.refresh_token_grant), made: String(grants.includes('refresh_token')) };
    },
    stale: (asked, made) => asked === 'true' && made === 'false',
  },
];

const kebab = (name: string): string => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

/** What the saved environment was made with beyond the registration (which checkEnvironmentTarget ties it to). */
const ENVIRONMENT_ROWS: readonly SettingRow[] = [
  // The flow inputs (src/generate/variables.ts rows with a `flow` key): `obflow environment` wrote the config's values;
  // a flag of `run` gives another for one run (run-plan.ts givenFlowInputs), the config's changed value is refused.
  ...INPUT_VARIABLES.flatMap((variable): SettingRow[] => {
    const from = variable.flow;
    if (from === undefined) return [];
    return [
      {
        setting: `flow.${from}`,
        madeBy: 'environment',
        flag: `--${kebab(from)}`,
        values: ({ session, written }) => {
          const made = written(variable.key);
          if (made === undefined || Object.hasOwn(givenFlowInputs(session), variable.key)) return undefined;
          return { asked: flowInputs(session)[variable.key] ?? variable.default, made };
        },
      },
    ];
  }),
  {
    setting: 'bank.token_url',
    madeBy: 'environment',
    values: ({ session, saved }) => {
      const made = saved('tokenEndpoint');
      return session.target.tokenUrl === undefined || made === undefined ? undefined : { asked: session.target.tokenUrl, made };
    },
  },
  {
    setting: 'identity.signing.kid',
    madeBy: 'environment',
    values: ({ session, saved }) => {
      const made = saved('signing_kid');
      return made === undefined ? undefined : { asked: session.identity.signing.kid, made };
    },
  },
  {
    setting: 'identity.signing.key',
    madeBy: 'environment',
    // The collections sign with the environment's copy of the key (signing_key): it must be the identity's key now.
    // A key is shown by its public key's SHA-256 (over the SPKI), never by its value.
    values: async ({ saved, signingKey }) => {
      const made = saved('signing_key');
      if (made === undefined) return undefined;
      let savedKey: string;
      try {
        savedKey = thumbprintOf(createPublicKey({ key: JSON.parse(made) as JsonWebKey, format: 'jwk' }));
      } catch {
        savedKey = 'a key that cannot be read';
      }
      return { asked: thumbprintOf(await signingKey()), made: savedKey };
    },
  },
];

/** "the key SHA-256 ab12…" of a key's public part: enough to tell two keys apart in one line. */
function thumbprintOf(key: KeyObject): string {
  const spki = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'der', type: 'spki' });
  return `the key with SPKI SHA-256 ${createHash('sha256').update(spki).digest('hex').slice(0, 16)}…`;
}

/** An empty value (no login_hint) shown as one. */
const shown = (value: string): string => (value === '' ? '(none)' : value);

function staleError(row: SettingRow, askedValue: string, madeValue: string, compared: Compared): ObflowError {
  const { registration } = compared;
  const said = row.said?.(askedValue, madeValue, compared);
  const asked = said?.asked ?? shown(askedValue);
  const made = said?.made ?? shown(madeValue);
  const back = said?.back ?? made;
  if (row.madeBy === 'registration') {
    const hint = external(registration)
      ? `The client was registered elsewhere (\`obflow register --client-id\`) with ${made}: store the client registered with ` +
        `${asked} (\`obflow register --client-id <its id> --force\`; in CI the TPP_CLIENT_ID_… secret, docs/ci.md), then run ` +
        `\`obflow environment\`; or set ${row.setting} back to ${back}.`
      : `Register again for it (\`obflow register --force\`), then run \`obflow environment\`; or set ${row.setting} back to ${back}.`;
    return new ObflowError(
      'ERR_ENVIRONMENT_STALE',
      `${row.setting} is ${asked}, but the stored registration (client ${registration.client_id}) was made with ${made}; nothing was sent`,
      { hint },
    );
  }
  const message = `${row.setting} is ${asked}, but the saved environment was made with ${made}; nothing was sent`;
  return new ObflowError('ERR_ENVIRONMENT_STALE', message, {
    hint:
      'Run `obflow environment` again (it writes what the config asks)' +
      (row.flag === undefined ? '.' : `, or give the value to \`run\` for this run (${row.flag}).`),
  });
}

async function checkRows(rows: readonly SettingRow[], compared: Compared): Promise<void> {
  for (const row of rows) {
    const values = await row.values(compared);
    if (values === undefined) continue;
    const stale = row.stale ?? ((asked: string, made: string) => asked !== made);
    if (stale(values.asked, values.made)) throw staleError(row, values.asked, values.made, compared);
  }
}

function comparedOf(
  session: SettingsSession,
  registration: StoredRegistration,
  environment?: Pick<PostmanEnvironment, 'values'>,
): Compared {
  const values = new Map((environment?.values ?? []).map((entry) => [entry.key, entry.value]));
  let key: Promise<KeyObject> | undefined;
  return {
    session,
    registration,
    saved: (name) => {
      const value = values.get(name);
      return typeof value === 'string' && value !== '' ? value : undefined;
    },
    written: (name) => values.get(name),
    signingKey: () => (key ??= readSigningKey(session.identity.signing.key)),
  };
}

/** The stored registration against the config (`obflow environment` and `run`): ERR_ENVIRONMENT_STALE naming the
 *  setting and both values. */
export async function checkRegistrationSettings(session: SettingsSession, registration: StoredRegistration): Promise<void> {
  await checkRows(REGISTRATION_ROWS, comparedOf(session, registration));
}

/** The registration, then the saved environment, against the config (`run`, before its first request). */
export async function checkSavedSettings(
  session: SettingsSession,
  registration: StoredRegistration,
  environment: Pick<PostmanEnvironment, 'values'>,
): Promise<void> {
  const compared = comparedOf(session, registration, environment);
  await checkRows(REGISTRATION_ROWS, compared);
  await checkRows(ENVIRONMENT_ROWS, compared);
}

/** The settings compared, by what was made with them (docs/pipeline.md is held to this list by a test). */
export const COMPARED_SETTINGS: Readonly<Record<'registration' | 'environment', readonly string[]>> = {
  registration: REGISTRATION_ROWS.map((row) => row.setting),
  environment: ENVIRONMENT_ROWS.map((row) => row.setting),
};
