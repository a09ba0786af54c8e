// What a command's flags override, typed like the config: the command builds it once from its flags (src/cli/flags.ts)
// and hands it to the config loader (flags over file and OBFLOW_*) and to the session (flow inputs given for this run).

import type { ApiVersion } from '../generate/api-versions.js';
import type { FapiProfileName } from '../fapi-profile.js';
import type { BankConfig, ObflowConfig } from './schema.js';

export interface ConfigOverrides {
  stateDir?: string;
  sandbox?: Partial<Pick<ObflowConfig['sandbox'], 'profile' | 'seed' | 'resourcePort' | 'authPort' | 'apiVersions' | 'fapi'>>;
  bank?: Partial<Pick<BankConfig, 'token_endpoint_auth_method'>>;
  /** flow.fapi is the profile's name here; the config resolves it to the row. */
  flow?: Partial<Omit<ObflowConfig['flow'], 'browser' | 'fapi'>> & {
    fapi?: FapiProfileName;
    browser?: Partial<ObflowConfig['flow']['browser']>;
  };
  output?: Partial<ObflowConfig['output']>;
}

export interface Overrides extends ConfigOverrides {
  /** --insecure: do not verify the bank's server certificate for this command (self-signed sandboxes only). */
  insecure?: boolean;
  /** --api-version: one version (then it is flow.apiVersion), or several (`run` and `demo` run the flow once each). */
  apiVersions?: ApiVersion[];
}

/** The config layer of the overrides (without the session-only ones such as `insecure`). */
export function configOverrides(overrides: Overrides): ConfigOverrides {
  const { insecure: _insecure, apiVersions, ...config } = overrides;
  if (apiVersions?.length === 1) return { ...config, flow: { ...config.flow, apiVersion: apiVersions[0] as ApiVersion } };
  return config;
}
