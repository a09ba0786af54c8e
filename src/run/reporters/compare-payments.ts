// The payment made on v3.1 beside the one made on v4.0 (a run of `--apis payments --api-version 3.1,4.0`): the same
// payment asked for on both, so its amount, payee, funds verdict and statuses must agree once v4.0's ISO 20022 codes
// are read as v3.1's names. The ids differ (two payments); the signature counts are shown, not judged (a bank may sign
// a refusal on one version only where the files let it). Pure.

import type { PaymentRow } from '../../runner-rules.js';
import { ABSENT, outcomeRows, type OutcomeRows } from './compare-rows.js';

/**
 * v4.0's codes for v3.1's names. Payment: OBIE v3.1.11 OBTransactionIndividualStatus1Code ↔ ISO 20022
 * ExternalPaymentTransactionStatus1Code (OBL v4.0 pisp/domestic-payments.md, "Status"; each v3.1 name is the ISO code's
 * definition name). Consent: OBIE v3.1.11 OBExternalConsentStatus1Code ↔ the v4.0 consent codes
 * (pisp/domestic-payment-consents.md, "Status").
 */
export const STATUS_CODES: Readonly<Record<'payment' | 'consent', Readonly<Record<string, string>>>> = {
  payment: {
    Pending: 'PDNG',
    Rejected: 'RJCT',
    AcceptedSettlementInProcess: 'ACSP',
    AcceptedSettlementCompleted: 'ACSC',
    AcceptedWithoutPosting: 'ACWP',
    AcceptedCreditSettlementCompleted: 'ACCC',
  },
  consent: { AwaitingAuthorisation: 'AWAU', Authorised: 'AUTH', Consumed: 'COND', Rejected: 'RJCT' },
};

/** The payment's rows (compare-outcomes.ts OUTCOME_COMPARISONS' payments row): equal, or equal once v4.0's code is read
 *  as v3.1's name; the signature counts shown, not judged. */
export function comparePayments(v31: PaymentRow | undefined, v40: PaymentRow | undefined): OutcomeRows {
  const { rows, same, mapped } = outcomeRows();
  const amount = (row: PaymentRow | undefined) => (row?.amount === undefined ? undefined : `${row.amount} ${row.currency ?? ''}`.trimEnd());
  same('InstructedAmount', amount(v31), amount(v40));
  same('CreditorAccount.Name', v31?.creditor, v40?.creditor);
  mapped('payment Status', STATUS_CODES.payment, v31?.status, v40?.status);
  mapped('consent Status', STATUS_CODES.consent, v31?.consentStatus, v40?.consentStatus);
  const funds = (row: PaymentRow | undefined) => (row?.fundsAvailable === undefined ? undefined : String(row.fundsAvailable));
  same('funds available', funds(v31), funds(v40));
  const signatures = (row: PaymentRow | undefined) =>
    row?.signatures === undefined ? ABSENT : `${row.signatures.signed} signed, ${row.signatures.verified} verified`;
  rows.push({ field: 'signatures', v31: signatures(v31), v40: signatures(v40), verdict: 'shown' });
  return rows;
}
