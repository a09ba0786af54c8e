// Domestic variable recurring payments, v3.1 (3.1.11) and v4.0 with the cVRP types (docs/sandbox-vrp.md):
// domestic-vrp-consents (create, read, delete, funds confirmation) and domestic-vrps (create, read, payment-details)
// over the one seeded bank. A consent is a mandate: its ControlParameters, read once into limits (vrp-request.ts),
// bound every payment made under it (vrp-limits.ts). "Never twice, never past the mandate": the check of the limits
// against the consent's earlier payments, the payment, its debit and its idempotency key are one SQLite transaction
// (BEGIN IMMEDIATE), so concurrent payments cannot both fit into room only one has, and a crash keeps all or none.

import { consentKindOf } from '../contracts.js';
import type { AnyConsentRecord, CashAccount, VrpConsentRecord } from '../contracts.js';
import { paymentReference } from '../consent-kinds.js';
import type { BankAccount } from '../data/bank.js';
import { SORT_CODE_SCHEME } from '../data/identification.js';
import { ObieError } from '../http/errors.js';
import { usableConsent } from '../store/consents.js';
import { fasterPaymentOut, fundsAvailable, ledgerEnd } from '../store/postings.js';
import type { VrpPaymentRecord } from '../store/vrp-payments.js';
import { isoSeconds } from '../time.js';
import {
  accountOf,
  baseOf,
  clientConsent,
  consentAnswer,
  createConsent,
  found,
  invalid,
  ownPayment,
  ownTokenConsent,
  paymentDetails,
  paymentStatusMembers,
  revokeConsent,
} from './family-common.js';
import type { ConsentResource } from './family-common.js';
import type { OperationCall, OperationHandler } from './operation.js';
import { firstDifference } from './payment-request.js';
import { AisRefusal } from './refusals.js';
import type { VrpRoute } from './routes.js';
import { createdOn, VERSION_ROWS } from './versions.js';
import { firstBreach } from './vrp-limits.js';
import { validateVrpConsent, validateVrpFunds, validateVrpPayment } from './vrp-request.js';
import type { VrpConsentRequest } from './vrp-request.js';
import { DEFAULT_INTERACTION_TYPE, FUNDS_AVAILABLE, VRP_VERSIONS } from './vrp-tables.js';
import type { ResourceDeps } from './deps.js';

type Json = Record<string, unknown>;
type Call = OperationCall<VrpRoute>;

function isVrpConsent(consent: AnyConsentRecord): consent is VrpConsentRecord {
  return consentKindOf(consent) === 'domestic-vrp';
}

/**
 * The client's VRP consent as this version may see it: another client's, another kind's or one made on the other
 * version does not exist for it (a VRP consent serves the version it was made on: its PUT/PATCH migration is not
 * implemented, routes.ts VRP_UNIMPLEMENTED_METHODS); one the TPP deleted exists only where the version has a word
 * for it (vrp-tables.ts VRP_VERSIONS: v4.0 CANC).
 */
function ownConsent(call: Call, consentId: string | undefined, deps: ResourceDeps): VrpConsentRecord | undefined {
  const consent = tokenConsent(call, consentId, deps);
  if (consent?.Status === 'Revoked' && !VRP_VERSIONS[call.version].revokedReadable) return undefined;
  return consent;
}

/** The consent an authorization-code token was issued for, revoked or not: a payment or a funds check with the token of
 *  a revoked consent is refused for its status, whatever the version calls the status. */
function tokenConsent(call: Call, consentId: string | undefined, deps: ResourceDeps): VrpConsentRecord | undefined {
  const consent = clientConsent(call, consentId, deps, isVrpConsent);
  return consent !== undefined && createdOn(consent) === call.version ? consent : undefined;
}

/** OBCashAccountDebtorWithName of the account the consent was authorised for ("The details must be provided in the
 *  consent response … to enable the PISP to associate it with future VRP payments"). */
function debtorAccount(account: BankAccount | undefined): Json {
  if (account === undefined) return {};
  return {
    DebtorAccount: { SchemeName: SORT_CODE_SCHEME, Identification: `${account.sortCode}${account.accountNumber}`, Name: account.name },
  };
}

/** OBDomesticVRPConsentResponse of the version: the request's members as sent, the bank's around them. */
function consentBody(call: Call, consent: VrpConsentRecord, deps: ResourceDeps): Json {
  const { ReadRefundAccount, ControlParameters, Initiation } = consent.Data;
  return {
    Data: {
      ConsentId: consent.ConsentId,
      ...(ReadRefundAccount === undefined ? {} : { ReadRefundAccount }),
      CreationDateTime: consent.CreationDateTime,
      ...VERSION_ROWS[call.version].consentStatus(consent, call.ctx.now()),
      StatusUpdateDateTime: consent.StatusUpdateDateTime,
      ControlParameters,
      Initiation,
      ...debtorAccount(accountOf(deps, consent.accountIds?.[0])),
    },
    Risk: consent.Risk,
    Links: { Self: `${baseOf(call)}/domestic-vrp-consents/${encodeURIComponent(consent.ConsentId)}` },
    Meta: { TotalPages: 1 },
  };
}

/** OBDomesticVRPResponse: `stage` is the POST's (the status a payment is created in) or a later read's (the bank
 *  settles at once: PAYMENT_STATUS, the domestic payments' words; none is CANC, which the cVRP file removed). */
function paymentBody(call: Call, payment: VrpPaymentRecord, stage: 'created' | 'read', deps: ResourceDeps): Json {
  const consent = deps.records.consents.read(payment.ConsentId);
  return {
    Data: {
      ...paymentStatusMembers(call, payment, 'DomesticVRPId', stage),
      Initiation: payment.Initiation,
      Instruction: payment.Instruction,
      ...debtorAccount(accountOf(deps, payment.debtorAccountId)),
    },
    Risk: consent !== undefined && isVrpConsent(consent) ? consent.Risk : {},
    Links: { Self: `${baseOf(call)}/domestic-vrps/${encodeURIComponent(payment.paymentId)}` },
    Meta: { TotalPages: 1 },
  };
}

/** The client's domestic VRP (family-common.ts ownPayment). */
function paymentOf(call: Call, paymentId: string, deps: ResourceDeps): VrpPaymentRecord {
  return ownPayment(call, deps.records.vrpPayments.get(paymentId), 'DomesticVRPId');
}

/** Whether `given` names the same account as `kept` (SchemeName, Identification, and SecondaryIdentification when the
 *  consent gives one); Name is the account holder's wording, not the account. */
function sameAccount(kept: Partial<CashAccount>, given: CashAccount): string | undefined {
  for (const member of ['SchemeName', 'Identification', 'SecondaryIdentification'] as const)
    if (kept[member] !== undefined && kept[member] !== given[member]) return member;
  return undefined;
}

const MISMATCH = 'UK.OBIE.Resource.ConsentMismatch';
const FAILS_CONTROL_PARAMETERS = 'UK.OBIE.Rules.FailsControlParameters';

const VRP_CONSENTS: ConsentResource<VrpRoute, VrpConsentRecord, VrpConsentRequest> = {
  invalidRequest: 'The domestic VRP consent request is invalid',
  validate: (call, now) => validateVrpConsent(call.body, call.version, call.token.profile, now),
  record: (request, bank) => ({ kind: 'domestic-vrp', ...bank, ...request }),
  own: ownConsent,
  body: consentBody,
};

export const VRP_HANDLERS: { readonly [K in VrpRoute['kind']]: OperationHandler<Extract<VrpRoute, { kind: K }>> } = {
  'vrp-consent-create': {
    keyReused: 'vrp-key-reused',
    run: (call, deps) => createConsent(VRP_CONSENTS, call, deps),
    replay: (call, consentId, deps) => consentAnswer(VRP_CONSENTS, call, consentId, deps, 201),
  },
  'vrp-consent-get': {
    run: (call, deps) => consentAnswer(VRP_CONSENTS, call, call.route.consentId, deps, 200),
  },
  'vrp-consent-delete': {
    run(call, deps) {
      const consent = found(ownConsent(call, call.route.consentId, deps));
      // VRP profile v4.0, "Consent Revocation": "The TPP must call the DELETE operation on the VRP Consent resource to
      // indicate to the ASPSP that the PSU has revoked consent"; its payments are then refused (InvalidConsentStatus).
      revokeConsent(call, consent.ConsentId, deps);
      return { status: 204 };
    },
  },
  'vrp-consent-funds': {
    run(call, deps) {
      const { token, version } = call;
      const now = call.ctx.now();
      const result = validateVrpFunds(call.body, version, token.profile);
      if (!result.ok) throw new ObieError(400, 'The funds confirmation request is invalid', result.errors);
      const consent = found(tokenConsent(call, call.route.consentId, deps));
      ownTokenConsent(call, consent.ConsentId);
      if (result.value.ConsentId !== consent.ConsentId)
        throw invalid(
          'The request names another consent',
          'UK.OBIE.Field.Invalid',
          'Data.ConsentId must be the ConsentId of the path',
          'Data.ConsentId',
        );
      // VRP v4.0 domestic-vrp-consents: "An ASPSP can only respond to a funds confirmation request if the resource has a
      // Status of AUTH. If resource has any other Status, the ASPSP must respond with a 400 (Bad Request) and a U009".
      const use = usableConsent(consent, now);
      if (!use.usable)
        throw invalid(
          `the consent is ${use.reason === 'expired' ? 'expired' : consent.Status}`,
          'UK.OBIE.Resource.InvalidConsentStatus',
          `A consent that is ${use.reason === 'expired' ? 'past its ValidToDateTime' : consent.Status} cannot confirm funds`,
        );
      const account = accountOf(deps, consent.accountIds?.[0]);
      const available = account !== undefined && fundsAvailable(deps.bank, account, result.value.amountMinor);
      return {
        status: 201,
        body: {
          Data: {
            FundsConfirmationId: `vfc-${deps.newId()}`,
            ConsentId: consent.ConsentId,
            CreationDateTime: isoSeconds(now),
            ...(result.value.Reference === undefined ? {} : { Reference: result.value.Reference }),
            FundsAvailableResult: {
              FundsAvailableDateTime: isoSeconds(now),
              FundsAvailable: available ? FUNDS_AVAILABLE.yes : FUNDS_AVAILABLE.no,
            },
            InstructedAmount: result.value.InstructedAmount,
          },
        },
      };
    },
  },
  'vrp-create': {
    keyReused: 'vrp-key-reused',
    run(call, deps) {
      const { token, version } = call;
      const now = call.ctx.now();
      const result = validateVrpPayment(call.body, version, token.profile);
      if (!result.ok) throw new ObieError(400, 'The domestic VRP request is invalid', result.errors);
      const request = result.value;
      const consent = tokenConsent(call, token.consentId, deps);
      if (consent === undefined)
        throw new AisRefusal('consent-not-authorised', version, 'The token is not linked to a VRP consent of this client on this version');
      // VRP v4.0 domestic-vrps: the payment names the consent it is made under.
      if (request.ConsentId !== consent.ConsentId)
        throw invalid(
          'The payment names another consent',
          MISMATCH,
          'Data.ConsentId must be the consent the token was issued for',
          'Data.ConsentId',
        );
      // "A domestic-vrps can only be created if its corresponding domestic-vrp-consents resource has the Status of AUTH."
      if (consent.Status !== 'Authorised') throw notAuthorised(consent);
      // "The TPP must ensure that the Initiation and Risk section matches the values specified in the consent."
      const mismatch =
        firstDifference(consent.Data.Initiation, request.Initiation, 'Data.Initiation') ??
        firstDifference(consent.Risk, request.Risk, 'Risk');
      if (mismatch !== undefined)
        throw invalid('The payment does not match its consent', MISMATCH, `${mismatch} differs from the consent`, mismatch);
      const initiation = consent.Data.Initiation as { CreditorAccount?: Partial<CashAccount>; RemittanceInformation?: unknown };
      // The creditor the consent names is the one every payment pays (only a consent without one leaves it to each
      // payment: "If the CreditorAccount was not specified in the the consent, the CreditorAccount must be specified in
      // the instruction").
      const creditorDiffers =
        initiation.CreditorAccount === undefined ? undefined : sameAccount(initiation.CreditorAccount, request.creditor);
      if (creditorDiffers !== undefined)
        throw invalid(
          'The payment pays another creditor than its consent',
          MISMATCH,
          `Data.Instruction.CreditorAccount.${creditorDiffers} is not the consent's Data.Initiation.CreditorAccount.${creditorDiffers}`,
          `Data.Instruction.CreditorAccount.${creditorDiffers}`,
        );
      // VRP v4.0 domestic-vrp-consents: Remittance Information given at the consent "MUST be provided by the PISP in the
      // Initiation and Instruction section of each VRP Payment".
      const remittance =
        initiation.RemittanceInformation === undefined
          ? undefined
          : firstDifference(
              initiation.RemittanceInformation,
              request.Instruction.RemittanceInformation,
              'Data.Instruction.RemittanceInformation',
            );
      if (remittance !== undefined)
        throw invalid(
          'The payment does not carry its consent\u2019s remittance information',
          MISMATCH,
          `${remittance} differs from the consent's Data.Initiation.RemittanceInformation`,
          remittance,
        );
      const debtor = accountOf(deps, consent.accountIds?.[0]);
      if (debtor === undefined) throw new TypeError(`authorised VRP consent ${consent.ConsentId} has no debtor account`);
      const payment = deps.records.transaction((): VrpPaymentRecord => {
        // Read again inside the transaction (BEGIN IMMEDIATE: no other connection commits meanwhile): a DELETE committed
        // since, or the payments another request just made, count.
        const current = deps.records.consents.read(consent.ConsentId);
        if (current === undefined || current.Status !== 'Authorised') throw notAuthorised(current ?? consent);
        const paid = deps.records.vrpPayments
          .ofConsent(consent.ConsentId)
          .filter((earlier) => earlier.accepted)
          .map((earlier) => ({ time: earlier.time, amountMinor: earlier.amountMinor }));
        const breach = firstBreach(
          consent.mandate,
          Date.parse(consent.CreationDateTime),
          {
            at: now.getTime(),
            amountMinor: request.amountMinor,
            currency: request.currency,
            vrpType: request.VRPType,
            authenticationMethod: request.PSUAuthenticationMethod,
            interactionType: request.PSUInteractionType ?? DEFAULT_INTERACTION_TYPE,
          },
          paid,
        );
        if (breach !== undefined)
          throw invalid(
            'The payment breaches its consent\u2019s control parameters',
            FAILS_CONTROL_PARAMETERS,
            breach.message,
            breach.path,
          );
        // The bank's one funds rule; a payment without them is made rejected (AM04), moves nothing and counts against no limit.
        const accepted = fundsAvailable(deps.bank, debtor, request.amountMinor);
        const record: VrpPaymentRecord = {
          paymentId: `vrp-${deps.newId()}`,
          ConsentId: consent.ConsentId,
          clientId: token.clientId,
          apiVersion: version,
          CreationDateTime: isoSeconds(now),
          time: now.getTime(),
          accepted,
          debtorAccountId: debtor.accountId,
          amountMinor: request.amountMinor,
          PSUAuthenticationMethod: request.PSUAuthenticationMethod,
          ...(request.PSUInteractionType === undefined ? {} : { PSUInteractionType: request.PSUInteractionType }),
          VRPType: request.VRPType,
          Initiation: request.Initiation,
          Instruction: request.Instruction,
        };
        deps.records.vrpPayments.insert(record);
        if (accepted)
          deps.records.postings.post(
            fasterPaymentOut({
              transactionId: record.paymentId,
              accountId: debtor.accountId,
              time: Date.parse(record.CreationDateTime),
              amountMinor: record.amountMinor,
              creditor: request.creditor,
              reference: paymentReference(request.Instruction),
            }),
            ledgerEnd(deps.bank.ledger(debtor.accountId)),
          );
        if (call.idempotency) deps.records.idempotency.remember(call.idempotency.scope, call.idempotency.bodyHash, record.paymentId, now);
        return record;
      });
      return { status: 201, body: paymentBody(call, payment, 'created', deps) };
    },
    replay: (call, paymentId, deps) => ({ status: 201, body: paymentBody(call, paymentOf(call, paymentId, deps), 'read', deps) }),
  },
  'vrp-get': {
    run: (call, deps) => ({ status: 200, body: paymentBody(call, paymentOf(call, call.route.paymentId, deps), 'read', deps) }),
  },
  'vrp-details': {
    run: (call, deps) => paymentDetails(call, paymentOf(call, call.route.paymentId, deps), 'domestic-vrps'),
  },
};

/** A payment under a consent that is not Authorised: "A domestic-vrps can only be created if its corresponding
 *  domestic-vrp-consents resource has the Status of AUTH" (a revoked one: "The ASPSP must fail any future payment
 *  order request using the ConsentId"). */
function notAuthorised(consent: AnyConsentRecord): ObieError {
  const why = consent.Status === 'Revoked' ? 'The consent was revoked (deleted by the TPP)' : `A ${consent.Status} consent cannot be paid`;
  return invalid(`the consent is ${consent.Status}`, 'UK.OBIE.Resource.InvalidConsentStatus', why);
}
