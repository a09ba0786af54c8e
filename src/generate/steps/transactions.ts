// Step: transactions (docs/bank-interface.md §4.5, §8): every account's transactions, paged to the end through Links.Next.

import type { StepSpec } from '../model.js';
import { AIS_BASE, AIS_CONTENT_TYPE, aisHeaders, checks } from './common.js';

const ITEM = 'transactions: GET /accounts/{AccountId}/transactions';

export function transactionsStep(): StepSpec {
  return {
    name: 'transactions',
    title: 'Transactions',
    description:
      'GET /accounts/{AccountId}/transactions for every id in account_ids, following Links.Next page by page (max_pages guard); writes transaction_counts.',
    items: [
      {
        name: ITEM,
        description: 'AIS v3.1 Transactions (per account), paginated: the pre-request script swaps in Links.Next of the previous page.',
        method: 'GET',
        url: `${AIS_BASE}/accounts/{{account_id}}/transactions`,
        headers: aisHeaders('access_token'),
        prerequest: [{ template: 'transactions.prerequest' }],
        test: [
          ...checks({ status: 200, echo: 'required', schema: 'obie-account-transactions', contentType: AIS_CONTENT_TYPE, errors: 'obie' }),
          { template: 'transactions.test', params: { item: ITEM } },
        ],
      },
    ],
  };
}
