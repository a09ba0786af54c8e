// Step: accounts (docs/bank-interface.md §4.5): GET /accounts with the PSU's token; writes account_ids for the loops.

import type { StepContext, StepSpec } from '../model.js';
import { accountsRead, ais } from './common.js';

export function accountsStep(context: StepContext): StepSpec {
  return {
    name: 'accounts',
    title: 'Accounts',
    description: 'GET /accounts: the accounts the PSU selected; writes account_ids.',
    items: [
      {
        name: 'accounts: GET /accounts',
        description: `${ais(context).label} Accounts (bulk).`,
        ...accountsRead({ template: 'accounts.test' }, context),
      },
    ],
  };
}
