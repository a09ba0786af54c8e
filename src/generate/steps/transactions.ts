// Step: transactions (docs/bank-interface.md §4.5, §8): every account's transactions, paged to the end through Links.Next.

import { aisBasePath } from '../api-versions.js';
import type { StepContext, StepSpec } from '../model.js';
import { ais, aisRead } from './common.js';

const ITEM = 'transactions: GET /accounts/{AccountId}/transactions';

export function transactionsStep(context: StepContext): StepSpec {
  return {
    name: 'transactions',
    title: 'Transactions',
    description:
      'GET /accounts/{AccountId}/transactions for every id in account_ids, following Links.Next page by page (max_pages guard); writes transaction_counts.',
    items: [
      {
        name: ITEM,
        description: `${ais(context).label} Transactions (per account), paginated: the pre-request script swaps in Links.Next of the previous page.`,
        ...aisRead(context, '/accounts/{{account_id}}/transactions', 'obie-account-transactions', [
          { template: 'transactions.test', params: { item: ITEM, aisPath: aisBasePath(context.apiVersion) } },
        ]),
        prerequest: [{ template: 'transactions.prerequest' }],
      },
    ],
  };
}
