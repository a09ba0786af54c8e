// Step: all balances (docs/bank-interface.md §4.5): GET /balances, InterimAvailable only, agreeing with the per-account reads.

import type { StepContext, StepSpec } from '../model.js';
import { ais, aisRead } from './common.js';

export function allBalancesStep(context: StepContext): StepSpec {
  return {
    name: 'all-balances',
    title: 'All balances',
    description: 'GET /balances: one InterimAvailable balance per consented account.',
    items: [
      {
        name: 'all-balances: GET /balances',
        description: `${ais(context).label} Balances (bulk).`,
        ...aisRead(context, '/balances', 'obie-balances', [
          { template: 'all-balances.test', params: { balanceType: ais(context).balanceType } },
        ]),
        prerequest: [],
      },
    ],
  };
}
