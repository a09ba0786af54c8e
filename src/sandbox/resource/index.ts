// The bank emulator's resource server (AIS v3.1 account-access-consents and reads); minimal seam for wiring first.

import type { ResourceServerDeps, SandboxHandler } from '../contracts.js';

/** Answers every request on the resource origin that startSandbox does not route elsewhere. */
export function createResourceHandler(_deps: ResourceServerDeps): SandboxHandler {
  return async (_req, res, ctx) => {
    res.statusCode = 404;
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('x-fapi-interaction-id', ctx.interactionId);
    res.setHeader('Date', ctx.now().toUTCString());
    res.end();
  };
}
