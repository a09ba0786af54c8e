// Step: each account (docs/bank-interface.md §4.5): GET /accounts/{AccountId} for every id of account_ids (one item, looped).

import type { StepSpec } from '../model.js';
import { AIS_BASE, AIS_CONTENT_TYPE, aisHeaders, checks } from './common.js';

const ITEM = 'each-account: GET /accounts/{AccountId}';

export function eachAccountStep(): StepSpec {
  return {
    name: 'each-account',
    title: 'Each account',
    description: 'GET /accounts/{AccountId} for every id in account_ids, looping with pm.execution.setNextRequest.',
    items: [
      {
        name: ITEM,
        description: 'AIS v3.1 Accounts (single account).',
        method: 'GET',
        url: `${AIS_BASE}/accounts/{{account_id}}`,
        headers: aisHeaders('access_token'),
        prerequest: [{ template: 'account-loop.prerequest' }],
        test: [
          ...checks({ status: 200, echo: 'required', schema: 'obie-account', contentType: AIS_CONTENT_TYPE, errors: 'obie' }),
          { template: 'each-account.test' },
          { template: 'account-loop.test', params: { item: ITEM } },
        ],
      },
    ],
  };
}
