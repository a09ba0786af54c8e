// The one typed adapter of the untyped oidc-provider (v9) for the test bank: only what test/oidc-bank uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** The Koa context as the glue reads it (Koa 3, oidc-provider's own app). */
  export interface KoaContext {
    method: string;
    path: string;
    query: Record<string, string | string[] | undefined>;
    querystring: string;
    status: number;
    body: unknown;
    req: IncomingMessage;
    request: { body?: unknown; querystring: string };
    get(header: string): string;
    set(header: string, value: string): void;
    oidc: OidcContext;
  }
  export type Middleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;

  export interface OidcContext {
    route: string;
    client?: { clientId: string };
    claims: { id_token?: Record<string, { value?: unknown } | null> };
    session: { loginAccount(details: { accountId: string; acr: string; amr: string[] }): void };
    params: Record<string, unknown>;
  }

  export interface Token {
    clientId: string;
    grantId?: string;
    scope?: string;
    'x5t#S256'?: string;
    isExpired: boolean;
  }
  export interface TokenModel {
    find(value: string): Promise<Token | undefined>;
  }
  export interface ClientRecord {
    clientId: string;
    clientSecret?: string;
    redirectUris: string[];
    metadata(): Record<string, unknown>;
  }
  export class Grant {
    constructor(init: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    /** Resolves with the grant's id (what a token's grantId names). */
    save(): Promise<string>;
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    use(middleware: Middleware): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    on(event: string, listener: (...args: unknown[]) => void): void;
    AccessToken: TokenModel;
    ClientCredentials: TokenModel;
    Client: { find(id: string): Promise<ClientRecord | undefined> };
    Grant: typeof Grant;
  }

  export const errors: { AccessDenied: new (description?: string) => Error };
}
