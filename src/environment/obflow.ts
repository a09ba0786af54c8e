// obflow's layers for the merge: the generator's variable contract (initial values, secret keys) and the discovery
// addresses under the contract's names (issuer, authEndpoint, tokenEndpoint, configEndpoint — generate/variables.ts).

import { DEFAULT_API_FAMILIES } from '../api-families.js';
import { SECRET_VARIABLE_KEYS, variablesOf } from '../generate/variables.js';
import type { DiscoveryAddresses } from '../bank/discovery.js';
import { mergeEnvironment, type MergeEnvironmentInput, type PostmanEnvironment } from './merge.js';

/** The contract's initial values (bank variables default to '' so a missing one is visible, not undefined), of the
 *  variables a flow over these API families has (default: the account flow's). */
export function flowDefaults(families: readonly string[] = DEFAULT_API_FAMILIES): Record<string, string> {
  return Object.fromEntries(variablesOf(families).map((spec) => [spec.key, spec.default]));
}

/** Discovery document fields (OIDC Discovery §3) under the contract's variable names. */
export function discoveryVariables(addresses: DiscoveryAddresses, discoveryUrl: string): Record<string, string> {
  return {
    issuer: addresses.issuer,
    authEndpoint: addresses.authorization_endpoint,
    tokenEndpoint: addresses.token_endpoint,
    configEndpoint: discoveryUrl,
    ...(addresses.jwks_uri !== undefined ? { jwksUri: addresses.jwks_uri } : {}),
  };
}

export interface BuildObflowEnvironmentInput {
  name: string;
  bank: MergeEnvironmentInput['bank'];
  discovery?: { addresses: DiscoveryAddresses; url: string };
  overrides?: Readonly<Record<string, string | undefined>>;
  /** The API families of the flow (flow.apis): their variables are in it (default: the account flow's). */
  families?: readonly string[];
}

/** The environment `obflow environment` writes: contract defaults < bank file < discovery < overrides. */
export function buildObflowEnvironment(input: BuildObflowEnvironmentInput): PostmanEnvironment {
  return mergeEnvironment({
    name: input.name,
    flow: flowDefaults(input.families),
    bank: input.bank,
    ...(input.discovery !== undefined ? { discovery: discoveryVariables(input.discovery.addresses, input.discovery.url) } : {}),
    ...(input.overrides !== undefined ? { overrides: input.overrides } : {}),
    secretKeys: [...SECRET_VARIABLE_KEYS],
  });
}
