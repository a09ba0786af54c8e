// `obflow doctor`'s checks: one result per prerequisite of docs/bank-interface.md §1 (statement from the directory,
// transport certificate per statement, redirect URIs, directory root and issuing certificates) plus the signing key.
// Never throws for bad material: every problem becomes a failed check with its code and hint.

import type { KeyObject, X509Certificate } from 'node:crypto';

import type { JSONWebKeySet } from 'jose';

import { isObflowError, ObflowError, type ErrorCode } from '../errors.js';
import { loadTransportMaterial, type TransportMaterial } from './load.js';
import type { IdentityPaths, SoftwareStatementClaims } from './types.js';
import {
  buildChain,
  decodeSoftwareStatement,
  readDirectoryCertificates,
  readDirectoryJwks,
  readSigningKey,
  readSoftwareStatement,
  statementJwks,
  verifyCertificateForStatement,
  verifyClientAuth,
  verifyKeyMatch,
  verifyRedirectUris,
  verifySigningKey,
  verifySoftwareStatement,
  verifyValidity,
  type FetchJwks,
} from './verify.js';

export type DoctorCheck =
  { name: string; ok: true; detail: string } | { name: string; ok: false; code: ErrorCode; message: string; hint: string };

/** Stable check names (the CLI prints them; tests select by them). */
export const CHECK_NAMES = {
  statementPresent: 'software statement present',
  statementDecodable: 'software statement decodable',
  statementSigned: 'software statement signed by the directory',
  directoryCerts: 'directory root and issuing certificates present',
  transportPresent: 'transport certificate and key present',
  transportKey: 'transport certificate matches its key',
  transportChain: 'transport certificate chains to the directory',
  transportValidity: 'transport certificate within its validity period',
  transportClientAuth: 'transport certificate allows TLS client authentication',
  transportForStatement: 'transport certificate issued for the statement',
  redirectUris: 'redirect URIs present and in the statement',
  signingKey: 'signing key matches the kid in the statement',
} as const;

type Outcome<T> = { ok: true; value: T; check: DoctorCheck } | { ok: false; check: DoctorCheck };

/** Runs one check: the step returns a value and a detail line, or throws an ObflowError that becomes the failure. */
async function check<T>(
  name: string,
  step: () => Promise<{ value: T; detail: string }> | { value: T; detail: string },
  remap?: (error: ObflowError) => ObflowError,
): Promise<Outcome<T>> {
  try {
    const { value, detail } = await step();
    return { ok: true, value, check: { name, ok: true, detail } };
  } catch (cause) {
    if (!isObflowError(cause)) {
      // A bug, not bad material: still one failed line (doctor never throws), keeping the reason.
      const message = cause instanceof Error ? cause.message : String(cause);
      const hint = 'this is a bug in obflow: rerun with OBFLOW_DEBUG=1 and report it';
      return { ok: false, check: { name, ok: false, code: 'ERR_UNEXPECTED', message, hint } };
    }
    const error = remap ? remap(cause) : cause;
    return { ok: false, check: { name, ok: false, code: error.code, message: error.message, hint: error.hint } };
  }
}

/** A missing transport file is a missing certificate (a failed check), not a usage error. */
function transportMissing(error: ObflowError): ObflowError {
  if (error.code !== 'ERR_FILE_MISSING' && error.code !== 'ERR_FILE_UNREADABLE') return error;
  return new ObflowError('ERR_CERT_MISSING', error.message, {
    hint: 'point identity.transport at the certificate and key (or PFX) the directory issued (locally: obflow init)',
    cause: error,
  });
}

/** The CN of a certificate's subject (the whole subject if it has none), for short detail lines. */
function commonName(cert: X509Certificate): string {
  const cn = cert.subject.split('\n').find((line) => line.startsWith('CN='));
  return cn === undefined ? subjectLine(cert) : cn.slice(3);
}

function subjectLine(cert: X509Certificate): string {
  return cert.subject.replaceAll('\n', ', ');
}

export interface DoctorOptions {
  /** Fetches the statement's software_jwks_endpoint when the statement embeds no software_jwks (default: offline,
   *  and the signing key check then says it compared nothing). */
  fetchJwks?: FetchJwks;
}

/**
 * Checks the identity at `now`. Checks that depend on material which failed to load are left out (the failure that
 * blocks them is already listed), so every line is a real verdict.
 */
export async function runDoctorChecks(paths: IdentityPaths, now: Date, options: DoctorOptions = {}): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const push = <T>(outcome: Outcome<T>): T | undefined => {
    checks.push(outcome.check);
    return outcome.ok ? outcome.value : undefined;
  };

  // §1 prerequisites 1–2: a software statement issued (signed) by the directory.
  const jwt = push(
    await check(CHECK_NAMES.statementPresent, async () => ({
      value: await readSoftwareStatement(paths.softwareStatement),
      detail: paths.softwareStatement,
    })),
  );
  let claims: SoftwareStatementClaims | undefined;
  if (jwt !== undefined) {
    claims = push(
      await check(CHECK_NAMES.statementDecodable, () => {
        const value = decodeSoftwareStatement(jwt);
        return { value, detail: `software_id ${value.software_id}, org_id ${value.org_id}, roles ${value.software_roles.join(' ')}` };
      }),
    );
  }
  if (jwt !== undefined && claims !== undefined) {
    push(
      await check(CHECK_NAMES.statementSigned, async () => {
        const jwks: JSONWebKeySet = await readDirectoryJwks(paths.directoryJwks);
        await verifySoftwareStatement(jwt, jwks, now);
        return { value: true, detail: `verified with ${paths.directoryJwks}` };
      }),
    );
  }

  // §1 prerequisite 5: the directory's root and issuing certificates.
  const directory = push(
    await check(CHECK_NAMES.directoryCerts, async () => {
      const value = await readDirectoryCertificates(paths);
      return { value, detail: `${value.roots.length} root, ${value.issuing.length} issuing` };
    }),
  );

  // §1 prerequisite 3: a transport certificate for the statement.
  const transport: TransportMaterial | undefined = push(
    await check(
      CHECK_NAMES.transportPresent,
      async () => {
        const value = await loadTransportMaterial(paths.transport);
        return { value, detail: `${value.kind === 'pfx' ? 'PFX' : 'PEM'}: ${subjectLine(value.x509)}` };
      },
      transportMissing,
    ),
  );
  if (transport !== undefined) {
    push(
      await check(CHECK_NAMES.transportKey, () => {
        verifyKeyMatch(transport);
        return { value: true, detail: 'the private key belongs to the certificate' };
      }),
    );
    if (directory !== undefined) {
      push(
        await check(CHECK_NAMES.transportChain, () => {
          // Path, signatures and the CAs' dates here; the leaf's dates are their own check below.
          const chain = buildChain(transport.x509, directory);
          chain.slice(1).forEach((cert) => verifyValidity(cert, now, `directory certificate ${subjectLine(cert)}`));
          return { value: chain, detail: `issued by ${chain.slice(1).map(commonName).join(' → ')}` };
        }),
      );
    }
    push(
      await check(CHECK_NAMES.transportValidity, () => {
        verifyValidity(transport.x509, now, 'the transport certificate');
        return { value: true, detail: `valid until ${new Date(transport.x509.validTo).toISOString()}` };
      }),
    );
    push(
      await check(CHECK_NAMES.transportClientAuth, () => {
        verifyClientAuth(transport.x509);
        const restricted = (transport.x509.keyUsage as string[] | undefined) !== undefined;
        return { value: true, detail: restricted ? 'extended key usage includes clientAuth' : 'no extended key usage restriction' };
      }),
    );
    if (claims !== undefined) {
      const statement = claims;
      push(
        await check(CHECK_NAMES.transportForStatement, () => {
          verifyCertificateForStatement(transport.x509, statement);
          return { value: true, detail: `CN ${statement.software_id}, org ${statement.org_id}` };
        }),
      );
    }
  }

  // §1 prerequisite 4: redirect URIs, all in the statement.
  if (claims !== undefined) {
    const statement = claims;
    push(
      await check(CHECK_NAMES.redirectUris, () => {
        const uris = verifyRedirectUris(paths.redirectUris, statement);
        const source = paths.redirectUris.length > 0 ? 'configured' : 'from the statement';
        return { value: uris, detail: `${uris.join(', ')} (${source})` };
      }),
    );
    push(
      await check(CHECK_NAMES.signingKey, async () => {
        const key: KeyObject = await readSigningKey(paths.signing.key);
        const published = await statementJwks(statement, options.fetchJwks);
        if (published === undefined) {
          // Honest about what was not done: the key parses, but nothing published was compared with it.
          return {
            value: false,
            detail: `key readable; not compared: the statement embeds no software_jwks and ${statement.software_jwks_endpoint} was not fetched (offline)`,
          };
        }
        verifySigningKey(key, paths.signing.kid, published.jwks);
        return { value: true, detail: `kid ${paths.signing.kid} is published with this key in ${published.source}` };
      }),
    );
  }
  return checks;
}
