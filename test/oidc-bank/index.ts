// A second bank for the tests, written by nobody here: panva's oidc-provider configured as a UK open-banking
// authorisation server over mutual TLS, with this folder's glue for what it lacks. It imports nothing from src/
// (test/unit/architecture.test.ts). What it gives, what the glue adds and why: docs/notes.md, "proven against oidc-provider".

import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { exportJWK, generateKeyPair, type JSONWebKeySet } from 'jose';
import { errors, Provider, type KoaContext } from 'oidc-provider';

import { peerCertificate, peerSubjectDn, registrationMiddleware, REGISTRATION_PATH } from './registration.js';
import { unsignedRequestObjectMiddleware } from './request-object.js';
import { resourceMiddleware, stamp, PSU, type Consents } from './resource.js';

/** `sandbox`: unsigned request objects too (docs/bank-interface.md §5.2); `strict`: PS256 only (FAPI 1 Advanced §5.2.2-1);
 *  `fapi2`: oidc-provider's FAPI 2.0 profile: PAR required, PKCE, `code` only, iss in responses (RFC 9207),
 *  client assertions with aud = the issuer, private_key_jwt or tls_client_auth, PS256 request objects. */
export type OidcBankProfile = 'sandbox' | 'strict' | 'fapi2';

export interface OidcBankOptions {
  profile: OidcBankProfile;
  /** The bank's server certificate and key (PEM) and the CAs that issue TPP transport certificates. */
  tls: { cert: string; key: string; clientCa: string[] };
  /** The trust directory's keys, which sign software statements. */
  directoryJwks: JSONWebKeySet;
  /** RFC 9126 §5 require_pushed_authorization_requests; PAR itself is always offered (oidc-provider's default). */
  requirePar?: boolean;
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
const ACR_SCA = 'urn:openbanking:psd2:sca';

export async function startOidcBank({ profile, tls, directoryJwks, requirePar = false }: OidcBankOptions): Promise<OidcBank> {
  const server = createServer({ cert: tls.cert, key: tls.key, ca: tls.clientCa, requestCert: true });
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => sockets.add(socket.on('close', () => sockets.delete(socket))));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const [log, issued, consents]: [string[], string[], Consents] = [[], [], new Map()];
  const { privateKey } = await generateKeyPair('PS256', { extractable: true });
  const signing = { ...(await exportJWK(privateKey)), kid: 'oidc-bank-ps256', use: 'sig', alg: 'PS256' };
  // FAPI 1.0 Final (s_hash, nonce, request object exp/nbf/aud, `code` only with JARM, FAPI 1 Advanced §5.2.2-2): strict
  // applies it to every request, the sandbox to hybrid ones only (docs/bank-interface.md §5.3 lists plain `code`).
  const fapi = (ctx: KoaContext) =>
    profile === 'fapi2' ? '2.0' : profile === 'strict' || /id_token/.test(String(ctx.oidc.params?.response_type)) ? '1.0 Final' : undefined;

  const provider = new Provider(url, {
    jwks: { keys: [signing] },
    cookies: { keys: ['oidc-bank-test-cookie-key'] },
    ttl: { AccessToken: 600, AuthorizationCode: 60, ClientCredentials: 600, Grant: 3600, IdToken: 600, RefreshToken: 3600, Session: 3600 },
    routes: { registration: REGISTRATION_PATH },
    // FAPI 2.0: `code` only (a registration asking for `code id_token` is refused).
    responseTypes: profile === 'fapi2' ? ['code'] : ['code id_token', 'code'],
    scopes: ['openid', 'accounts'],
    claims: { openid: ['sub'], acr: null, openbanking_intent_id: null },
    acrValues: [ACR_SCA, 'urn:openbanking:psd2:ca'],
    // FAPI 1 Advanced §5.2.2-14: tls_client_auth and private_key_jwt; the sandbox adds client_secret_basic (§5.2 of the interface).
    clientAuthMethods: [...(profile === 'sandbox' ? ['client_secret_basic'] : []), 'private_key_jwt', 'tls_client_auth'],
    enabledJWA: {
      idTokenSigningAlgValues: ['PS256'],
      requestObjectSigningAlgValues: ['PS256'],
      clientAuthSigningAlgValues: ['PS256'],
      authorizationSigningAlgValues: ['PS256'],
    },
    clientDefaults: {
      id_token_signed_response_alg: 'PS256',
      token_endpoint_auth_method: 'client_secret_basic',
      // JARM responses: PS256, as FAPI 1 Advanced §8.6 allows.
      authorization_signed_response_alg: 'PS256',
    },
    features: {
      devInteractions: { enabled: false },
      fapi: { enabled: true, profile: fapi },
      clientCredentials: { enabled: true },
      pushedAuthorizationRequests: { enabled: true, requirePushedAuthorizationRequests: requirePar || profile === 'fapi2' },
      // JARM (response_mode=jwt), which FAPI 1 Advanced requires for plain `code` (§5.2.2-2).
      jwtResponseModes: { enabled: true },
      claimsParameter: { enabled: true },
      registration: { enabled: true, initialAccessToken: false },
      requestObjects: { enabled: true, requireSignedRequestObject: profile !== 'sandbox' },
      mTLS: {
        enabled: true,
        certificateBoundAccessTokens: true,
        tlsClientAuth: true,
        getCertificate: (ctx: KoaContext) => peerCertificate(ctx)?.toString(),
        certificateAuthorized: (ctx: KoaContext) => (ctx.req.socket as TLSSocket).authorized,
        // RFC 8705 §2.1.2: the registered subject DN, in the RFC 4514 order registration.ts writes.
        certificateSubjectMatches: (ctx: KoaContext, property: string, expected: string) =>
          property === 'tls_client_auth_subject_dn' && peerSubjectDn(ctx) === expected,
      },
    },
    // A refresh token for a client registered for the grant, as OBIE banks do (OIDC Core §11's offline_access is not needed).
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
    // Step 2: the PSU authorises the consent named by openbanking_intent_id, granting every account; the grant covers
    // what was asked, so the authorisation endpoint redirects at once (no interaction pages).
    loadExistingGrant: async (ctx: KoaContext) => {
      const requested = ctx.oidc.claims.id_token?.openbanking_intent_id?.value;
      const clientId = ctx.oidc.client?.clientId ?? '';
      const consent = consents.get(String(requested));
      if (consent?.clientId !== clientId || consent.Data.Status !== 'AwaitingAuthorisation') {
        throw new errors.AccessDenied('openbanking_intent_id names no consent of this client awaiting authorisation');
      }
      const grant = new provider.Grant({ accountId: PSU, clientId });
      grant.addOIDCScope('openid accounts');
      grant.addOIDCClaims(['openbanking_intent_id', 'acr']);
      consent.grantId = await grant.save();
      Object.assign(consent.Data, { Status: 'Authorised', StatusUpdateDateTime: stamp() });
      return grant;
    },
  });
  provider.on('server_error', (_ctx, error) => log.push(`server_error ${String(error)}`));
  for (const model of ['access_token', 'client_credentials', 'refresh_token', 'authorization_code']) {
    provider.on(`${model}.saved`, (token) => issued.push((token as { jti: string }).jti));
  }
  provider.on('grant.success', (ctx) => log.push(`grant ${String((ctx as KoaContext).oidc.params.grant_type)}`));
  provider.use(async (ctx, next) => {
    await next();
    log.push(`${ctx.method} ${ctx.path}${ctx.status === 404 ? ' → 404' : ''}`);
  });
  provider.use(registrationMiddleware(profile === 'sandbox' ? 'sandbox' : 'strict', directoryJwks, url));
  if (profile === 'sandbox') provider.use(unsignedRequestObjectMiddleware);
  provider.use(resourceMiddleware(provider, consents, url));
  server.on('request', provider.callback());
  const close = () => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url, log, issued, close };
}
