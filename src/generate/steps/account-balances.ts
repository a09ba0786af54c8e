// Step: each account's balances (docs/bank-interface.md §2.3, §4.5): InterimAvailable only; writes interim_balances.

import type { StepContext, StepSpec } from '../model.js';
import { ais, aisRead } from './common.js';

const ITEM = 'account-balances: GET /accounts/{AccountId}/balances';

export function accountBalancesStep(context: StepContext): StepSpec {
  return {
    name: 'account-balances',
    title: "Each account's balances",
    description: 'GET /accounts/{AccountId}/balances for every id in account_ids; writes interim_balances.',
    items: [
      {
        name: ITEM,
        description: `${ais(context).label} Balances (per account).`,
        ...aisRead(context, '/accounts/{{account_id}}/balances', 'obie-account-balances', [
          { template: 'account-balances.test', params: { balanceType: ais(context).balanceType } },
          { template: 'account-loop.test', params: { item: ITEM } },
        ]),
        prerequest: [{ template: 'account-loop.prerequest' }],
      },
    ],
  };
}
