// Payment orders the bank accepted or rejected (PISP domestic-payments; VRP payments later), one row each under its
// id, never expiring: GET /domestic-payments/{DomesticPaymentId} and its payment-details read them back. Written in the
// transaction that consumes the consent, posts the debit and keeps the idempotency key (store/db.ts transaction).

import type { AisApiVersion } from '../contracts.js';
import type { CollectionSpec } from './db.js';

export interface PaymentOrderRecord {
  /** DomesticPaymentId. */
  paymentId: string;
  /** The consent it was made under. */
  ConsentId: string;
  /** The client that made it: another client's payment does not exist for a TPP. */
  clientId: string;
  /** The version it was made on: read there (a payment consent serves its own version only). */
  apiVersion: AisApiVersion;
  CreationDateTime: string;
  /** Accepted (the debit posted) or rejected (AM04, insufficient funds: nothing posted). */
  accepted: boolean;
  /** The account debited (or that would have been). */
  debtorAccountId: string;
  amountMinor: number;
  /** The consent's Initiation, as the answer echoes it. */
  Initiation: Record<string, unknown>;
}

export const PAYMENT_ORDER_COLLECTION: CollectionSpec<PaymentOrderRecord> = { name: 'payment-orders' };
