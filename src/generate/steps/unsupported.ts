// Step: endpoints of the standard the bank does not implement (docs/bank-interface.md §4.5 rule 1, §4.7): each must
// answer 404, as the OBIE Read/Write Data API Profile ("HTTP Status Codes") requires, with no body or an OBErrorResponse1.

import type { StepContext, StepSpec, UnsupportedCall } from '../model.js';
import { ais, aisHeaders, checks } from './common.js';

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

/**
 * OBIE Read/Write Data API Profile, "HTTP Status Codes": "If an ASPSP has not implemented an API endpoint, it must
 * respond with a 404 (Not Found) for requests to that URL." (docs/collections.md, "The unsupported step").
 */
export const UNSUPPORTED_STATUS = 404;

export function unsupportedStep(context: StepContext): StepSpec {
  return {
    name: 'unsupported',
    title: 'Unsupported calls',
    description:
      `One call per family the bank does not implement: each must answer ${UNSUPPORTED_STATUS} Not Found (OBIE ` +
      `Read/Write Data API Profile, "HTTP Status Codes"), the interaction id echoed, no body or an OBErrorResponse1.`,
    items: context.unsupported.map((call) => ({
      name: `unsupported: GET ${call.path}`,
      description: `${call.family}: not offered by the bank, so the standard requires 404 Not Found.`,
      method: 'GET' as const,
      url: `${ais(context).base}${call.path}`,
      headers: aisHeaders('access_token', ais(context)),
      prerequest: [],
      test: [
        // The status and the body are judged by unsupported.test.js, so another status fails once, naming the rule.
        ...checks({ echo: 'required' }),
        { template: 'unsupported.test', params: { family: call.family, path: call.path }, schema: ais(context).schema('obie-error') },
      ],
    })),
  };
}
