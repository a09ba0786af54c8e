// Pure merge of everything a run needs into one Postman environment (docs/bank-interface.md §2.5/§4.2): the bank's helper
// file, obflow's flow variables, addresses from discovery and local overrides — deterministic and newman-safe.

import { createHash } from 'node:crypto';
import { SECRET_VARIABLE_KEYS } from '../generate/variables.js';

/** One entry of a Postman environment file as the app exports it (Postman v2.1 environment). */
export interface PostmanEnvironmentValue {
  key: string;
  value: string;
  type: 'default' | 'secret';
  enabled: boolean;
}

export interface PostmanEnvironment {
  id: string;
  name: string;
  values: PostmanEnvironmentValue[];
  _postman_variable_scope: 'environment';
}

/** A bank file entry as it may arrive: other value types, `type: "text"`/`"any"`, `enabled` or `disabled` flags. */
export interface RawEnvironmentValue {
  key?: unknown;
  value?: unknown;
  type?: unknown;
  enabled?: unknown;
  disabled?: unknown;
}

/** Keys whose values are secrets even if a layer forgot to say so (client secret, Basic credentials, tokens, codes). */
export const SECRET_KEY_PATTERN =
  /(secret|password|passphrase|private_?key|signing_?key|client_?assertion|basicToken|access_?token|refresh_?token|id_?token|auth_?code|^code$)/i;

/** The one rule for what is a secret: the collections' variable contract says so, or the name is a secret's name. */
export function isSecretKey(key: string): boolean {
  return SECRET_VARIABLE_KEYS.has(key) || SECRET_KEY_PATTERN.test(key);
}

/** Environment values in their one order: by key. */
export function sortValues<T extends { key: string }>(values: T[]): T[] {
  return values.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

export interface MergeEnvironmentInput {
  /** Environment name, e.g. `obflow sandbox strict-headless`; the id derives from it. */
  name: string;
  /** Layer 1 (lowest): obflow's flow variables with their initial values (src/generate/variables.ts). */
  flow?: Readonly<Record<string, string>>;
  /** Layer 2: the bank's helper environment (parsed JSON as downloaded). */
  bank?: { values?: readonly RawEnvironmentValue[] } | undefined;
  /** Layer 3: addresses read from the live discovery document (§4.3). */
  discovery?: Readonly<Record<string, string>>;
  /** Layer 4 (highest): local overrides from config or flags; `undefined` never overrides. */
  overrides?: Readonly<Record<string, string | undefined>>;
  /** Keys that are secrets by contract (the generator's contract marks them). */
  secretKeys?: readonly string[];
}

/** A stable UUID-shaped id derived from the name (RFC 4122 layout, version nibble 5), never random. */
export function environmentIdOf(name: string): string {
  const hex = createHash('sha1').update(`obflow:environment:${name}`).digest('hex');
  const variant = ((parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16).padStart(2, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}

function stringValue(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * Precedence, lowest to highest: flow defaults < bank file < discovery < overrides. Why: flow values are only
 * initial values; the bank knows its client's values; discovery is the live source for the bank's addresses (a helper
 * file can be stale); overrides are what the user explicitly asked for. Entries the bank file marks `enabled: false`
 * or `disabled: true` are dropped (newman 6 would still substitute `enabled: false` ones —
 * docs/pipeline.md#newman-findings). A key is typed `secret` if any layer says so, the contract lists it, or its name
 * is a secret's name.
 */
export function mergeEnvironment(input: MergeEnvironmentInput): PostmanEnvironment {
  const merged = new Map<string, string>();
  const secret = new Set<string>(input.secretKeys ?? []);

  for (const [key, value] of Object.entries(input.flow ?? {})) merged.set(key, value);
  for (const entry of input.bank?.values ?? []) {
    if (typeof entry.key !== 'string' || entry.key === '') continue;
    if (entry.enabled === false || entry.disabled === true) continue;
    merged.set(entry.key, stringValue(entry.value));
    if (entry.type === 'secret') secret.add(entry.key);
  }
  for (const [key, value] of Object.entries(input.discovery ?? {})) merged.set(key, value);
  for (const [key, value] of Object.entries(input.overrides ?? {})) if (value !== undefined) merged.set(key, value);

  const values = [...merged.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]): PostmanEnvironmentValue => ({
      key,
      value,
      type: secret.has(key) || isSecretKey(key) ? 'secret' : 'default',
      enabled: true,
    }));
  return { id: environmentIdOf(input.name), name: input.name, values, _postman_variable_scope: 'environment' };
}

/** 2-space JSON, keys in a fixed order, trailing newline: byte-identical for the same input. */
export function serializeEnvironment(environment: PostmanEnvironment): string {
  const ordered = {
    id: environment.id,
    name: environment.name,
    values: environment.values.map((entry) => ({ key: entry.key, value: entry.value, type: entry.type, enabled: entry.enabled })),
    _postman_variable_scope: environment._postman_variable_scope,
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** Reads one value (undefined when absent). */
export function environmentValue(environment: Pick<PostmanEnvironment, 'values'>, key: string): string | undefined {
  return environment.values.find((entry) => entry.key === key)?.value;
}

/** Sets one value in a copy (keeps the order sorted by key; new keys typed by name). */
export function withEnvironmentValues(environment: PostmanEnvironment, updates: Readonly<Record<string, string>>): PostmanEnvironment {
  const values = new Map(environment.values.map((entry) => [entry.key, { ...entry }]));
  for (const [key, value] of Object.entries(updates)) {
    const existing = values.get(key);
    // A value that was a secret stays one; a new or updated one is typed by the one rule.
    const secret = existing?.type === 'secret' || isSecretKey(key);
    values.set(key, { key, value, type: secret ? 'secret' : 'default', enabled: existing?.enabled ?? true });
  }
  return { ...environment, values: sortValues([...values.values()]) };
}
