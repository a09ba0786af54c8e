// Step: each account (docs/bank-interface.md §4.5): GET /accounts/{AccountId} for every id of account_ids (one item, looped).

import type { StepContext, StepSpec } from '../model.js';
import { ais, eachAccountRead } from './common.js';

export function eachAccountStep(context: StepContext): StepSpec {
  return {
    name: 'each-account',
    title: 'Each account',
    description: 'GET /accounts/{AccountId} for every id in account_ids, looping with pm.execution.setNextRequest.',
    items: [
      eachAccountRead(context, {
        step: 'each-account',
        path: '',
        description: `${ais(context).label} Accounts (single account).`,
        schema: 'obie-account',
        check: { template: 'each-account.test' },
      }),
    ],
  };
}
