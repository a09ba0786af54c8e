// Loads the config: file < OBFLOW_* environment < flags (undefined never overrides). Relative paths resolve from
// the config file's folder for file values and from the working directory for environment and flag values.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import type { z } from 'zod';
import { ObflowError } from '../errors.js';
import { applyBankPreset } from './presets.js';
import { configJsonSchema, configSchema } from './schema.js';
import { closestName, didYouMean } from './suggest.js';
import type { ObflowConfig } from './schema.js';

export const DEFAULT_CONFIG_FILE = 'obflow.config.json';
const ENV_PREFIX = 'OBFLOW_';

type Layer = Record<string, unknown>;

export interface LoadConfigOptions {
  cwd: string;
  env: Record<string, string | undefined>;
  /** --config; else OBFLOW_CONFIG; else ./obflow.config.json when it exists; else defaults only. */
  configFile?: string | undefined;
  /** Flag values as a partial config (dotted keys already nested); undefined leaves are ignored. */
  flags?: Layer;
  /** Check that every file the config names exists (default true). */
  checkFiles?: boolean;
}

export interface LoadedConfig {
  config: ObflowConfig;
  /** Absolute path of the file read, if any. */
  configFile: string | undefined;
}

export function loadConfig(options: LoadConfigOptions): LoadedConfig {
  const configFile = locateConfigFile(options);
  const fileLayer = configFile ? resolvePaths(readConfigFile(configFile), dirname(configFile)) : {};
  const envLayer = resolvePaths(readEnvironment(options.env), options.cwd);
  const flagLayer = resolvePaths(options.flags ?? {}, options.cwd);
  const merged = mergeLayers(mergeLayers(fileLayer, envLayer), flagLayer);
  checkIdentityLayer(merged, envLayer);
  // Defaults that are paths resolve from the config file's folder (or cwd), like any other relative path.
  const baseDir = configFile ? dirname(configFile) : options.cwd;
  const config = resolveDefaults(parseConfig(merged, configFile ?? 'configuration'), baseDir);
  if (options.checkFiles !== false) checkFilesExist(config);
  return { config, configFile };
}

/** Every leaf an identity needs, as the config names it (`transport` is a PEM pair or a PFX, src/config/schema.ts). */
const IDENTITY_LEAVES = [
  'softwareStatement',
  'transport.cert',
  'transport.key',
  'signing.key',
  'signing.kid',
  'directoryRoots',
  'directoryIssuing',
  'directoryJwks',
] as const;

/** The dotted keys of a layer's identity that are set, each as the user set it: OBFLOW_… when the environment did. */
function identityKeysSet(identity: Layer, envLayer: Layer): string[] {
  const set: string[] = [];
  const walk = (node: Layer, path: string[]): void => {
    for (const [key, value] of Object.entries(node)) {
      if (value === undefined) continue;
      if (isPlainObject(value)) walk(value, [...path, key]);
      else {
        const segments = ['identity', ...path, key];
        set.push(getPath(envLayer, segments) === undefined ? segments.join('.') : ENV_PREFIX + segments.map(toEnvSegment).join('__'));
      }
    }
  };
  walk(identity, []);
  return set;
}

/**
 * An identity the run would not use, or could not: refused with one line before anything reads a file.
 * - `target: sandbox` uses the local test identity (`obflow init`, `.obflow/identity/`): the embedded emulator trusts
 *   only the local test directory that issued it (its CAs verify the client certificate, its JWKS the statement), so a
 *   directory-issued identity cannot register there, and checking or presenting it there would test something else
 *   than the config says (docs/pipeline.md, "The session and the state folder").
 * - an identity is every file the directory issued or none: a partial one names the keys missing, not the schema's
 *   words for each (README, "A real bank").
 */
function checkIdentityLayer(merged: Layer, envLayer: Layer): void {
  const identity = merged.identity;
  if (!isPlainObject(identity)) return;
  const set = identityKeysSet(identity, envLayer);
  if (set.length === 0) return;
  const target = merged.target ?? 'sandbox';
  if (target === 'sandbox') {
    throw new ObflowError(
      'ERR_CONFIG_INVALID',
      `identity is set (${set.join(', ')}), but target is "sandbox": the embedded emulator trusts only the local test directory and ` +
        'registers the local test identity it issued (`obflow init`, .obflow/identity/), so this identity would not be used',
      {
        hint:
          'To use your own identity, set target to "bank" with the bank\'s addresses (README, "A real bank"); for the embedded ' +
          "sandbox, unset the identity (the OBFLOW_IDENTITY__* variables, or the config's identity section).",
      },
    );
  }
  const pfx = getPath(identity, ['transport', 'pfx']) !== undefined;
  const missing = IDENTITY_LEAVES.filter((leaf) => !(pfx && leaf.startsWith('transport.')))
    .filter((leaf) => getPath(identity, leaf.split('.')) === undefined)
    .map((leaf) => `identity.${leaf}`);
  if (missing.length === 0) return;
  throw new ObflowError(
    'ERR_CONFIG_INVALID',
    `identity is incomplete: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing (${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set)`,
    {
      hint:
        `Set ${missing.length === 1 ? 'it' : 'each'} (${missing.map((key) => ENV_PREFIX + key.split('.').map(toEnvSegment).join('__')).join(', ')}, ` +
        "or in the config's identity section): an identity is the statement, the transport certificate and key (or a PFX), the " +
        'signing key and kid, and the directory\'s root and issuing CAs and JWKS (README, "A real bank").',
    },
  );
}

/** Every problem of a layer in one coded error: one line, the problems in order, each naming its key path (a user
 *  fixing a file wants all of them at once, not one per run). */
function configProblems(source: string, problems: readonly string[], hint: string): ObflowError {
  const listed = problems.length === 1 ? (problems[0] ?? '') : `${problems.length} problems: ${problems.join('; ')}`;
  return new ObflowError('ERR_CONFIG_INVALID', `${source}: ${listed}`, { hint });
}

/** Validates a merged raw config; every problem is listed, each with its dotted path, in one ERR_CONFIG_INVALID. */
export function parseConfig(raw: unknown, source: string): ObflowConfig {
  // A bank preset fills the keys the layers leave unset (src/config/presets.ts), before defaults and validation.
  const result = configSchema.safeParse(applyBankPreset(raw));
  if (result.success) return result.data;
  const issues = result.error.issues as z.core.$ZodIssue[];
  const problems = issues.flatMap((issue) => {
    const where = dotted(issue.path);
    if (issue.code === 'unrecognized_keys') {
      // The keys known where this one is, across both spellings: `flow.response_type` → `flow.responseType`.
      const known = keysAt(issue.path.map(String));
      const dottedKey = (key: string) => [where, key].filter(Boolean).join('.');
      return issue.keys.map((key) => {
        const near = closestName(key, known);
        return `unknown key ${dottedKey(key)}${near === undefined ? '' : ` (did you mean ${dottedKey(near)}?)`}`;
      });
    }
    return [`${where || '(root)'} ${issue.message}`];
  });
  const unknown = issues.some((issue) => issue.code === 'unrecognized_keys');
  const values = issues.some((issue) => issue.code !== 'unrecognized_keys');
  const hint = [
    unknown ? 'Remove each unknown key or fix its spelling.' : '',
    values ? 'Fix each value named.' : '',
    'obflow.config.schema.json describes every key.',
  ];
  throw configProblems(source, problems, hint.filter(Boolean).join(' '));
}

/** The keys the JSON Schema allows at a path of the config (through unions such as `identity.transport`). */
function keysAt(path: readonly string[]): string[] {
  const keys = new Set<string>();
  const walk = (node: unknown, rest: readonly string[]): void => {
    if (!isPlainObject(node)) return;
    for (const variant of [node.anyOf, node.oneOf].flatMap((list) => (Array.isArray(list) ? list : []))) walk(variant, rest);
    if (!isPlainObject(node.properties)) return;
    if (rest.length === 0) {
      for (const key of Object.keys(node.properties)) if (key !== '$schema') keys.add(key);
      return;
    }
    walk(node.properties[rest[0] ?? ''], rest.slice(1));
  };
  walk(configJsonSchema(), path);
  return [...keys];
}

function locateConfigFile(options: LoadConfigOptions): string | undefined {
  const named = options.configFile ?? options.env.OBFLOW_CONFIG;
  if (named !== undefined && named !== '') {
    const file = resolve(options.cwd, named);
    if (!existsSync(file)) {
      throw new ObflowError('ERR_CONFIG_NOT_FOUND', `config file ${file} does not exist`, {
        hint: 'Check the path, or leave out --config to use the embedded sandbox.',
      });
    }
    return file;
  }
  const implicit = resolve(options.cwd, DEFAULT_CONFIG_FILE);
  return existsSync(implicit) ? implicit : undefined;
}

function readConfigFile(file: string): Layer {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (cause) {
    // A folder, no read permission, an I/O error: say which, not "not valid JSON".
    throw new ObflowError('ERR_FILE_UNREADABLE', `config file ${file} cannot be read (${(cause as Error).message})`, {
      hint: '--config (or OBFLOW_CONFIG, or ./obflow.config.json) must name a readable JSON file.',
      cause,
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new ObflowError('ERR_CONFIG_INVALID', `${file}:${jsonErrorPlace(text, cause)} is not valid JSON (${jsonErrorReason(cause)})`, {
      hint: 'Fix the JSON syntax (an editor with obflow.config.schema.json helps).',
      cause,
    });
  }
  if (!isPlainObject(parsed)) {
    throw new ObflowError('ERR_CONFIG_INVALID', `${file}: (root) must be a JSON object`, { hint: 'Start the file with {.' });
  }
  return parsed;
}

/** `line:column` (1-based) of a JSON.parse error: from its position (any Node.js), or the end of the text when the
 *  text ended too early (a truncated file: "Unexpected end of JSON input" has no position). */
export function jsonErrorPlace(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const at = /position (\d+)/.exec(message);
  const offset = at !== null ? Math.min(Number(at[1]), text.length) : text.length;
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1) + 1;
  return `${line}:${column}`;
}

/** The parser's own words without its position (which the place gives in lines and columns). */
function jsonErrorReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s*(?:in JSON )?at position \d+(?: \(line \d+ column \d+\))?/, '').replace(/^SyntaxError: /, '');
}

// ---- OBFLOW_* environment: OBFLOW_<SEGMENT>__<SEGMENT>, each segment the key in UPPER_SNAKE_CASE ----------------

interface LeafInfo {
  path: string[];
  type: 'string' | 'number' | 'boolean' | 'array';
}

let leafCache: Map<string, LeafInfo> | undefined;

/** Every settable leaf of the schema, by its environment variable name. */
export function environmentVariables(): Map<string, LeafInfo> {
  if (leafCache) return leafCache;
  const leaves = new Map<string, LeafInfo>();
  const walk = (node: unknown, path: string[]): void => {
    if (!isPlainObject(node)) return;
    const variants = (node.anyOf ?? node.oneOf) as unknown[] | undefined;
    if (Array.isArray(variants)) {
      for (const variant of variants) walk(variant, path);
      return;
    }
    if (node.type === 'object' && isPlainObject(node.properties)) {
      for (const [key, child] of Object.entries(node.properties)) if (key !== '$schema') walk(child, [...path, key]);
      return;
    }
    const type = node.type === 'integer' ? 'number' : node.type;
    if (type === 'string' || type === 'number' || type === 'boolean' || type === 'array' || Array.isArray(node.enum)) {
      const name = ENV_PREFIX + path.map(toEnvSegment).join('__');
      leaves.set(name, { path, type: Array.isArray(node.enum) ? 'string' : (type as LeafInfo['type']) });
    }
  };
  walk(configJsonSchema(), []);
  leafCache = leaves;
  return leaves;
}

function toEnvSegment(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase();
}

/** OBFLOW_* variables that are not config keys: the CLI's own, the PSU's credentials for a consent script
 *  (docs/pipeline.md), and the test suite's (README, "Two commands"), which a shell that ran the tests may still export. */
const NOT_CONFIG = new Set([
  'OBFLOW_CONFIG',
  'OBFLOW_DEBUG',
  // The process's heap policy (src/cli/heap.ts), read before any config is.
  'OBFLOW_HEAP',
  // Packages used on demand loaded then (src/cli/deferred-requires.ts), read before any config is.
  'OBFLOW_DEFER_REQUIRES',
  'OBFLOW_SPECS_DIR',
  'OBFLOW_REQUIRE_PREREQUISITES',
  'OBFLOW_TEST_CHROMIUM',
  'OBFLOW_TEST_OTHER_NODE',
  'OBFLOW_RUNTIME_CACHE',
  // The native builds kept per runtime (src/sandbox/store/native.ts, tools/native.js).
  'OBFLOW_NATIVE_CACHE',
  'OBFLOW_PSU_USERNAME',
  'OBFLOW_PSU_PASSWORD',
  // A client registered elsewhere (docs/ci.md "Register once"): its id, which the CI recipes pass to
  // `obflow register --client-id "$OBFLOW_CLIENT_ID"`, and its secret, which `register --client-id` reads (never a
  // flag value). Neither is a config key: the stored registration is where obflow keeps a client.
  'OBFLOW_CLIENT_ID',
  'OBFLOW_CLIENT_SECRET',
]);

function readEnvironment(env: Record<string, string | undefined>): Layer {
  const layer: Layer = {};
  // The schema's leaves only when a variable names one (they come from its JSON Schema: ~8 ms of a start without any).
  let known: Map<string, LeafInfo> | undefined;
  const leavesOf = (): Map<string, LeafInfo> => (known ??= environmentVariables());
  const problems: { problem: string; hint: string }[] = [];
  for (const [name, value] of Object.entries(env)) {
    // An empty variable is unset (`OBFLOW_STATE_DIR=` must not mean "this folder").
    if (!name.startsWith(ENV_PREFIX) || NOT_CONFIG.has(name) || value === undefined || value === '') continue;
    const leaves = leavesOf();
    const leaf = leaves.get(name);
    if (!leaf) {
      problems.push({
        problem: `unknown variable ${name}${didYouMean(name, [...leaves.keys(), ...NOT_CONFIG])}`,
        hint: `Unset it, or use one of: ${[...leaves.keys()].slice(0, 6).join(', ')}, … (see the README).`,
      });
      continue;
    }
    const coerced = coerce(name, value, leaf.type);
    if ('problem' in coerced) problems.push(coerced);
    else setPath(layer, leaf.path, coerced.value);
  }
  if (problems.length > 0)
    throw configProblems(
      'environment',
      problems.map((entry) => entry.problem),
      [...new Set(problems.map((entry) => entry.hint))].join(' '),
    );
  return layer;
}

function coerce(name: string, value: string, type: LeafInfo['type']): { value: unknown } | { problem: string; hint: string } {
  const parsed = parseLeaf(value, type);
  if (parsed !== undefined) return parsed;
  return { problem: `${name} must be a ${type}, got "${value}"`, hint: type === 'boolean' ? 'Use true or false.' : `Give a ${type}.` };
}

function parseLeaf(value: string, type: LeafInfo['type']): { value: unknown } | undefined {
  switch (type) {
    case 'string':
      return { value };
    case 'boolean':
      if (value === 'true' || value === '1') return { value: true };
      if (value === 'false' || value === '0') return { value: false };
      return undefined;
    case 'number':
      return /^-?\d+(\.\d+)?$/.test(value) ? { value: Number(value) } : undefined;
    case 'array':
      if (value.trim().startsWith('[')) {
        try {
          return { value: JSON.parse(value) as unknown };
        } catch {
          return undefined;
        }
      }
      return {
        value: value
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean),
      };
  }
}

// ---- paths -------------------------------------------------------------------------------------------------------

/** Dotted paths of every config value that is a file or folder path ('[]' marks arrays of paths). */
const PATH_KEYS = [
  'stateDir',
  'output.collections',
  'output.reports',
  'identity.softwareStatement',
  'identity.transport.cert',
  'identity.transport.key',
  'identity.transport.pfx',
  'identity.signing.key',
  'identity.directoryRoots[]',
  'identity.directoryIssuing[]',
  'identity.directoryJwks',
  'bank.server_ca[]',
  'flow.browser.credentials.file',
] as const;

function resolvePaths(layer: Layer, baseDir: string): Layer {
  const copy = structuredClone(layer);
  for (const key of PATH_KEYS) {
    const isArray = key.endsWith('[]');
    const segments = key.replace('[]', '').split('.');
    const value = getPath(copy, segments);
    if (isArray && Array.isArray(value)) {
      setPath(
        copy,
        segments,
        value.map((item) => (typeof item === 'string' ? absolute(baseDir, item) : item)),
      );
    } else if (typeof value === 'string') {
      setPath(copy, segments, absolute(baseDir, value));
    }
  }
  return copy;
}

function resolveDefaults(config: ObflowConfig, baseDir: string): ObflowConfig {
  return {
    ...config,
    stateDir: absolute(baseDir, config.stateDir),
    output: {
      collections: absolute(baseDir, config.output.collections),
      ...(config.output.reports === undefined ? {} : { reports: absolute(baseDir, config.output.reports) }),
    },
  };
}

/** An empty path stays empty (the schema refuses it), never "this folder". */
function absolute(baseDir: string, path: string): string {
  if (path === '') return path;
  return isAbsolute(path) ? path : resolve(baseDir, path);
}

function checkFilesExist(config: ObflowConfig): void {
  const files: [string, string][] = [];
  const id = config.identity;
  if (id) {
    files.push(
      ['identity.softwareStatement', id.softwareStatement],
      ['identity.signing.key', id.signing.key],
      ['identity.directoryJwks', id.directoryJwks],
    );
    if ('pfx' in id.transport) files.push(['identity.transport.pfx', id.transport.pfx]);
    else files.push(['identity.transport.cert', id.transport.cert], ['identity.transport.key', id.transport.key]);
    id.directoryRoots.forEach((file, i) => files.push([`identity.directoryRoots.${i}`, file]));
    id.directoryIssuing.forEach((file, i) => files.push([`identity.directoryIssuing.${i}`, file]));
  }
  config.bank?.server_ca.forEach((file, i) => files.push([`bank.server_ca.${i}`, file]));
  const missing = files.filter(([, file]) => !existsSync(file)).map(([where, file]) => `${where}: ${file} does not exist`);
  if (missing.length > 0) {
    // Every missing file, each with its key path, the first one first (`identity.signing.key: … does not exist`).
    const count = missing.length > 1 ? ` (${missing.length} files missing)` : '';
    throw new ObflowError('ERR_FILE_MISSING', `${missing.join('; ')}${count}`, {
      hint: `Fix the path${missing.length > 1 ? 's' : ''} (relative paths resolve from the config file folder).`,
    });
  }
}

// ---- small object helpers ------------------------------------------------------------------------------------------

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function getPath(object: Layer, path: readonly string[]): unknown {
  let node: unknown = object;
  for (const key of path) {
    if (!isPlainObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

export function setPath(object: Layer, path: readonly string[], value: unknown): void {
  let node = object;
  path.forEach((key, index) => {
    if (index === path.length - 1) {
      node[key] = value;
      return;
    }
    if (!isPlainObject(node[key])) node[key] = {};
    node = node[key] as Layer;
  });
}

/** Deep merge where later layers win and undefined never overrides; arrays are replaced, not concatenated. */
export function mergeLayers(base: Layer, over: Layer): Layer {
  const out: Layer = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? mergeLayers(out[key], value) : value;
  }
  return out;
}

function dotted(path: readonly PropertyKey[]): string {
  return path.map(String).join('.');
}
