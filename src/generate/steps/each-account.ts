// Step: each account (docs/bank-interface.md §4.5): GET /accounts/{AccountId} for every id of account_ids (one item, looped).

import type { StepContext, StepSpec } from '../model.js';
import { ais, aisRead } from './common.js';

const ITEM = 'each-account: GET /accounts/{AccountId}';

export function eachAccountStep(context: StepContext): StepSpec {
  return {
    name: 'each-account',
    title: 'Each account',
    description: 'GET /accounts/{AccountId} for every id in account_ids, looping with pm.execution.setNextRequest.',
    items: [
      {
        name: ITEM,
        description: `${ais(context).label} Accounts (single account).`,
        ...aisRead(context, '/accounts/{{account_id}}', 'obie-account', [
          { template: 'each-account.test' },
          { template: 'account-loop.test', params: { item: ITEM } },
        ]),
        prerequest: [{ template: 'account-loop.prerequest' }],
      },
    ],
  };
}
