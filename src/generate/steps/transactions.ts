// Step: transactions (docs/bank-interface.md §4.5, §8): every account's transactions, paged to the end through Links.Next.

import type { StepSpec } from '../model.js';
import { AIS_BASE, AIS_CONTENT_TYPE, aisHeaders, checks } from './common.js';

const FIRST_ITEM = 'transactions: GET /accounts/{AccountId}/transactions';
const NEXT_ITEM = 'transactions: GET Links.Next';

/**
 * Two items: an account's first page, whose pre-request script picks the account (once per account), and a next page,
 * whose URL is the previous page's Links.Next as its test script left it — no pre-request script per page (issue 21:
 * jo's 104 pages ran 104 of them). `afterItem` is the first request of the flow's next step ('' when none): the loop
 * leaves the step there, over the next-page item (docs/collections.md "Loops").
 */
export function transactionsStep(afterItem: string): StepSpec {
  const test = [
    ...checks({ status: 200, echo: 'required', schema: 'obie-account-transactions', contentType: AIS_CONTENT_TYPE, errors: 'obie' }),
    { template: 'transactions.test', params: { firstItem: FIRST_ITEM, nextItem: NEXT_ITEM, afterItem } },
  ];
  return {
    name: 'transactions',
    title: 'Transactions',
    description:
      'GET /accounts/{AccountId}/transactions for every id in account_ids, following Links.Next page by page (max_pages guard); writes transaction_counts.',
    items: [
      {
        name: FIRST_ITEM,
        description: 'AIS v3.1 Transactions (per account): the first page of the account at account_index.',
        method: 'GET',
        url: `${AIS_BASE}/accounts/{{account_id}}/transactions`,
        headers: aisHeaders('access_token'),
        prerequest: [{ template: 'transactions.prerequest' }],
        test,
      },
      {
        name: NEXT_ITEM,
        description:
          "AIS v3.1 Transactions, a next page (\"Pagination\"): the previous page's Links.Next, requested as given once the previous page's test script checked it is on the first page's origin and path.",
        method: 'GET',
        url: '{{transactions_next_url}}',
        headers: aisHeaders('access_token'),
        prerequest: [],
        test,
      },
    ],
  };
}
