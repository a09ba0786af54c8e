// flow.par against what the bank's discovery says (RFC 9126 §5): a configuration that cannot work stops
// with a configuration error as soon as discovery is read, before any request of the flow, naming both settings.

import type { ObflowConfig } from '../config/schema.js';
import type { DiscoveryAddresses } from '../bank/discovery.js';
import { ObflowError } from '../errors.js';
import { DEFAULT_FAPI_PROFILE } from '../fapi-profile.js';
import { writeFileAtomic } from '../fs.js';
import { discoveryRecordPath, parForGeneration, type DiscoveryRecord } from './generate.js';

export function assertParSetting(config: ObflowConfig, discovery: DiscoveryAddresses, discoveryUrl: string): void {
  const mismatch = parMismatch(config, discovery, discoveryUrl);
  if (mismatch !== undefined) throw mismatch;
}

/** The disagreement of flow.par with discovery, as the error assertParSetting throws (doctor lists it). */
export function parMismatch(config: ObflowConfig, discovery: DiscoveryAddresses, discoveryUrl: string): ObflowError | undefined {
  // "auto" follows what this very discovery says (the generate stage reads it back from recordDiscovery's file).
  const pushes = parForGeneration(config, discovery.require_pushed_authorization_requests === true);
  const setting = `flow.par "${config.flow.par}"`;
  if (pushes && discovery.pushed_authorization_request_endpoint === undefined) {
    // A profile that always pushes (FAPI 2.0) does so whatever flow.par says (auto): the setting to change is the
    // profile, not flow.par.
    const { fapi } = config.flow;
    const byProfile = fapi.par === 'always';
    return new ObflowError(
      'ERR_PAR_UNAVAILABLE',
      `${byProfile ? fapi.setting : setting} pushes authorization requests, but the bank's discovery (${discoveryUrl}) has no pushed_authorization_request_endpoint`,
      {
        hint: byProfile
          ? `This bank offers no pushed authorization requests, which the profile requires (${fapi.clause.par}): set flow.fapi to "${DEFAULT_FAPI_PROFILE}" for it.`
          : 'Set flow.par to "never" (or "auto") for this bank: it does not offer pushed authorization requests (RFC 9126 §5).',
      },
    );
  }
  if (!pushes && discovery.require_pushed_authorization_requests === true) {
    return new ObflowError(
      'ERR_PAR_UNAVAILABLE',
      `the bank's discovery (${discoveryUrl}) says require_pushed_authorization_requests: true, but ${setting} does not push them`,
      {
        hint: 'Set flow.par to "auto" (which follows the discovery) or "always", then `obflow generate` again (PAR with PKCE S256, RFC 9126).',
      },
    );
  }
  return undefined;
}

/** Records what the target's discovery requires, so the offline generate stage can follow it (flow.par "auto"). */
export async function recordDiscovery(config: ObflowConfig, discovery: DiscoveryAddresses): Promise<void> {
  const record: DiscoveryRecord = {
    version: 1,
    target: config.target,
    ...(config.target === 'bank' && config.bank?.auth_url !== undefined ? { auth_url: config.bank.auth_url } : {}),
    require_pushed_authorization_requests: discovery.require_pushed_authorization_requests === true,
  };
  await writeFileAtomic(discoveryRecordPath(config.stateDir), `${JSON.stringify(record, null, 2)}\n`);
}
