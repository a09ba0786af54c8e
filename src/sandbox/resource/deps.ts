// What the resource server needs beyond the seam it shares with the authorisation side (contracts.ts
// ResourceServerDeps): the stores the payments and funds families read and write in one database, and the bank's
// message signer. startSandbox (index.ts) builds both.

import type { ResourceServerDeps } from '../contracts.js';
import type { IdempotencyKeys } from '../idempotency.js';
import type { BankSigner } from '../signing.js';
import type { ConsentBook } from '../store/consents.js';
import type { Collection } from '../store/db.js';
import type { PaymentOrderRecord } from '../store/payment-orders.js';
import type { Postings } from '../store/postings.js';
import type { VrpPayments } from '../store/vrp-payments.js';

/** The resource side's stores beyond AIS reads: consents of every kind (synchronous, for transactions), idempotency
 *  keys, postings (the balance overlay), payment orders and VRP payments; `transaction` commits a set of writes
 *  together. */
export interface ResourceRecords {
  transaction<T>(work: () => T): T;
  consents: ConsentBook;
  idempotency: IdempotencyKeys;
  postings: Postings;
  paymentOrders: Collection<PaymentOrderRecord>;
  vrpPayments: VrpPayments;
}

export interface ResourceDeps extends ResourceServerDeps {
  /** What payments and funds confirmations read and write. */
  records: ResourceRecords;
  /** The bank's message signer (x-jws-signature of the answers a version marks signed); generated on a first start in
   *  the background, as the ID-token key. */
  messageSigner(): Promise<BankSigner>;
}
