// A second bank for the tests, written by nobody here: panva's oidc-provider configured as a UK open-banking
// authorisation server over mutual TLS, with this folder's small glue for what it lacks (DCR v3.2 JWT body, the
// environment helper, a minimal AIS v3.1 resource side, headless consent). It imports nothing from src/, so nothing
// from the emulator (test/unit/architecture.test.ts holds it to that). Started on port 0 like the emulator.

import { X509Certificate } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { exportJWK, generateKeyPair, type JSONWebKeySet } from 'jose';
import { errors, Provider, type KoaContext } from 'oidc-provider';

import { registrationMiddleware, REGISTRATION_PATH, subjectDnOf } from './registration.js';
import { unsignedRequestObjectMiddleware } from './request-object.js';
import { Consents, resourceMiddleware, PSU } from './resource.js';

/** `sandbox`: unsigned request objects accepted (docs/bank-interface.md §5.2); `strict`: PS256 only (FAPI 1 Advanced
 *  §5.2.2-1, the request object is signed). */
export type OidcBankProfile = 'sandbox' | 'strict';

export interface OidcBankOptions {
  profile: OidcBankProfile;
  /** The bank's server certificate and key (PEM) and the CAs that issue TPP transport certificates. */
  tls: { cert: string; key: string; clientCa: string[] };
  /** The trust directory's keys, which sign software statements. */
  directoryJwks: JSONWebKeySet;
}

export interface OidcBank {
  /** issuer = {auth_url} = {sandbox_base_url}: one origin serves the authorisation and the resource side. */
  url: string;
  log: string[];
  /** Every token and code issued (opaque: the value is the jti), for the tests' secret scans. */
  issued: string[];
  close(): Promise<void>;
}

/** OB Security Profile acr values (the request object asks for them as essential). */
export const ACR_SCA = 'urn:openbanking:psd2:sca';

function peerCertificate(ctx: KoaContext): X509Certificate | undefined {
  const raw = (ctx.req.socket as TLSSocket).getPeerCertificate(false).raw as Buffer | undefined;
  return raw === undefined ? undefined : new X509Certificate(raw);
}

export async function startOidcBank(options: OidcBankOptions): Promise<OidcBank> {
  const sockets = new Set<Socket>();
  const server = createServer({ cert: options.tls.cert, key: options.tls.key, ca: options.tls.clientCa, requestCert: true });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const log: string[] = [];
  const consents = new Consents();
  const { privateKey } = await generateKeyPair('PS256', { extractable: true });
  const signing = { ...(await exportJWK(privateKey)), kid: 'oidc-bank-ps256', use: 'sig', alg: 'PS256' };

  const provider = new Provider(url, {
    jwks: { keys: [signing] },
    cookies: { keys: ['oidc-bank-test-cookie-key'] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, ClientCredentials: 600, Grant: 3600, IdToken: 600, RefreshToken: 3600, Session: 3600 },
    routes: { registration: REGISTRATION_PATH },
    responseTypes: ['code id_token', 'code'],
    scopes: ['openid', 'accounts'],
    claims: { openid: ['sub'], acr: null, openbanking_intent_id: null },
    acrValues: [ACR_SCA, 'urn:openbanking:psd2:ca'],
    // FAPI 1 Advanced §5.2.2-14 allows only tls_client_auth and private_key_jwt; the sandbox adds client_secret_basic
    // (docs/bank-interface.md §5.2).
    clientAuthMethods: [...(options.profile === 'sandbox' ? ['client_secret_basic'] : []), 'private_key_jwt', 'tls_client_auth'],
    enabledJWA: {
      idTokenSigningAlgValues: ['PS256'],
      requestObjectSigningAlgValues: ['PS256'],
      clientAuthSigningAlgValues: ['PS256'],
    },
    clientDefaults: { id_token_signed_response_alg: 'PS256', token_endpoint_auth_method: 'client_secret_basic' },
    features: {
      devInteractions: { enabled: false },
      // FAPI 1 Advanced (the OB Security Profile): s_hash in the front-channel id_token, nonce required, request object
      // exp/nbf/aud, and `code` only with JARM (§5.2.2-2). The sandbox applies it to hybrid requests and lets a plain
      // `code` request through (docs/bank-interface.md §5.3 lists `code`), as the emulator does.
      fapi: {
        enabled: true,
        profile: (ctx: KoaContext) =>
          options.profile === 'strict' || String(ctx.oidc.params?.response_type ?? '').includes('id_token') ? '1.0 Final' : undefined,
      },
      clientCredentials: { enabled: true },
      claimsParameter: { enabled: true },
      registration: { enabled: true, initialAccessToken: false },
      requestObjects: { enabled: true, requireSignedRequestObject: options.profile === 'strict' },
      mTLS: {
        enabled: true,
        certificateBoundAccessTokens: true,
        tlsClientAuth: true,
        getCertificate: (ctx: KoaContext) => peerCertificate(ctx)?.toString(),
        certificateAuthorized: (ctx: KoaContext) => (ctx.req.socket as TLSSocket).authorized,
        // RFC 8705 §2.1.2: the registered subject DN, compared as registration.ts wrote it.
        certificateSubjectMatches: (ctx: KoaContext, property: string, expected: string) =>
          property === 'tls_client_auth_subject_dn' && [peerCertificate(ctx)].some((cert) => cert && subjectDnOf(cert) === expected),
      },
    },
    // OBIE banks issue a refresh token to a client registered for the grant, without the offline_access scope that
    // oidc-provider's default asks for (OIDC Core §11 makes offline_access one way, not the only one).
    issueRefreshToken: (_ctx: unknown, client: { grantTypeAllowed(grant: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    findAccount: (_ctx: unknown, sub: string) => ({
      accountId: sub,
      // The id_token carries the consent the request object asked for; loadExistingGrant checked it is this client's.
      claims: (_use: string, _scope: string, claims: Record<string, { value?: unknown } | null> | undefined) => ({
        sub,
        ...(typeof claims?.openbanking_intent_id?.value === 'string' ? { openbanking_intent_id: claims.openbanking_intent_id.value } : {}),
      }),
    }),
    // Headless consent, step 1: every authorisation request logs the fixed test PSU in with SCA (extraParams
    // validators run on every authorisation request, before the session's account is loaded).
    extraParams: {
      ob_headless: (ctx: KoaContext) => {
        if (ctx.oidc.route === 'authorization') ctx.oidc.session.loginAccount({ accountId: PSU, acr: ACR_SCA, amr: ['pwd', 'otp'] });
      },
    },
    // Step 2: the PSU authorises the consent named by openbanking_intent_id, granting every account, and the grant
    // covers what was asked, so the authorisation endpoint redirects at once (no interaction pages).
    loadExistingGrant: async (ctx: KoaContext) => {
      const requested = ctx.oidc.claims.id_token?.openbanking_intent_id?.value;
      const clientId = ctx.oidc.client?.clientId ?? '';
      if (typeof requested !== 'string' || !consents.authorisable(requested, clientId)) {
        throw new errors.AccessDenied('openbanking_intent_id names no consent of this client awaiting authorisation');
      }
      const grant = new provider.Grant({ accountId: PSU, clientId });
      grant.addOIDCScope('openid accounts');
      grant.addOIDCClaims(['openbanking_intent_id', 'acr']);
      await grant.save();
      consents.authorise(requested, grant.jti);
      return grant;
    },
  });
  provider.on('server_error', (_ctx, error) => log.push(`server_error ${String(error)}`));
  const issued: string[] = [];
  for (const model of ['access_token', 'client_credentials', 'refresh_token', 'authorization_code']) {
    provider.on(`${model}.saved`, (token) => issued.push((token as { jti: string }).jti));
  }
  provider.on('grant.success', (ctx) => log.push(`grant ${String((ctx as KoaContext).oidc.params.grant_type)}`));
  provider.use(async (ctx, next) => {
    await next();
    log.push(`${ctx.method} ${ctx.path}${ctx.status === 404 ? ' → 404' : ''}`);
  });
  provider.use(registrationMiddleware({ profile: options.profile, directoryJwks: options.directoryJwks, issuer: url }));
  if (options.profile === 'sandbox') provider.use(unsignedRequestObjectMiddleware);
  provider.use(resourceMiddleware({ provider, consents, url, peerCertificate }));
  server.on('request', provider.callback());

  return {
    url,
    log,
    issued,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
