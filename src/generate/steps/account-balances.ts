// Step: each account's balances (docs/bank-interface.md §2.3, §4.5): InterimAvailable only; writes interim_balances.

import type { StepSpec } from '../model.js';
import { AIS_BASE, AIS_CONTENT_TYPE, aisHeaders, checks } from './common.js';

const ITEM = 'account-balances: GET /accounts/{AccountId}/balances';

export function accountBalancesStep(): StepSpec {
  return {
    name: 'account-balances',
    title: "Each account's balances",
    description: 'GET /accounts/{AccountId}/balances for every id in account_ids; writes interim_balances.',
    items: [
      {
        name: ITEM,
        description: 'AIS v3.1 Balances (per account).',
        method: 'GET',
        url: `${AIS_BASE}/accounts/{{account_id}}/balances`,
        headers: aisHeaders('access_token'),
        prerequest: [{ template: 'account-loop.prerequest' }],
        test: [
          ...checks({ status: 200, echo: 'required', schema: 'obie-account-balances', contentType: AIS_CONTENT_TYPE, errors: 'obie' }),
          { template: 'account-balances.test' },
          { template: 'account-loop.test', params: { item: ITEM } },
        ],
      },
    ],
  };
}
