// The shape of a TPP identity on disk: the files the trust directory issues and the TPP keeps. `obflow init` writes a
// local one (state folder), a real bank's config names the TPP's own; everything else reads it through these types.

/** Paths of the TPP's identity material (absolute once resolved by the config loader). */
export interface IdentityPaths {
  /** The software statement assertion (a JWT, compact serialisation) as issued by the directory. */
  softwareStatement: string;
  /** Transport certificate for mutual TLS: PEM certificate + PEM key, or a PFX with passphrase. */
  transport: { cert: string; key: string } | { pfx: string; passphrase?: string };
  /** Private signing key (PEM, PKCS#8) and its key id as published in the statement's JWKS. */
  signing: { key: string; kid: string };
  /** The directory's root and issuing CA certificates (PEM). */
  directoryRoots: string[];
  directoryIssuing: string[];
  /** The directory's public signing keys (JWKS file) that verify software statements. */
  directoryJwks: string;
  /** Redirect URIs the TPP intends to use; must all be in the statement. Empty → use the statement's. */
  redirectUris: string[];
}

/** What `obflow init` writes for the local test trust directory (the manifest `identity.json`, paths relative). */
export interface LocalIdentityManifest {
  version: 1;
  software_id: string;
  org_id: string;
  kid: string;
  redirect_uris: string[];
  files: {
    directory_root_ca: string;
    directory_issuing_ca: string;
    directory_jwks: string;
    transport_certificate: string;
    transport_key: string;
    signing_key: string;
    signing_jwks: string;
    software_statement: string;
    server_certificate: string;
    server_key: string;
  };
  /** The directory's own private material, kept so a second software statement can be issued under the same
   *  directory (another TPP). Present only in identities that `issueLocalIdentity` created as a new directory. */
  directory_private?: {
    root_ca_key: string;
    issuing_ca_key: string;
    signing_certificate: string;
    signing_key: string;
  };
}

/** The claims of an OB software statement assertion (directory API swagger, `.../software-statement-assertion`). */
export interface SoftwareStatementClaims {
  iss: string;
  iat: number;
  jti: string;
  exp?: number;
  software_environment: string;
  software_mode: string;
  software_id: string;
  software_client_id: string;
  software_client_name: string;
  software_client_description: string;
  software_version: string;
  software_client_uri: string;
  software_redirect_uris: string[];
  software_roles: string[];
  organisation_competent_authority_claims: {
    authority_id: string;
    registration_id: string;
    status: string;
    authorisations: { member_state: string; roles: string[] }[];
  };
  software_logo_uri: string;
  org_status: string;
  org_id: string;
  org_name: string;
  org_contacts: { name: string; email: string; phone: string; type: string }[];
  org_jwks_endpoint: string;
  org_jwks_revoked_endpoint: string;
  software_jwks_endpoint: string;
  software_jwks_revoked_endpoint: string;
  software_policy_uri: string;
  software_tos_uri: string;
  software_on_behalf_of_org: string;
  /** The TPP's public signing keys, embedded (the emulator cannot fetch software_jwks_endpoint). The local directory
   *  always embeds it; real directories may publish only software_jwks_endpoint. */
  software_jwks?: { keys: PublicJwk[] };
}

/** A public JWK as published in a JWKS (RSA only: OB signing keys are RSA, PS256). */
export interface PublicJwk {
  kty: string;
  kid: string;
  use?: string;
  alg?: string;
  n?: string;
  e?: string;
  x5c?: string[];
  x5t?: string;
  [member: string]: unknown;
}
