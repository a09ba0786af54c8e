// Idempotent POSTs, family-agnostic (OB Read/Write Data API Profile v4.0, "Idempotency"; the same rules in v3.1.11):
// an x-idempotency-key of at most 40 characters, kept 24 hours per client and operation; the same key with the same
// body answers the resource the first request created (201, its current status) and never creates a second one; the
// same key with another body changes nothing and is refused. The key's record is written in the same transaction as
// the resource it created (store/db.ts SandboxDb.transaction), so a crash leaves both or neither.

import { createHash } from 'node:crypto';

import type { Collection, CollectionSpec, SandboxDb } from './store/db.js';

/** "The ASPSP must treat a request as idempotent if it had received the first request with the same
 *  x-idempotency-key from the same TPP in the preceding 24 hours." */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** "The x-idempotency-key provided in the header must be at most 40 characters in size." */
export const IDEMPOTENCY_KEY_MAX = 40;

/** The OpenAPI files' pattern for x-idempotency-key (v3.1.11 and v4.0): no leading or trailing white space. */
const KEY_PATTERN = /^(?!\s)(.*)(\S)$/s;

/** What is wrong with a key the TPP sent, or undefined when it is one. */
export function keyProblem(key: string): string | undefined {
  if (key.length > IDEMPOTENCY_KEY_MAX) return `x-idempotency-key must be at most ${IDEMPOTENCY_KEY_MAX} characters, not ${key.length}`;
  if (!KEY_PATTERN.test(key)) return 'x-idempotency-key must not start or end with white space';
  return undefined;
}

/** Whose key it is: the same key of another client, or for another operation, is another key. */
export interface IdempotencyScope {
  clientId: string;
  /** The operation, e.g. `POST /open-banking/v4.0/pisp/domestic-payments`. */
  operation: string;
  key: string;
}

interface IdempotencyRecord {
  /** Of the request body as JSON (members in any order, any white space: the same body). */
  bodyHash: string;
  /** The resource the first request created. */
  resourceId: string;
  expiresAt: string;
}

export const IDEMPOTENCY_COLLECTION: CollectionSpec<IdempotencyRecord> = {
  name: 'idempotency-keys',
  expiresAt: (record) => Date.parse(record.expiresAt),
};

export type Recall = { outcome: 'new' } | { outcome: 'replay'; resourceId: string } | { outcome: 'conflict' };

/** The body's fingerprint: SHA-256 of its JSON with members sorted, so white space and member order do not count. */
export function bodyFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** The keys of one data directory. */
export class IdempotencyKeys {
  private readonly records: Collection<IdempotencyRecord>;

  constructor(db: SandboxDb) {
    this.records = db.collection(IDEMPOTENCY_COLLECTION);
  }

  /** What the key means for this body at `now`: a new request, a replay of one that created `resourceId`, or the
   *  key used with another body (within the window). */
  recall(scope: IdempotencyScope, bodyHash: string, now: Date): Recall {
    const record = this.records.get(storeKey(scope));
    if (record === undefined || Date.parse(record.expiresAt) <= now.getTime()) return { outcome: 'new' };
    return record.bodyHash === bodyHash ? { outcome: 'replay', resourceId: record.resourceId } : { outcome: 'conflict' };
  }

  /** Keeps the key for 24 hours from `now`: call it in the transaction that creates `resourceId`. */
  remember(scope: IdempotencyScope, bodyHash: string, resourceId: string, now: Date): void {
    this.records.set(storeKey(scope), {
      bodyHash,
      resourceId,
      expiresAt: new Date(now.getTime() + IDEMPOTENCY_WINDOW_MS).toISOString(),
    });
  }
}

/** Stored under a hash of the scope: the client, the operation and the key (a key may hold any character). */
function storeKey(scope: IdempotencyScope): string {
  return createHash('sha256').update(`${scope.clientId}\u0000${scope.operation}\u0000${scope.key}`).digest('base64url');
}
