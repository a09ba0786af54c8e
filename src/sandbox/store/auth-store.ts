// The authorisation side's persistent state in the data directory: registered clients, registration JWT ids (replay
// protection, DCR v3.2), authorisation codes and PSU interactions ("grants"), and access/refresh tokens. Tokens and
// codes are stored under the SHA-256 of their value, so the data directory never holds a usable bearer credential.

import { hash } from 'node:crypto';

import type { AccessTokenInfo, ClientDirectory, ProfileName, SandboxClient, TokenAuthMethod, TokenVerifier } from '../contracts.js';
import { keepAtMost } from '../kept.js';
import type { Collection, CollectionSpec, SandboxDb } from './db.js';

/** A registered client as the bank keeps it (DCR v3.2 metadata plus what the software statement said). */
export interface StoredClient extends Omit<SandboxClient, 'signingKeys'> {
  /** '' for a client whose method has no secret (private_key_jwt, tls_client_auth): it matches nothing. */
  clientSecret: string;
  /** As registered; absent in clients stored before the methods existed: client_secret_basic. */
  tokenEndpointAuthMethod?: TokenAuthMethod;
  /** tls_client_auth: the subject DN the presented certificate must carry (RFC 8705 §2.1.2). */
  tlsClientAuthSubjectDn?: string;
  clientIdIssuedAt: number;
  /** software_client_name of the statement, shown on the consent pages. */
  clientName?: string;
  scopes: string[];
  grantTypes: string[];
  responseTypes: string[];
  requestObjectSigningAlg: 'none' | 'PS256';
  /** The software statement's own keys (software_jwks): verify PS256 request objects. */
  softwareJwks: { keys: Record<string, unknown>[] };
  /** The metadata as accepted, returned again by the 201 response. */
  metadata: Record<string, unknown>;
}

/**
 * A validated authorisation request (RFC 6749 §4.1.1, OIDC Core §3.1.2.1) as the flow carries it: held by a PSU
 * interaction while the PSU is on the pages, completed into a code. The one place this shape is written.
 */
export interface AuthorisationRequestRecord {
  clientId: string;
  redirectUri: string;
  /** RFC 6749 §4.1.3: redirect_uri is required at the token endpoint when it was in the authorisation request. */
  redirectUriInRequest: boolean;
  responseType: 'code' | 'code id_token';
  /** JARM (response_mode=jwt, JARM §2.3): the authorisation response is one signed JWT in `response`. */
  responseMode?: 'jwt';
  state?: string;
  nonce?: string;
  /** RFC 7636 PKCE, when the authorisation request carried a code_challenge. */
  pkce?: Pkce;
  /** The consent the request names (openbanking_intent_id). */
  consentId: string;
  scopes: string[];
}

/** One authorisation code (RFC 6749 §4.1.2): single use, bound to client and redirect_uri. */
export interface CodeRecord extends Pick<
  AuthorisationRequestRecord,
  'clientId' | 'redirectUri' | 'redirectUriInRequest' | 'consentId' | 'scopes' | 'nonce' | 'pkce'
> {
  authTime: number;
  expiresAt: string;
  used: boolean;
}

/** A PSU interaction of an interactive profile: the validated authorisation request waiting for login and consent. */
export interface InteractionRecord extends AuthorisationRequestRecord {
  uid: string;
  profile: ProfileName;
  psuId?: string;
  expiresAt: string;
}

/** A pushed authorization request (RFC 9126 §2), validated when pushed, kept under its request_uri until used once
 *  or expired. */
export interface PushedRequestRecord {
  request: AuthorisationRequestRecord;
  loginHint?: string;
  expiresAt: string;
}

export interface Pkce {
  challenge: string;
  method: 'S256' | 'plain';
}

/** A token as the store keeps it: what introspection answers of it (AccessTokenInfo, its expiry as text), and the
 *  store's own members. */
export interface TokenRecord extends Pick<
  AccessTokenInfo,
  'clientId' | 'profile' | 'grant' | 'scopes' | 'consentId' | 'certificateThumbprint'
> {
  kind: 'access' | 'refresh';
  /** Hash of the code it came from: a replayed code revokes every token issued from it (RFC 6749 §4.1.2). */
  codeHash?: string;
  expiresAt: string;
  revoked: boolean;
}

export function hashSecret(value: string): string {
  return hash('sha256', value, 'base64url');
}

const expiry = (value: { expiresAt: string }): number => Date.parse(value.expiresAt);

/** Access tokens whose store key AuthStore.verify keeps (the oldest dropped first). */
const PRESENTED_TOKENS = 256;

/** The authorisation side's collections, keyed as before: client id, jti, code hash, interaction uid, token hash. */
export const AUTH_COLLECTIONS: {
  clients: CollectionSpec<StoredClient>;
  jtis: CollectionSpec<{ expiresAt: string }>;
  codes: CollectionSpec<CodeRecord>;
  interactions: CollectionSpec<InteractionRecord>;
  tokens: CollectionSpec<TokenRecord>;
  pushed: CollectionSpec<PushedRequestRecord>;
} = {
  clients: { name: 'clients' },
  jtis: { name: 'registration-jtis', expiresAt: expiry },
  codes: { name: 'grants', expiresAt: expiry },
  interactions: { name: 'interactions', expiresAt: expiry },
  // Tagged with the code they came from: a replayed code finds its tokens by index (RFC 6749 §4.1.2).
  tokens: { name: 'tokens', expiresAt: expiry, tag: (token) => token.codeHash },
  pushed: { name: 'pushed-requests', expiresAt: expiry },
};

export class AuthStore implements ClientDirectory, TokenVerifier {
  readonly clients: Collection<StoredClient>;
  readonly jtis: Collection<{ expiresAt: string }>;
  readonly codes: Collection<CodeRecord>;
  readonly interactions: Collection<InteractionRecord>;
  readonly tokens: Collection<TokenRecord>;
  readonly pushed: Collection<PushedRequestRecord>;

  constructor(
    db: SandboxDb,
    private readonly now: () => Date,
  ) {
    this.clients = db.collection(AUTH_COLLECTIONS.clients);
    this.jtis = db.collection(AUTH_COLLECTIONS.jtis);
    this.codes = db.collection(AUTH_COLLECTIONS.codes);
    this.interactions = db.collection(AUTH_COLLECTIONS.interactions);
    this.tokens = db.collection(AUTH_COLLECTIONS.tokens);
    this.pushed = db.collection(AUTH_COLLECTIONS.pushed);
  }

  async get(clientId: string): Promise<SandboxClient | undefined> {
    const client = this.clients.get(clientId);
    if (!client) return undefined;
    // The resource side sees the public view only, never the secret; the statement's public keys verify signed requests.
    return {
      clientId: client.clientId,
      profile: client.profile,
      softwareId: client.softwareId,
      orgId: client.orgId,
      redirectUris: [...client.redirectUris],
      certificateThumbprints: [...client.certificateThumbprints],
      signingKeys: client.softwareJwks,
    };
  }

  /**
   * The keys of the access tokens presented last (token → its hash), so a keep-alive client presenting one token on
   * every request is hashed once, not per request (docs/notes.md). Held in memory only, at most PRESENTED_TOKENS; what a
   * key finds is still read and checked per request (revoked, expired, its client deleted).
   */
  private readonly presented = new Map<string, string>();

  async verify(accessToken: string): Promise<AccessTokenInfo | undefined> {
    let key = this.presented.get(accessToken);
    if (key === undefined) {
      key = hashSecret(accessToken);
      keepAtMost(this.presented, PRESENTED_TOKENS, accessToken, key);
    }
    const record = this.tokens.get(key);
    if (!record || record.kind !== 'access' || record.revoked) return undefined;
    // A deleted registration (DCR DELETE) takes its tokens with it.
    if (!this.clients.has(record.clientId)) return undefined;
    const expiresAt = new Date(record.expiresAt);
    if (expiresAt.getTime() <= this.now().getTime()) return undefined;
    const info: AccessTokenInfo = {
      clientId: record.clientId,
      profile: record.profile,
      grant: record.grant,
      scopes: [...record.scopes],
      expiresAt,
    };
    if (record.consentId !== undefined) info.consentId = record.consentId;
    if (record.certificateThumbprint !== undefined) info.certificateThumbprint = record.certificateThumbprint;
    return info;
  }
}
