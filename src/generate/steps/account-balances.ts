// Step: each account's balances (docs/bank-interface.md §2.3, §4.5): InterimAvailable only; writes interim_balances.

import type { StepContext, StepSpec } from '../model.js';
import { ais, eachAccountRead } from './common.js';

export function accountBalancesStep(context: StepContext): StepSpec {
  return {
    name: 'account-balances',
    title: "Each account's balances",
    description: 'GET /accounts/{AccountId}/balances for every id in account_ids; writes interim_balances.',
    items: [
      eachAccountRead(context, {
        step: 'account-balances',
        path: '/balances',
        description: `${ais(context).label} Balances (per account).`,
        schema: 'obie-account-balances',
        check: { template: 'account-balances.test', params: { balanceType: ais(context).balanceType } },
      }),
    ],
  };
}
