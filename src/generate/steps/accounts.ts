// Step: accounts (docs/bank-interface.md §4.5): GET /accounts with the PSU's token; writes account_ids for the loops.

import type { StepSpec } from '../model.js';
import { AIS_BASE, AIS_CONTENT_TYPE, aisHeaders, checks, FAPI_PREREQUEST } from './common.js';

export function accountsStep(): StepSpec {
  return {
    name: 'accounts',
    title: 'Accounts',
    description: 'GET /accounts: the accounts the PSU selected; writes account_ids.',
    items: [
      {
        name: 'accounts: GET /accounts',
        description: 'AIS v3.1 Accounts (bulk).',
        method: 'GET',
        url: `${AIS_BASE}/accounts`,
        headers: aisHeaders('access_token'),
        prerequest: [FAPI_PREREQUEST],
        test: [
          ...checks({ status: 200, echo: 'required', schema: 'obie-accounts', contentType: AIS_CONTENT_TYPE }),
          { template: 'accounts.test' },
        ],
      },
    ],
  };
}
