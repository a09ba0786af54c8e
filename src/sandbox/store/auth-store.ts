// The authorisation side's persistent state in the data directory: registered clients, registration JWT ids (replay
// protection, DCR v3.2), authorisation codes and PSU interactions ("grants"), and access/refresh tokens. Tokens and
// codes are stored under the SHA-256 of their value, so the data directory never holds a usable bearer credential.

import { createHash } from 'node:crypto';

import type { AccessTokenInfo, ClientDirectory, ProfileName, SandboxClient, TokenVerifier } from '../contracts.js';
import { JsonCollection } from './json-store.js';

/** A registered client as the bank keeps it (DCR v3.2 metadata plus what the software statement said). */
export interface StoredClient extends SandboxClient {
  clientSecret: string;
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

/** One authorisation code (RFC 6749 §4.1.2): single use, bound to client and redirect_uri. */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  /** RFC 6749 §4.1.3: redirect_uri is required at the token endpoint when it was in the authorisation request. */
  redirectUriInRequest: boolean;
  consentId: string;
  scopes: string[];
  nonce?: string;
  /** RFC 7636 PKCE, when the authorisation request carried a code_challenge. */
  pkce?: Pkce;
  authTime: number;
  expiresAt: string;
  used: boolean;
}

/** A PSU interaction of an interactive profile: the validated authorisation request waiting for login and consent. */
export interface InteractionRecord {
  uid: string;
  profile: ProfileName;
  clientId: string;
  redirectUri: string;
  redirectUriInRequest: boolean;
  responseType: 'code' | 'code id_token';
  state?: string;
  nonce?: string;
  pkce?: Pkce;
  consentId: string;
  scopes: string[];
  psuId?: string;
  expiresAt: string;
}

export interface Pkce {
  challenge: string;
  method: 'S256' | 'plain';
}

export interface TokenRecord {
  kind: 'access' | 'refresh';
  clientId: string;
  profile: ProfileName;
  grant: 'client_credentials' | 'authorization_code';
  scopes: string[];
  consentId?: string;
  certificateThumbprint?: string;
  /** Hash of the code it came from: a replayed code revokes every token issued from it (RFC 6749 §4.1.2). */
  codeHash?: string;
  expiresAt: string;
  revoked: boolean;
}

export function hashSecret(value: string): string {
  return createHash('sha256').update(value).digest('base64url');
}

export class AuthStore implements ClientDirectory, TokenVerifier {
  readonly clients: JsonCollection<StoredClient>;
  readonly jtis: JsonCollection<{ expiresAt: string }>;
  readonly codes: JsonCollection<CodeRecord>;
  readonly interactions: JsonCollection<InteractionRecord>;
  readonly tokens: JsonCollection<TokenRecord>;

  constructor(
    dataDir: string,
    private readonly now: () => Date,
  ) {
    this.clients = new JsonCollection(dataDir, 'clients');
    this.jtis = new JsonCollection(dataDir, 'registration-jtis');
    this.codes = new JsonCollection(dataDir, 'grants');
    this.interactions = new JsonCollection(dataDir, 'interactions');
    this.tokens = new JsonCollection(dataDir, 'tokens');
  }

  async get(clientId: string): Promise<SandboxClient | undefined> {
    const client = this.clients.get(clientId);
    if (!client) return undefined;
    // The resource side sees the public view only, never the secret or the statement's keys.
    return {
      clientId: client.clientId,
      profile: client.profile,
      softwareId: client.softwareId,
      orgId: client.orgId,
      redirectUris: [...client.redirectUris],
      certificateThumbprints: [...client.certificateThumbprints],
    };
  }

  async verify(accessToken: string): Promise<AccessTokenInfo | undefined> {
    const record = this.tokens.get(hashSecret(accessToken));
    if (!record || record.kind !== 'access' || record.revoked) return undefined;
    // A deleted registration (DCR DELETE) takes its tokens with it.
    if (!this.clients.get(record.clientId)) return undefined;
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

  /** Drops expired codes, interactions, registration jtis and tokens (one write each at most). */
  prune(): void {
    const now = this.now().getTime();
    const expired = (value: { expiresAt: string }): boolean => new Date(value.expiresAt).getTime() < now;
    this.jtis.prune(expired);
    this.codes.prune(expired);
    this.interactions.prune(expired);
    this.tokens.prune(expired);
  }
}
