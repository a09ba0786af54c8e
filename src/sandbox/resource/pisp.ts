// PISP domestic payments, v3.1 (3.1.11) and v4.0 (docs/sandbox-payments.md): domestic-payment-consents (create, read,
// funds confirmation) and domestic-payments (create, read, payment-details) over the one seeded bank. A payment uses
// up its consent (Authorised → Consumed), and — funds allowing — posts a debit that AIS reads show; the consent, the
// payment, the debit and the idempotency key are one transaction. Each version's status words and shapes are tables.

import { consentKindOf } from '../contracts.js';
import type { AnyConsentRecord, PaymentConsentRecord } from '../contracts.js';
import { paymentReference } from '../consent-kinds.js';
import type { BankAccount } from '../data/bank.js';
import { SORT_CODE_SCHEME } from '../data/identification.js';
import { ObieError } from '../http/errors.js';
import { fasterPaymentOut, fundsAvailable, ledgerEnd } from '../store/postings.js';
import type { Posting } from '../store/postings.js';
import type { PaymentOrderRecord } from '../store/payment-orders.js';
import { isoSeconds } from '../time.js';
import {
  accountOf,
  baseOf,
  clientConsent,
  consentOpening,
  consentAnswer,
  createConsent,
  found,
  invalid,
  ownPayment,
  ownTokenConsent,
  paymentDetails,
  paymentStatusMembers,
} from './family-common.js';
import type { ConsentResource } from './family-common.js';
import type { Answer, OperationCall, OperationHandler } from './operation.js';
import { firstDifference, validatePayment, validatePaymentConsent } from './payment-request.js';
import type { PaymentConsentRequest } from './payment-request.js';
import { AisRefusal } from './refusals.js';
import type { PaymentRoute } from './routes.js';
import { createdOn } from './versions.js';
import type { ResourceDeps } from './deps.js';

type Json = Record<string, unknown>;
type Call<K extends PaymentRoute['kind'] = PaymentRoute['kind']> = OperationCall<Extract<PaymentRoute, { kind: K }>>;

/**
 * The client's payment consent as this version may see it: another client's, another kind's, or one created on the
 * other version does not exist for it (a payment consent is paid on the version it was made on; the Operational
 * Guidelines carry only AISP and CBPII long-lived consents across versions).
 */
function ownConsent(call: Call, consentId: string | undefined, deps: ResourceDeps): PaymentConsentRecord | undefined {
  const consent = clientConsent(call, consentId, deps, isPaymentConsent);
  return consent !== undefined && createdOn(consent) === call.version ? consent : undefined;
}

function isPaymentConsent(consent: AnyConsentRecord): consent is PaymentConsentRecord {
  return consentKindOf(consent) === 'domestic-payment';
}

/** The debtor as OBCashAccountDebtor4 (PISP v4.0: "Post successful PSU Authentication, an ASPSP may provide Debtor/Name"). */
function debtorOf(account: BankAccount | undefined): Json {
  if (account === undefined) return {};
  return { Debtor: { SchemeName: SORT_CODE_SCHEME, Identification: `${account.sortCode}${account.accountNumber}`, Name: account.name } };
}

/** OBWriteDomesticConsentResponse5 of the version: the request's members as sent, the bank's around them. */
function consentBody(call: Call, consent: PaymentConsentRecord, deps: ResourceDeps): Json {
  const { Initiation, ReadRefundAccount, Authorisation, SCASupportData } = consent.Data;
  return {
    Data: {
      ...consentOpening(call, consent),
      ...(ReadRefundAccount === undefined ? {} : { ReadRefundAccount }),
      Initiation,
      ...(Authorisation === undefined ? {} : { Authorisation }),
      ...(SCASupportData === undefined ? {} : { SCASupportData }),
      ...debtorOf(accountOf(deps, consent.accountIds?.[0])),
    },
    Risk: consent.Risk,
    Links: { Self: `${baseOf(call)}/domestic-payment-consents/${encodeURIComponent(consent.ConsentId)}` },
    Meta: { TotalPages: 1 },
  };
}

/** OBWriteDomesticResponse5: `stage` is the POST's (the status a payment is created in) or a later read's. */
function paymentBody(call: Call, payment: PaymentOrderRecord, stage: 'created' | 'read', deps: ResourceDeps): Json {
  return {
    Data: {
      ...paymentStatusMembers(call, payment, 'DomesticPaymentId', stage),
      Initiation: payment.Initiation,
      ...debtorOf(accountOf(deps, payment.debtorAccountId)),
    },
    Links: { Self: `${baseOf(call)}/domestic-payments/${encodeURIComponent(payment.paymentId)}` },
    Meta: { TotalPages: 1 },
  };
}

/** The client's domestic payment (family-common.ts ownPayment). */
function paymentOf(call: Call, paymentId: string, deps: ResourceDeps): PaymentOrderRecord {
  return ownPayment(call, deps.records.paymentOrders.get(paymentId), 'DomesticPaymentId');
}

const PAYMENT_CONSENTS: ConsentResource<PaymentRoute, PaymentConsentRecord, PaymentConsentRequest> = {
  invalidRequest: 'The domestic payment consent request is invalid',
  validate: (call) => validatePaymentConsent(call.body, call.version, call.token.profile),
  record: (request, bank) => ({ kind: 'domestic-payment', ...bank, ...request }),
  own: ownConsent,
  body: consentBody,
};

export const PAYMENT_HANDLERS: { readonly [K in PaymentRoute['kind']]: OperationHandler<Extract<PaymentRoute, { kind: K }>> } = {
  'payment-consent-create': {
    keyReused: 'consent-key-reused',
    run: (call, deps) => createConsent(PAYMENT_CONSENTS, call, deps),
    replay: (call, consentId, deps) => consentAnswer(PAYMENT_CONSENTS, call, consentId, deps, 201),
  },
  'payment-consent-get': {
    run: (call, deps) => consentAnswer(PAYMENT_CONSENTS, call, call.route.consentId, deps, 200),
  },
  'payment-consent-funds': {
    run(call, deps) {
      const consent = found(ownConsent(call, call.route.consentId, deps));
      ownTokenConsent(call, consent.ConsentId);
      // PISP v4.0 domestic-payment-consents: "If the status is not AUTH, an ASPSP must respond with a 400 (Bad
      // Request) and a U009 error code." "Confirmation of funds requests do not affect the status."
      if (consent.Status !== 'Authorised')
        throw invalid(
          `the consent is ${consent.Status}`,
          'UK.OBIE.Resource.InvalidConsentStatus',
          `A ${consent.Status} consent cannot confirm funds`,
        );
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
          Links: { Self: `${baseOf(call)}/domestic-payment-consents/${encodeURIComponent(consent.ConsentId)}/funds-confirmation` },
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
      if (!result.ok) throw new ObieError(400, 'The domestic payment request is invalid', result.errors);
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
        throw invalid(
          'The payment names another consent',
          'UK.OBIE.Resource.ConsentMismatch',
          'Data.ConsentId must be the consent the token was issued for',
          'Data.ConsentId',
        );
      // "A domestic-payment can only be created if its corresponding domestic-payment-consent resource has the Status
      // of AUTH": a consumed consent refuses a second payment.
      if (consent.Status !== 'Authorised')
        throw invalid(
          `the consent is ${consent.Status}`,
          'UK.OBIE.Resource.InvalidConsentStatus',
          consent.Status === 'Consumed' ? 'The consent was already used for a payment' : `A ${consent.Status} consent cannot be paid`,
        );
      const mismatch =
        firstDifference(consent.Data.Initiation, request.Initiation, 'Data.Initiation') ??
        firstDifference(consent.Risk, request.Risk, 'Risk');
      if (mismatch !== undefined)
        throw invalid(
          'The payment does not match its consent',
          'UK.OBIE.Resource.ConsentMismatch',
          `${mismatch} differs from the consent`,
          mismatch,
        );
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
    replay: (call, paymentId, deps): Answer => ({ status: 201, body: paymentBody(call, paymentOf(call, paymentId, deps), 'read', deps) }),
  },
  'payment-get': {
    run: (call, deps) => ({ status: 200, body: paymentBody(call, paymentOf(call, call.route.paymentId, deps), 'read', deps) }),
  },
  'payment-details': {
    run: (call, deps) => paymentDetails(call, paymentOf(call, call.route.paymentId, deps), 'domestic-payments'),
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
