// Step: accounts (docs/bank-interface.md §4.5): GET /accounts with the PSU's token; writes account_ids for the loops.

import type { StepSpec } from '../model.js';
import { accountsRead } from './common.js';

export function accountsStep(): StepSpec {
  return {
    name: 'accounts',
    title: 'Accounts',
    description: 'GET /accounts: the accounts the PSU selected; writes account_ids.',
    items: [
      {
        name: 'accounts: GET /accounts',
        description: 'AIS v3.1 Accounts (bulk).',
        ...accountsRead({ template: 'accounts.test' }),
      },
    ],
  };
}
