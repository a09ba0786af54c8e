// flow.par against what the bank's discovery says (issue 30, RFC 9126 §5): a configuration that cannot work stops
// with a configuration error as soon as discovery is read, before any request of the flow, naming both settings.

import type { ObflowConfig } from '../config/schema.js';
import type { DiscoveryAddresses } from '../bank/discovery.js';
import { ObflowError } from '../errors.js';
import { parForGeneration } from './generate.js';

export function assertParSetting(config: ObflowConfig, discovery: DiscoveryAddresses, discoveryUrl: string): void {
  const pushes = parForGeneration(config);
  const setting = `flow.par "${config.flow.par}"`;
  if (pushes && discovery.pushed_authorization_request_endpoint === undefined) {
    throw new ObflowError(
      'ERR_PAR_UNAVAILABLE',
      `${setting} pushes authorization requests, but the bank's discovery (${discoveryUrl}) has no pushed_authorization_request_endpoint`,
      { hint: 'Set flow.par to "never" (or "auto") for this bank: it does not offer pushed authorization requests (RFC 9126 §5).' },
    );
  }
  if (!pushes && discovery.require_pushed_authorization_requests === true) {
    throw new ObflowError(
      'ERR_PAR_UNAVAILABLE',
      `the bank's discovery (${discoveryUrl}) says require_pushed_authorization_requests: true, but ${setting} does not push them`,
      {
        hint:
          config.target === 'sandbox'
            ? 'Set flow.par to "always" (or sandbox.par to "required", which "auto" follows), then `obflow generate` again.'
            : 'Set flow.par to "always" for this bank, then `obflow generate` again (PAR with PKCE S256, RFC 9126).',
      },
    );
  }
}
