// Step: all balances (docs/bank-interface.md §4.5): GET /balances, InterimAvailable only, agreeing with the per-account reads.

import type { StepSpec } from '../model.js';
import { AIS_BASE, AIS_CONTENT_TYPE, aisHeaders, checks } from './common.js';

export function allBalancesStep(): StepSpec {
  return {
    name: 'all-balances',
    title: 'All balances',
    description: 'GET /balances: one InterimAvailable balance per consented account.',
    items: [
      {
        name: 'all-balances: GET /balances',
        description: 'AIS v3.1 Balances (bulk).',
        method: 'GET',
        url: `${AIS_BASE}/balances`,
        headers: aisHeaders('access_token'),
        prerequest: [],
        test: [
          ...checks({ status: 200, echo: 'required', schema: 'obie-balances', contentType: AIS_CONTENT_TYPE, errors: 'obie' }),
          { template: 'all-balances.test' },
        ],
      },
    ],
  };
}
