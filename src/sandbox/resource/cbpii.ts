// CBPII confirmation of funds, v3.1 (3.1.11) and v4.0 (docs/sandbox-payments.md): funds-confirmation-consents (create,
// read, delete: client credentials) and funds-confirmations (authorization code): whether the PSU's account, the one the
// consent names, can pay an amount now, by the bank's one funds rule (store/postings.ts fundsAvailable). No request or
// answer is signed and none is idempotent (both files and the v4.0 pages' endpoint tables).

import { consentKindOf } from '../contracts.js';
import type { AccessTokenInfo, AisApiVersion, AnyConsentRecord, FundsConsentRecord } from '../contracts.js';
import { FAMILIES } from '../families.js';
import { ObieError } from '../http/errors.js';
import { tolerates } from '../policy.js';
import { usableConsent } from '../store/consents.js';
import { fundsAvailable } from '../store/postings.js';
import { isoSeconds } from '../time.js';
import {
  accountOf,
  clientConsent,
  consentAnswer,
  consentOpening,
  createConsent,
  invalid,
  notFound,
  revokeConsent,
} from './family-common.js';
import type { ConsentResource } from './family-common.js';
import type { OperationCall, OperationHandler } from './operation.js';
import { validateFundsConfirmation, validateFundsConsent } from './payment-request.js';
import type { FundsConsentRequest } from './payment-request.js';
import { AisRefusal } from './refusals.js';
import type { FundsRoute } from './routes.js';
import { createdOn, VERSION_ROWS } from './versions.js';
import type { ResourceDeps } from './deps.js';

type Call = OperationCall<FundsRoute>;

/**
 * Whether a funds-confirmation consent made on one version serves `version`: OBL Operational Guidelines v4.0,
 * "Implementation of a new Open Banking Standard": "There is no impact on existing AISP and CBPII long-lived consents,
 * if consent is given in an older version" — a v3.1 consent serves v4.0; a v4.0 one serves v3.1 only where the
 * profile tolerates consent-newer-version (as for account-access consents, docs/sandbox-ais.md).
 */
function servesVersion(consent: AnyConsentRecord, version: AisApiVersion, token: AccessTokenInfo): boolean {
  return VERSION_ROWS[createdOn(consent)].rank <= VERSION_ROWS[version].rank || tolerates(token.profile, 'consent-newer-version');
}

function isFundsConsent(consent: AnyConsentRecord): consent is FundsConsentRecord {
  return consentKindOf(consent) === 'funds-confirmation';
}

/** The client's funds-confirmation consent as this version may see it; one it deleted no longer exists for it. */
function ownConsent(call: Call, consentId: string | undefined, deps: ResourceDeps): FundsConsentRecord | undefined {
  const consent = clientConsent(call, consentId, deps, isFundsConsent);
  if (consent === undefined || consent.Status === 'Revoked') return undefined;
  return servesVersion(consent, call.version, call.token) ? consent : undefined;
}

/** OBFundsConfirmationConsentResponse1 of the version (v4.0: the status as OBInternalConsentStatus1Code, EXPD past its
 *  ExpirationDateTime, with StatusReason where the code has one). */
function consentBody(call: Call, consent: FundsConsentRecord): Record<string, unknown> {
  return {
    Data: {
      ...consentOpening(call, consent),
      ...(consent.ExpirationDateTime === undefined ? {} : { ExpirationDateTime: consent.ExpirationDateTime }),
      DebtorAccount: consent.DebtorAccount,
    },
    Links: {
      Self: `${call.origin}${FAMILIES.funds.basePaths[call.version]}/funds-confirmation-consents/${encodeURIComponent(consent.ConsentId)}`,
    },
    Meta: { TotalPages: 1 },
  };
}

const FUNDS_CONSENTS: ConsentResource<FundsRoute, FundsConsentRecord, FundsConsentRequest> = {
  invalidRequest: 'The funds confirmation consent request is invalid',
  validate: (call, now) => validateFundsConsent(call.body, call.version, call.token.profile, now),
  record: (request, bank) => ({ kind: 'funds-confirmation', ...bank, ...request }),
  own: ownConsent,
  body: consentBody,
};

export const FUNDS_HANDLERS: { readonly [K in FundsRoute['kind']]: OperationHandler<Extract<FundsRoute, { kind: K }>> } = {
  'funds-consent-create': {
    run: (call, deps) => createConsent(FUNDS_CONSENTS, call, deps),
  },
  'funds-consent-get': {
    run: (call, deps) => consentAnswer(FUNDS_CONSENTS, call, call.route.consentId, deps, 200),
  },
  'funds-consent-delete': {
    run(call, deps) {
      const consentId = call.route.consentId;
      if (ownConsent(call, consentId, deps) === undefined) throw notFound('ConsentId');
      // CBPII "DELETE /funds-confirmation-consents/{ConsentId}": the CBPII deletes the resource; it is kept Revoked so
      // the tokens issued under it stop working, and no longer exists for the client (as account-access consents).
      revokeConsent(call, consentId, deps);
      return { status: 204 };
    },
  },
  'funds-confirm': {
    run(call, deps) {
      const { token, version } = call;
      const now = call.ctx.now();
      const result = validateFundsConfirmation(call.body, version, token.profile);
      if (!result.ok) throw new ObieError(400, 'The funds confirmation request is invalid', result.errors);
      const consent = clientConsent(call, token.consentId, deps, isFundsConsent);
      if (consent === undefined)
        throw new AisRefusal('consent-not-authorised', version, 'The token is not linked to a funds confirmation consent of this client');
      // "The CBPII must use a token issued via an authorization code grant and specify the ConsentId in the request
      // payload": the one the token was issued for.
      if (result.value.ConsentId !== consent.ConsentId)
        throw invalid(
          'The request names another consent',
          'UK.OBIE.Field.Invalid',
          'Data.ConsentId must be the consent the token was issued for',
          'Data.ConsentId',
        );
      const use = usableConsent(consent, now);
      if (!use.usable && use.reason === 'expired') throw new AisRefusal('consent-expired', version, 'The consent has expired');
      if (!use.usable) throw new AisRefusal('consent-not-authorised', version, `The consent is ${consent.Status}`);
      if (!servesVersion(consent, version, token))
        throw new AisRefusal('consent-other-version', version, `The consent was created on v${createdOn(consent)}, not for v${version}`);
      const account = accountOf(deps, consent.accountIds?.[0]);
      return {
        status: 201,
        body: {
          Data: {
            FundsConfirmationId: `fc-${deps.newId()}`,
            ConsentId: consent.ConsentId,
            CreationDateTime: isoSeconds(now),
            FundsAvailable: account !== undefined && fundsAvailable(deps.bank, account, result.value.amountMinor),
            Reference: result.value.Reference,
            InstructedAmount: result.value.InstructedAmount,
          },
        },
      };
    },
  },
};
