// PISP domestic payments, v3.1 (3.1.11) and v4.0 (docs/sandbox-payments.md): domestic-payment-consents (create, read,
// funds confirmation) and domestic-payments (create, read, payment-details) over the one seeded bank. A payment uses
// up its consent (Authorised → Consumed), and — funds allowing — posts a debit that AIS reads show; the consent, the
// payment, the debit and the idempotency key are one transaction. Each version's status words and shapes are tables.

import { consentKindOf } from '../contracts.js';
import type { AisApiVersion, AnyConsentRecord, PaymentConsentRecord } from '../contracts.js';
import { paymentReference } from '../consent-kinds.js';
import type { BankAccount } from '../data/bank.js';
import { SORT_CODE_SCHEME } from '../data/identification.js';
import { ObieError } from '../http/errors.js';
import type { ObError } from '../http/io.js';
import { fasterPaymentOut, fundsAvailable, ledgerEnd } from '../store/postings.js';
import type { Posting } from '../store/postings.js';
import type { PaymentOrderRecord } from '../store/payment-orders.js';
import { isoSeconds } from '../time.js';
import type { Answer, OperationCall, OperationHandler } from './operation.js';
import { firstDifference, validatePayment, validatePaymentConsent } from './payment-request.js';
import { AisRefusal } from './refusals.js';
import type { PaymentRoute } from './routes.js';
import { createdOn, VERSION_ROWS } from './versions.js';
import type { ResourceDeps } from './deps.js';

type Json = Record<string, unknown>;
type Call<K extends PaymentRoute['kind'] = PaymentRoute['kind']> = OperationCall<Extract<PaymentRoute, { kind: K }>>;

/**
 * A payment order's status in each version's words. The bank settles a Faster Payment at once: the POST answers the
 * status a payment is created in (v4.0 domestic-payments: "must have one of the following initial PaymentStatusCode …
 * RCVD, RJCT"; v3.1.11 AcceptedSettlementInProcess), every later read the settled one (ACSC, "Settlement on the
 * debtor's account has been completed"). One rejected for want of funds is RJCT with AM04 (InsufficientFunds) on v4.0,
 * whose StatusReason v3.1.11 does not have. payment-details lists the later status (its v4.0 enum has no RCVD).
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

const notFound = (what: string): ObieError =>
  new ObieError(400, `${what} not found`, [{ ErrorCode: 'UK.OBIE.Resource.NotFound', Message: `${what} does not exist` }]);

function base(call: Call): string {
  return `${call.origin}${call.family.basePaths[call.version]}`;
}

/**
 * The client's payment consent as this version may see it: another client's, another kind's, or one created on the
 * other version does not exist for it (a payment consent is paid on the version it was made on; the Operational
 * Guidelines carry only AISP and CBPII long-lived consents across versions).
 */
function ownConsent(call: Call, consentId: string | undefined, deps: ResourceDeps): PaymentConsentRecord | undefined {
  const consent = consentId === undefined ? undefined : deps.records.consents.read(consentId);
  if (consent === undefined || consent.clientId !== call.token.clientId || !isPaymentConsent(consent)) return undefined;
  return createdOn(consent) === call.version ? consent : undefined;
}

function isPaymentConsent(consent: AnyConsentRecord): consent is PaymentConsentRecord {
  return consentKindOf(consent) === 'domestic-payment';
}

/** The debtor as OBCashAccountDebtor4 (PISP v4.0: "Post successful PSU Authentication, an ASPSP may provide Debtor/Name"). */
function debtorOf(account: BankAccount | undefined): Json {
  if (account === undefined) return {};
  return { Debtor: { SchemeName: SORT_CODE_SCHEME, Identification: `${account.sortCode}${account.accountNumber}`, Name: account.name } };
}

function accountOf(deps: ResourceDeps, accountId: string | undefined): BankAccount | undefined {
  return accountId === undefined ? undefined : deps.bank.accounts().find((account) => account.accountId === accountId);
}

/** OBWriteDomesticConsentResponse5 of the version: the request's members as sent, the bank's around them. */
function consentBody(call: Call, consent: PaymentConsentRecord, deps: ResourceDeps): Json {
  const { Initiation, ReadRefundAccount, Authorisation, SCASupportData } = consent.Data;
  const status = VERSION_ROWS[call.version].consentStatus(consent, call.ctx.now());
  return {
    Data: {
      ConsentId: consent.ConsentId,
      CreationDateTime: consent.CreationDateTime,
      ...status,
      StatusUpdateDateTime: consent.StatusUpdateDateTime,
      ...(ReadRefundAccount === undefined ? {} : { ReadRefundAccount }),
      Initiation,
      ...(Authorisation === undefined ? {} : { Authorisation }),
      ...(SCASupportData === undefined ? {} : { SCASupportData }),
      ...debtorOf(accountOf(deps, consent.accountIds?.[0])),
    },
    Risk: consent.Risk,
    Links: { Self: `${base(call)}/domestic-payment-consents/${encodeURIComponent(consent.ConsentId)}` },
    Meta: { TotalPages: 1 },
  };
}

/** OBWriteDomesticResponse5: `stage` is the POST's (the status a payment is created in) or a later read's. */
function paymentBody(call: Call, payment: PaymentOrderRecord, stage: 'created' | 'read', deps: ResourceDeps): Json {
  const words = PAYMENT_STATUS[call.version];
  const status = !payment.accepted ? words.rejected : stage === 'created' ? words.received : words.settled;
  return {
    Data: {
      DomesticPaymentId: payment.paymentId,
      ConsentId: payment.ConsentId,
      CreationDateTime: payment.CreationDateTime,
      Status: status,
      ...(!payment.accepted && words.rejectedReason !== undefined ? { StatusReason: [words.rejectedReason] } : {}),
      StatusUpdateDateTime: payment.CreationDateTime,
      Initiation: payment.Initiation,
      ...debtorOf(accountOf(deps, payment.debtorAccountId)),
    },
    Links: { Self: `${base(call)}/domestic-payments/${encodeURIComponent(payment.paymentId)}` },
    Meta: { TotalPages: 1 },
  };
}

function ownPayment(call: Call, paymentId: string, deps: ResourceDeps): PaymentOrderRecord {
  const payment = deps.records.paymentOrders.get(paymentId);
  // Another client's payment, or one made on the other version, does not exist for this client (400, OB R/W Data API
  // Profile "400 (Bad Request) v/s 404 (Not Found)": its example is GET /domestic-payments/{an id that is not one}).
  if (payment === undefined || payment.clientId !== call.token.clientId || payment.apiVersion !== call.version)
    throw notFound('DomesticPaymentId');
  return payment;
}

const invalid = (message: string, errors: ObError[]): ObieError => new ObieError(400, message, errors);

export const PAYMENT_HANDLERS: { readonly [K in PaymentRoute['kind']]: OperationHandler<Extract<PaymentRoute, { kind: K }>> } = {
  'payment-consent-create': {
    keyReused: 'consent-key-reused',
    run(call, deps) {
      const now = call.ctx.now();
      const result = validatePaymentConsent(call.body, call.version, call.token.profile);
      if (!result.ok) throw invalid('The domestic payment consent request is invalid', result.errors);
      const stamp = isoSeconds(now);
      const record: PaymentConsentRecord = {
        kind: 'domestic-payment',
        ConsentId: `${call.family.consentIdPrefix}${deps.newId()}`,
        clientId: call.token.clientId,
        Status: 'AwaitingAuthorisation',
        CreationDateTime: stamp,
        StatusUpdateDateTime: stamp,
        apiVersion: call.version,
        Data: result.value.Data,
        Risk: result.value.Risk,
        amountMinor: result.value.amountMinor,
      };
      deps.records.transaction(() => {
        deps.records.consents.insert(record);
        if (call.idempotency) deps.records.idempotency.remember(call.idempotency.scope, call.idempotency.bodyHash, record.ConsentId, now);
      });
      return { status: 201, body: consentBody(call, record, deps) };
    },
    replay(call, consentId, deps) {
      const consent = ownConsent(call, consentId, deps);
      if (consent === undefined) throw notFound('ConsentId');
      return { status: 201, body: consentBody(call, consent, deps) };
    },
  },
  'payment-consent-get': {
    run(call, deps) {
      const consent = ownConsent(call, call.route.consentId, deps);
      if (consent === undefined) throw notFound('ConsentId');
      return { status: 200, body: consentBody(call, consent, deps) };
    },
  },
  'payment-consent-funds': {
    run(call, deps) {
      const consent = ownConsent(call, call.route.consentId, deps);
      if (consent === undefined) throw notFound('ConsentId');
      // The token was issued for one consent: it confirms funds for that one only.
      if (call.token.consentId !== consent.ConsentId)
        throw new AisRefusal('permission-missing', call.version, 'The access token was not issued for this ConsentId');
      // PISP v4.0 domestic-payment-consents: "If the status is not AUTH, an ASPSP must respond with a 400 (Bad
      // Request) and a U009 error code." "Confirmation of funds requests do not affect the status."
      if (consent.Status !== 'Authorised')
        throw invalid(`the consent is ${consent.Status}`, [
          { ErrorCode: 'UK.OBIE.Resource.InvalidConsentStatus', Message: `A ${consent.Status} consent cannot confirm funds` },
        ]);
      const account = accountOf(deps, consent.accountIds?.[0]);
      const now = call.ctx.now();
      return {
        status: 200,
        body: {
          Data: {
            FundsAvailableResult: {
              FundsAvailableDateTime: isoSeconds(now),
              FundsAvailable: account !== undefined && fundsAvailable(deps.bank, account, consent.amountMinor),
            },
          },
          Links: { Self: `${base(call)}/domestic-payment-consents/${encodeURIComponent(consent.ConsentId)}/funds-confirmation` },
          Meta: { TotalPages: 1 },
        },
      };
    },
  },
  'payment-create': {
    keyReused: 'payment-key-reused',
    run(call, deps) {
      const { token, version } = call;
      const now = call.ctx.now();
      const result = validatePayment(call.body, version, token.profile);
      if (!result.ok) throw invalid('The domestic payment request is invalid', result.errors);
      const request = result.value;
      const consent = ownConsent(call, token.consentId, deps);
      if (consent === undefined)
        throw new AisRefusal(
          'consent-not-authorised',
          version,
          'The token is not linked to a payment consent of this client on this version',
        );
      // PISP domestic-payments: the payment names the consent it was authorised under, with the same Initiation and
      // Risk; "If the two do not match, the ASPSP must not process the request and must respond with a 400".
      if (request.ConsentId !== consent.ConsentId)
        throw invalid('The payment names another consent', [
          {
            ErrorCode: 'UK.OBIE.Resource.ConsentMismatch',
            Message: 'Data.ConsentId must be the consent the token was issued for',
            Path: 'Data.ConsentId',
          },
        ]);
      // "A domestic-payment can only be created if its corresponding domestic-payment-consent resource has the Status
      // of AUTH": a consumed consent refuses a second payment.
      if (consent.Status !== 'Authorised')
        throw invalid(`the consent is ${consent.Status}`, [
          {
            ErrorCode: 'UK.OBIE.Resource.InvalidConsentStatus',
            Message:
              consent.Status === 'Consumed' ? 'The consent was already used for a payment' : `A ${consent.Status} consent cannot be paid`,
          },
        ]);
      const mismatch =
        firstDifference(consent.Data.Initiation, request.Initiation, 'Data.Initiation') ??
        firstDifference(consent.Risk, request.Risk, 'Risk');
      if (mismatch !== undefined)
        throw invalid('The payment does not match its consent', [
          { ErrorCode: 'UK.OBIE.Resource.ConsentMismatch', Message: `${mismatch} differs from the consent`, Path: mismatch },
        ]);
      const debtor = accountOf(deps, consent.accountIds?.[0]);
      if (debtor === undefined) throw new TypeError(`authorised consent ${consent.ConsentId} has no debtor account`);
      const accepted = fundsAvailable(deps.bank, debtor, consent.amountMinor);
      const payment: PaymentOrderRecord = {
        paymentId: `dp-${deps.newId()}`,
        ConsentId: consent.ConsentId,
        clientId: token.clientId,
        apiVersion: version,
        CreationDateTime: isoSeconds(now),
        accepted,
        debtorAccountId: debtor.accountId,
        amountMinor: consent.amountMinor,
        Initiation: consent.Data.Initiation as Json,
      };
      deps.records.transaction(() => {
        deps.records.consents.transition(consent.ConsentId, 'consume', now, { paymentId: payment.paymentId });
        deps.records.paymentOrders.set(payment.paymentId, payment);
        if (accepted) deps.records.postings.post(debitOf(payment), ledgerEnd(deps.bank.ledger(debtor.accountId)));
        if (call.idempotency) deps.records.idempotency.remember(call.idempotency.scope, call.idempotency.bodyHash, payment.paymentId, now);
      });
      return { status: 201, body: paymentBody(call, payment, 'created', deps) };
    },
    replay(call, paymentId, deps): Answer {
      return { status: 201, body: paymentBody(call, ownPayment(call, paymentId, deps), 'read', deps) };
    },
  },
  'payment-get': {
    run(call, deps) {
      return { status: 200, body: paymentBody(call, ownPayment(call, call.route.paymentId, deps), 'read', deps) };
    },
  },
  'payment-details': {
    run(call, deps) {
      const payment = ownPayment(call, call.route.paymentId, deps);
      const words = PAYMENT_STATUS[call.version];
      const status = payment.accepted ? words.settled : words.rejected;
      return {
        status: 200,
        body: {
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
          Links: { Self: `${base(call)}/domestic-payments/${encodeURIComponent(payment.paymentId)}/payment-details` },
          Meta: { TotalPages: 1 },
        },
      };
    },
  },
};

/** The debit a payment posts to its debtor account (a Faster Payment out, store/postings.ts). */
function debitOf(payment: PaymentOrderRecord): Posting {
  return fasterPaymentOut({
    transactionId: payment.paymentId,
    accountId: payment.debtorAccountId,
    time: Date.parse(payment.CreationDateTime),
    amountMinor: payment.amountMinor,
    creditor: payment.Initiation.CreditorAccount as { SchemeName?: string; Identification?: string; Name?: string } | undefined,
    reference: paymentReference(payment.Initiation),
  });
}
