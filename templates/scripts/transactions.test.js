/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
/* global obflowBody */
// One page of GET /accounts/{AccountId}/transactions: ≤ 100 transactions (bank-interface.md §8), all of this
// account; page links absolute, on the first page's origin and path, never repeating a page; Next absent exactly on
// the last page (Meta.TotalPages). Then: next page, next account, or done; max_pages guards against endless paging.
const env = pm.environment;
const url = require('url');
const item = '{{js item}}';
const ids = JSON.parse(env.get('account_ids') || '[]');
const index = Number(env.get('account_index') || '0');
const accountId = env.get('account_id');
const maxPages = Number(env.get('max_pages') || '200');
const page = Number(env.get('transactions_page') || '0') + 1;
const firstUrl =
  page === 1
    ? String(env.get('rs')).replace(/\/+$/, '') + '{{js aisPath}}/accounts/' + encodeURIComponent(accountId) + '/transactions'
    : env.get('transactions_first_url');
// The pages read so far, this one included: each by the URL requested, and by its Links.Self when that differs.
const read = (page === 1 ? [] : JSON.parse(env.get('transactions_seen_urls') || '[]')).concat([
  env.get('transactions_next_url') || firstUrl,
]);
let body = {};
try {
  body = obflowBody() || {};
} catch {
  body = {};
}
const transactions = (body.Data || {}).Transaction || [];
const links = body.Links || {};
const meta = body.Meta || {};
const next = typeof links.Next === 'string' ? links.Next : '';
const seen = typeof links.Self === 'string' && read.indexOf(links.Self) < 0 ? read.concat([links.Self]) : read;

function originAndPath(link) {
  const parsed = url.parse(String(link));
  return (parsed.protocol || '') + '//' + (parsed.host || '') + (parsed.pathname || '');
}
const firstOriginAndPath = originAndPath(firstUrl);

pm.test('page ' + page + ' of ' + accountId + ': at most 100 transactions', function () {
  pm.expect(transactions.length).to.be.at.most(100);
});
pm.test('page ' + page + ': every transaction belongs to the account', function () {
  // One assertion for the page, not one chai assertion per transaction (10,250 of them for a 103-page account).
  pm.expect(
    transactions
      .map(function (transaction) {
        return transaction.AccountId;
      })
      .filter(function (id) {
        return id !== accountId;
      }),
    'AccountId of transactions of another account',
  ).to.eql([]);
});
pm.test('page ' + page + ": links are absolute, on the first page's origin and path", function () {
  ['Self', 'First', 'Prev', 'Next', 'Last'].forEach(function (name) {
    const link = links[name];
    if (link !== undefined) {
      pm.expect(String(link), name).to.match(/^https?:\/\/[^/]/);
      pm.expect(originAndPath(link), name).to.equal(firstOriginAndPath);
    }
  });
});
if (next !== '') {
  pm.test('page ' + page + ': Links.Next is not a page already read', function () {
    pm.expect(read, 'pages read').to.not.include(next);
    pm.expect(next, 'Links.Self').to.not.equal(links.Self);
  });
}
if (typeof meta.TotalPages === 'number') {
  pm.test('page ' + page + ': Links.Next is present exactly when pages remain (Meta.TotalPages ' + meta.TotalPages + ')', function () {
    pm.expect(next !== '', 'Links.Next present').to.equal(page < meta.TotalPages);
  });
}

const counts = JSON.parse(env.get('transaction_counts') || '{}');
counts[accountId] = (page === 1 ? 0 : counts[accountId] || 0) + transactions.length;
env.set('transaction_counts', JSON.stringify(counts));

const guardReached = next !== '' && page >= maxPages;
if (guardReached) {
  pm.test('paging ends within max_pages (' + maxPages + ')', function () {
    pm.expect.fail('Links.Next still present after ' + page + " pages: raise max_pages or check the bank's links");
  });
}
// Follow Next only on the first page's origin and path: the bearer token must never go to a link elsewhere.
const followable = next !== '' && originAndPath(next) === firstOriginAndPath && seen.indexOf(next) < 0;
if (followable && !guardReached && pm.response.code === 200) {
  env.set('transactions_next_url', next);
  env.set('transactions_first_url', firstUrl);
  env.set('transactions_seen_urls', JSON.stringify(seen));
  env.set('transactions_page', String(page));
  pm.execution.setNextRequest(item);
} else {
  ['transactions_next_url', 'transactions_first_url', 'transactions_seen_urls', 'transactions_page'].forEach(function (key) {
    env.set(key, '');
  });
  if (index + 1 < ids.length) {
    env.set('account_index', String(index + 1));
    pm.execution.setNextRequest(item);
  } else {
    env.set('account_index', '');
    env.set('account_id', '');
  }
}
