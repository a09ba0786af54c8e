// Payment orders made under VRP consents (VRP domestic-vrps), one row each under its DomesticVRPId, tagged with the
// consent they were made under: a payment's limits are checked against the consent's earlier payments, read by that
// tag (an index look-up) inside the transaction that then inserts the payment (resource/vrp.ts), so two payments can
// never both fit into room only one of them has. Never expiring: GET /domestic-vrps/{DomesticVRPId} reads them back.

import type { AisApiVersion } from '../contracts.js';
import type { Collection, CollectionSpec, SandboxDb } from './db.js';

export interface VrpPaymentRecord {
  /** DomesticVRPId. */
  paymentId: string;
  ConsentId: string;
  /** The client that made it: another client's payment does not exist for a TPP. */
  clientId: string;
  /** The version it was made on, and read on. */
  apiVersion: AisApiVersion;
  CreationDateTime: string;
  /** When it was made, epoch ms of the bank's clock: the periods of the consent's limits count it by this. */
  time: number;
  /** Accepted (the debit posted; it counts against the limits) or rejected for want of funds (AM04: nothing moved). */
  accepted: boolean;
  debtorAccountId: string;
  amountMinor: number;
  PSUAuthenticationMethod: string;
  PSUInteractionType?: string;
  VRPType: string;
  /** As the request gave them (and the answer echoes them). */
  Initiation: Record<string, unknown>;
  Instruction: Record<string, unknown>;
}

export const VRP_PAYMENT_COLLECTION: CollectionSpec<VrpPaymentRecord> = { name: 'vrp-payments', tag: (payment) => payment.ConsentId };

/** The VRP payments of one data directory. */
export class VrpPayments {
  private readonly payments: Collection<VrpPaymentRecord>;

  constructor(db: SandboxDb) {
    this.payments = db.collection(VRP_PAYMENT_COLLECTION);
  }

  get(paymentId: string): VrpPaymentRecord | undefined {
    return this.payments.get(paymentId);
  }

  /** The consent's payments, oldest first (read from the database itself: inside a transaction, what is committed). */
  ofConsent(consentId: string): VrpPaymentRecord[] {
    return this.payments.withTag(consentId).map(([, payment]) => payment);
  }

  /** Keeps `payment` (call it inside the transaction that checked its limits). */
  insert(payment: VrpPaymentRecord): void {
    if (this.payments.has(payment.paymentId)) throw new TypeError(`VRP payment ${payment.paymentId} exists`);
    this.payments.set(payment.paymentId, payment);
  }
}
