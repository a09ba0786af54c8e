// What the handlers of the families beyond AIS (pisp.ts, cbpii.ts, vrp.ts) do alike, in one place: the 400 refusals
// of one error, a new consent's bank-made members and its keeping with the idempotency key, the consent a token was
// issued for, the TPP's DELETE, and a payment order's status words and payment-details. docs/sandbox-payments.md and
// docs/sandbox-vrp.md are the contract; what differs per family stays in its module.

import { ConsentStateError } from '../contracts.js';
import type { AisApiVersion, AnyConsentRecord, ConsentCommon } from '../contracts.js';
import type { BankAccount } from '../data/bank.js';
import { ObieError } from '../http/errors.js';
import type { PaymentOrderRecord } from '../store/payment-orders.js';
import { isoSeconds } from '../time.js';
import type { Answer, OperationCall } from './operation.js';
import type { Validation } from './payment-request.js';
import { AisRefusal } from './refusals.js';
import { VERSION_ROWS } from './versions.js';
import type { ResourceDeps } from './deps.js';

type Json = Record<string, unknown>;
type AnyCall = OperationCall<unknown>;

/** A resource the client may not see: 400, not 404 (OB R/W Data API Profile, "400 (Bad Request) v/s 404 (Not Found)"). */
export const notFound = (what: string): ObieError =>
  new ObieError(400, `${what} not found`, [{ ErrorCode: 'UK.OBIE.Resource.NotFound', Message: `${what} does not exist` }]);

/** A 400 with one error (its Path where the fault has one). */
export const invalid = (message: string, code: string, detail: string, path?: string): ObieError =>
  new ObieError(400, message, [{ ErrorCode: code, Message: detail, ...(path === undefined ? {} : { Path: path }) }]);

/** The family's base URL as the client called it, for Links.Self. */
export function baseOf(call: AnyCall): string {
  return `${call.origin}${call.family.basePaths[call.version]}`;
}

export function accountOf(deps: ResourceDeps, accountId: string | undefined): BankAccount | undefined {
  return accountId === undefined ? undefined : deps.bank.accounts().find((account) => account.accountId === accountId);
}

/** The members the bank gives a consent it creates. */
export type BankMembers = Pick<ConsentCommon, 'ConsentId' | 'clientId' | 'Status' | 'CreationDateTime' | 'StatusUpdateDateTime'> & {
  apiVersion: AisApiVersion;
};

/** A ConsentId of the family's prefix, AwaitingAuthorisation (every family's create answers it), created and updated
 *  now, on the call's version. */
function newConsent(call: AnyCall, deps: ResourceDeps, now: Date): BankMembers {
  const stamp = isoSeconds(now);
  return {
    ConsentId: `${call.family.consentIdPrefix}${deps.newId()}`,
    clientId: call.token.clientId,
    Status: 'AwaitingAuthorisation',
    CreationDateTime: stamp,
    StatusUpdateDateTime: stamp,
    apiVersion: call.version,
  };
}

/** The client's consent of a kind (`isKind`), as stored (another client's or kind's does not exist for it). */
export function clientConsent<C extends AnyConsentRecord>(
  call: AnyCall,
  consentId: string | undefined,
  deps: ResourceDeps,
  isKind: (consent: AnyConsentRecord) => consent is C,
): C | undefined {
  const consent = consentId === undefined ? undefined : deps.records.consents.read(consentId);
  return consent === undefined || consent.clientId !== call.token.clientId || !isKind(consent) ? undefined : consent;
}

/** The members a consent's answer opens with: its id, when it was made, its status in the version's words (versions.ts
 *  consentStatus) and when that last changed (OBWriteDomesticConsentResponse5, OBFundsConfirmationConsentResponse1). */
export function consentOpening(call: AnyCall, consent: AnyConsentRecord): Json {
  return {
    ConsentId: consent.ConsentId,
    CreationDateTime: consent.CreationDateTime,
    ...VERSION_ROWS[call.version].consentStatus(consent, call.ctx.now()),
    StatusUpdateDateTime: consent.StatusUpdateDateTime,
  };
}

/** `consent`, or the 400 of a ConsentId the client may not see. */
export function found<C>(consent: C | undefined): C {
  if (consent === undefined) throw notFound('ConsentId');
  return consent;
}

/** A family's consent resource (domestic-payment-consents, funds-confirmation-consents, domestic-vrp-consents): what
 *  differs per family in creating and reading one. */
export interface ConsentResource<R, C extends AnyConsentRecord, V> {
  /** The message of the 400 that carries a create request's faults. */
  invalidRequest: string;
  /** The create request's faults, or what the consent keeps of it. */
  validate(call: OperationCall<R>, now: Date): Validation<V>;
  /** The record of a valid request around the bank's members. */
  record(request: V, bank: BankMembers): C;
  /** The client's consent as this version may see it (undefined: it does not exist for the client). */
  own(call: OperationCall<R>, consentId: string | undefined, deps: ResourceDeps): C | undefined;
  /** The consent's answer in the version's shape. */
  body(call: OperationCall<R>, consent: C, deps: ResourceDeps): Json;
}

/** POST of a consent: validated, kept with the idempotency key that created it in one transaction (operation.ts: a
 *  replay then answers this consent; a family whose create is not idempotent has no key), answered 201. */
export function createConsent<R, C extends AnyConsentRecord, V>(
  resource: ConsentResource<R, C, V>,
  call: OperationCall<R>,
  deps: ResourceDeps,
): Answer {
  const now = call.ctx.now();
  const result = resource.validate(call, now);
  if (!result.ok) throw new ObieError(400, resource.invalidRequest, result.errors);
  const record = resource.record(result.value, newConsent(call, deps, now));
  deps.records.transaction(() => {
    deps.records.consents.insert(record);
    if (call.idempotency) deps.records.idempotency.remember(call.idempotency.scope, call.idempotency.bodyHash, record.ConsentId, now);
  });
  return { status: 201, body: resource.body(call, record, deps) };
}

/** The consent `consentId` as it is now: the GET (200), or the replay of its create (201). */
export function consentAnswer<R, C extends AnyConsentRecord, V>(
  resource: ConsentResource<R, C, V>,
  call: OperationCall<R>,
  consentId: string | undefined,
  deps: ResourceDeps,
  status: 200 | 201,
): Answer {
  return { status, body: resource.body(call, found(resource.own(call, consentId, deps)), deps) };
}

/** The token was issued for one consent: it acts (confirms funds) for that one only. */
export function ownTokenConsent(call: AnyCall, consentId: string): void {
  if (call.token.consentId !== consentId)
    throw new AisRefusal('permission-missing', call.version, 'The access token was not issued for this ConsentId');
}

/** The TPP's DELETE of a consent it may see: kept Revoked (its tokens stop working); one that cannot be revoked from
 *  its status is a 400 InvalidConsentStatus. */
export function revokeConsent(call: AnyCall, consentId: string, deps: ResourceDeps): void {
  try {
    deps.records.consents.transition(consentId, 'revoke', call.ctx.now());
  } catch (error) {
    if (error instanceof ConsentStateError)
      throw invalid(
        `the consent is ${error.status}`,
        'UK.OBIE.Resource.InvalidConsentStatus',
        `A ${error.status} consent cannot be deleted`,
      );
    throw error;
  }
}

/**
 * A payment order's status in each version's words. The bank settles a Faster Payment at once: the POST answers the
 * status a payment is created in (v4.0 domestic-payments: "must have one of the following initial PaymentStatusCode …
 * RCVD, RJCT"; v3.1.11 AcceptedSettlementInProcess), every later read the settled one (ACSC, "Settlement on the
 * debtor's account has been completed"). One rejected for want of funds is RJCT with AM04 (InsufficientFunds) on v4.0,
 * whose StatusReason v3.1.11 does not have. payment-details lists the later status (its v4.0 enum has no RCVD).
 * Domestic VRPs use the same words (none is CANC, which the cVRP file removed).
 */
export const PAYMENT_STATUS: Readonly<
  Record<
    AisApiVersion,
    { received: string; settled: string; rejected: string; rejectedReason?: { StatusReasonCode: string; StatusReasonDescription: string } }
  >
> = {
  '3.1': { received: 'AcceptedSettlementInProcess', settled: 'AcceptedSettlementCompleted', rejected: 'Rejected' },
  '4.0': {
    received: 'RCVD',
    settled: 'ACSC',
    rejected: 'RJCT',
    rejectedReason: { StatusReasonCode: 'AM04', StatusReasonDescription: 'InsufficientFunds' },
  },
};

/** What a payment order of either family (a domestic payment, a domestic VRP) keeps that its answers show. */
export type PaymentOrder = Pick<
  PaymentOrderRecord,
  'paymentId' | 'ConsentId' | 'clientId' | 'apiVersion' | 'CreationDateTime' | 'accepted'
>;

/** `payment` if the client may see it: another client's, or one made on the other version, does not exist for it (OB
 *  R/W Data API Profile "400 (Bad Request) v/s 404 (Not Found)": its example is GET /domestic-payments/{an id that is
 *  not one}). `what` names the id on the wire. */
export function ownPayment<P extends PaymentOrder>(call: AnyCall, payment: P | undefined, what: string): P {
  if (payment === undefined || payment.clientId !== call.token.clientId || payment.apiVersion !== call.version) throw notFound(what);
  return payment;
}

/** The members a payment order's answer opens with: `idName` (DomesticPaymentId, DomesticVRPId), its consent, and
 *  the status `stage` shows: the POST's (the status a payment is created in) or a later read's. */
export function paymentStatusMembers(call: AnyCall, payment: PaymentOrder, idName: string, stage: 'created' | 'read'): Json {
  const words = PAYMENT_STATUS[call.version];
  const status = !payment.accepted ? words.rejected : stage === 'created' ? words.received : words.settled;
  return {
    [idName]: payment.paymentId,
    ConsentId: payment.ConsentId,
    CreationDateTime: payment.CreationDateTime,
    Status: status,
    ...(!payment.accepted && words.rejectedReason !== undefined ? { StatusReason: [words.rejectedReason] } : {}),
    StatusUpdateDateTime: payment.CreationDateTime,
  };
}

/** GET /`collection`/{id}/payment-details of a payment order (domestic-payments, domestic-vrps): the settled status,
 *  or the rejected one. */
export function paymentDetails(call: AnyCall, payment: PaymentOrder, collection: string): Answer {
  const words = PAYMENT_STATUS[call.version];
  const status = payment.accepted ? words.settled : words.rejected;
  const body = {
    Data: {
      PaymentStatus: [
        {
          PaymentTransactionId: payment.paymentId,
          Status: status,
          StatusUpdateDateTime: payment.CreationDateTime,
          StatusDetail: { Status: status },
        },
      ],
    },
    Links: { Self: `${baseOf(call)}/${collection}/${encodeURIComponent(payment.paymentId)}/payment-details` },
    Meta: { TotalPages: 1 },
  };
  return { status: 200, body };
}
