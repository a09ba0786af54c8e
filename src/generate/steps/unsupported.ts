// Step: unsupported calls (docs/bank-interface.md §4.5 rule 1, §4.7): each answers the bank's documented refusal, 501
// with an OBErrorResponse1 body.

import type { StepContext, StepSpec, UnsupportedCall } from '../model.js';
import { AIS_BASE, AIS_CONTENT_TYPE, aisHeaders, checks, FAPI_PREREQUEST } from './common.js';

/** GET /transactions (not account-scoped) and the bulk endpoint of every unsupported family. */
export const DEFAULT_UNSUPPORTED_CALLS: readonly UnsupportedCall[] = [
  { path: '/transactions', family: 'Transactions (not account-scoped)' },
  { path: '/beneficiaries', family: 'Beneficiaries' },
  { path: '/direct-debits', family: 'Direct Debits' },
  { path: '/standing-orders', family: 'Standing Orders' },
  { path: '/products', family: 'Products' },
  { path: '/offers', family: 'Offers' },
  { path: '/party', family: 'Parties' },
  { path: '/scheduled-payments', family: 'Scheduled Payments' },
  { path: '/statements', family: 'Statements' },
];

/** The refusal the bank documents for an endpoint it does not implement (issue 4 §3). */
export const UNSUPPORTED_STATUS = 501;

export function unsupportedStep(context: StepContext): StepSpec {
  return {
    name: 'unsupported',
    title: 'Unsupported calls',
    description: `One call per unsupported family: each must answer ${UNSUPPORTED_STATUS}, ${AIS_CONTENT_TYPE}, the interaction id echoed and an OBErrorResponse1 body.`,
    items: context.unsupported.map((call) => ({
      name: `unsupported: GET ${call.path}`,
      description: `${call.family}: not offered by the bank.`,
      method: 'GET' as const,
      url: `${AIS_BASE}${call.path}`,
      headers: aisHeaders('access_token'),
      prerequest: [FAPI_PREREQUEST],
      test: [
        checks({ status: UNSUPPORTED_STATUS, echo: 'required', schema: 'obie-error', contentType: AIS_CONTENT_TYPE }),
        { template: 'unsupported.test', params: { family: call.family } },
      ],
    })),
  };
}
