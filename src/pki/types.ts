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
}
