// The bank's PSU-facing HTML: login, consent (permissions and account picker) and error pages. Plain, accessible
// (labels, fieldset/legend, one h1, role="alert" for errors), self-contained: an inline stylesheet, no scripts, no
// external assets.

import type { PageSkinName } from '../contracts.js';
import { escapeHtml } from '../http/io.js';

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1b1b1b}
main{max-width:34rem;margin:2rem auto;background:#fff;padding:1.5rem 2rem;border-radius:6px;border:1px solid #d0d4da}
h1{font-size:1.5rem;margin-top:0}label{display:block;margin:.75rem 0 .25rem;font-weight:600}
input[type=text],input[type=password]{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box;border:1px solid #6b7280;border-radius:4px}
fieldset{border:1px solid #d0d4da;border-radius:4px;margin:1rem 0;padding:.5rem 1rem}legend{font-weight:600}
fieldset label{font-weight:400;display:flex;gap:.5rem;align-items:center}
button{font-size:1rem;padding:.5rem 1.25rem;margin:1rem .5rem 0 0;border-radius:4px;border:1px solid #1d4ed8;cursor:pointer}
button.primary{background:#1d4ed8;color:#fff}button.secondary{background:#fff;color:#1d4ed8}
button:focus,input:focus{outline:3px solid #f59e0b;outline-offset:2px}
.alert{border-left:4px solid #b91c1c;background:#fef2f2;padding:.5rem 1rem}ul{padding-left:1.25rem}
.muted{color:#4b5563;font-size:.9rem}`;

/** How the PSU pages look: the default skin, and an alternate one with other ids, labels, texts and error markup (as
 *  another bank's pages would have), so a consent script written for other pages can be tested against the emulator
 *  (docs/sandbox.md, "Page skins"). The form fields posted (username, password, account, action) are the same. */
export interface PageSkin {
  bank: string;
  loginHeading: string;
  username: { id: string; label: string };
  password: { id: string; label: string };
  login: string;
  consentHeading: string;
  accountsLegend: string;
  /** A payment consent's page: its heading and the legend of the account it is paid from. */
  paymentHeading: string;
  payFromLegend: string;
  /** A funds-confirmation consent's page. */
  fundsHeading: string;
  fundsLegend: string;
  /** A VRP consent's page: the mandate and the account its payments are made from. */
  mandateHeading: string;
  mandateLegend: string;
  accountIdPrefix: string;
  confirm: string;
  cancel: string;
  /** The attributes of the element that shows an error. */
  alert: string;
}

export const PAGE_SKINS = {
  default: {
    bank: 'obflow sandbox bank',
    loginHeading: 'Log in to the sandbox bank',
    login: 'Log in',
    consentHeading: 'Share your account information',
    username: { id: 'username', label: 'Username' },
    password: { id: 'password', label: 'Password' },
    accountIdPrefix: 'account-',
    accountsLegend: 'Choose the accounts to share',
    paymentHeading: 'Confirm this payment',
    payFromLegend: 'Pay from',
    fundsHeading: 'Allow funds checks',
    fundsLegend: 'The account to check',
    mandateHeading: 'Set up variable recurring payments',
    mandateLegend: 'Pay from',
    confirm: 'Confirm',
    cancel: 'Cancel',
    alert: 'class="alert" role="alert"',
  },
  // Another bank's look: other ids, labels, button texts, and an error without role="alert".
  alternate: {
    bank: 'Northwind sandbox bank',
    loginHeading: 'Sign in to Northwind',
    login: 'Continue',
    consentHeading: 'Review this access request',
    username: { id: 'customer-number', label: 'Customer number' },
    password: { id: 'passcode', label: 'Passcode' },
    accountIdPrefix: 'acct-',
    accountsLegend: 'Accounts this provider may see',
    paymentHeading: 'Review this payment',
    payFromLegend: 'Account to pay from',
    fundsHeading: 'Review this funds check request',
    fundsLegend: 'Account this provider may check',
    mandateHeading: 'Review this payment mandate',
    mandateLegend: 'Account the payments come from',
    confirm: 'Allow access',
    cancel: 'Do not allow',
    alert: 'class="alert notice-error" aria-live="assertive"',
  },
} as const satisfies Record<PageSkinName, PageSkin>;

function layout(title: string, body: string, skin: PageSkin = PAGE_SKINS.default): string {
  return `<!doctype html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} – ${escapeHtml(skin.bank)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

export function errorPage(title: string, message: string, skin: PageSkin = PAGE_SKINS.default): string {
  return layout(title, `<h1>${escapeHtml(title)}</h1>\n<p ${skin.alert}>${escapeHtml(message)}</p>`, skin);
}

export interface LoginPageInput {
  action: string;
  clientName: string;
  error?: string;
  username?: string;
  skin?: PageSkin;
}

export function loginPage(input: LoginPageInput): string {
  const skin = input.skin ?? PAGE_SKINS.default;
  const alert = input.error ? `<p ${skin.alert}>${escapeHtml(input.error)}</p>\n` : '';
  return layout(
    skin.login,
    `<h1>${escapeHtml(skin.loginHeading)}</h1>
<p><strong>${escapeHtml(input.clientName)}</strong> is asking to access your account information.</p>
${alert}<form method="post" action="${escapeHtml(input.action)}">
<label for="${skin.username.id}">${escapeHtml(skin.username.label)}</label>
<input type="text" id="${skin.username.id}" name="username" autocomplete="username" required value="${escapeHtml(input.username ?? '')}">
<label for="${skin.password.id}">${escapeHtml(skin.password.label)}</label>
<input type="password" id="${skin.password.id}" name="password" autocomplete="current-password" required>
<button type="submit" class="primary">${escapeHtml(skin.login)}</button>
</form>
<p class="muted">Test users: see the obflow README (alex, sam, jo).</p>`,
    skin,
  );
}

export interface ConsentAccount {
  accountId: string;
  label: string;
}

export interface ConsentPageInput {
  action: string;
  clientName: string;
  userName: string;
  /** What the consent is for (consent-kinds.ts): account access lists `permissions`; a payment or a funds check shows
   *  `lines` and lets the PSU pick one account (`choose: 'one'`) or shows the one the consent names (`fixed`). */
  purpose?: 'account-access' | AgreementPurpose;
  permissions: string[];
  lines?: readonly { label: string; value: string }[];
  choose?: 'many' | 'one' | 'fixed';
  expires?: string;
  accounts: ConsentAccount[];
  error?: string;
  skin?: PageSkin;
}

/** Plain-language names of the AIS v3.1 permissions (Account and Transaction API Specification, Permissions). */
const PERMISSION_TEXT: Record<string, string> = {
  ReadAccountsBasic: 'Your account names and types',
  ReadAccountsDetail: 'Your account details, including account numbers',
  ReadBalances: 'Your balances',
  ReadTransactionsBasic: 'Your transactions (basic)',
  ReadTransactionsDetail: 'Your transactions, including details',
  ReadTransactionsCredits: 'Money coming into your accounts',
  ReadTransactionsDebits: 'Money going out of your accounts',
  ReadBeneficiariesBasic: 'Your payees',
  ReadBeneficiariesDetail: 'Your payees, including details',
  ReadDirectDebits: 'Your Direct Debits',
  ReadStandingOrdersBasic: 'Your standing orders',
  ReadStandingOrdersDetail: 'Your standing orders, including details',
  ReadProducts: 'Product information about your accounts',
  ReadOffers: 'Offers on your accounts',
  ReadParty: 'Your name and contact details',
  ReadPartyPSU: 'Your own name and contact details',
  ReadScheduledPaymentsBasic: 'Your scheduled payments',
  ReadScheduledPaymentsDetail: 'Your scheduled payments, including details',
  ReadStatementsBasic: 'Your statements',
  ReadStatementsDetail: 'Your statements, including details',
  ReadPAN: 'Your full card numbers',
};

export function consentPage(input: ConsentPageInput): string {
  const skin = input.skin ?? PAGE_SKINS.default;
  const purpose = input.purpose ?? 'account-access';
  if (purpose !== 'account-access') return agreementPage(input, purpose, skin);
  const alert = input.error ? `<p ${skin.alert}>${escapeHtml(input.error)}</p>\n` : '';
  const permissions = input.permissions
    .map((p) => `<li>${escapeHtml(PERMISSION_TEXT[p] ?? p)} <span class="muted">(${escapeHtml(p)})</span></li>`)
    .join('\n');
  const accounts = input.accounts
    .map(
      (a, i) =>
        `<label for="${skin.accountIdPrefix}${i}"><input type="checkbox" id="${skin.accountIdPrefix}${i}" name="account" value="${escapeHtml(a.accountId)}"> ${escapeHtml(a.label)}</label>`,
    )
    .join('\n');
  const expires = input.expires
    ? `<p>This access lasts until ${escapeHtml(input.expires)}.</p>\n`
    : '<p>This access has no end date; you can withdraw it at any time.</p>\n';
  return layout(
    'Confirm access',
    `<h1>${escapeHtml(skin.consentHeading)}</h1>
<p>Hello ${escapeHtml(input.userName)}. <strong>${escapeHtml(input.clientName)}</strong> would like to see:</p>
<ul>
${permissions}
</ul>
${expires}${alert}<form method="post" action="${escapeHtml(input.action)}">
<fieldset>
<legend>${escapeHtml(skin.accountsLegend)}</legend>
${accounts}
</fieldset>
<button type="submit" name="action" value="confirm" class="primary">${escapeHtml(skin.confirm)}</button>
<button type="submit" name="action" value="cancel" class="secondary" formnovalidate>${escapeHtml(skin.cancel)}</button>
</form>`,
    skin,
  );
}

/** The pages where the PSU agrees to something other than account access, one row each: the page title, the skin's
 *  heading and account legend, and the sentence after the TPP's name. */
type AgreementPurpose = 'payment' | 'funds' | 'mandate';
const AGREEMENTS: Readonly<
  Record<AgreementPurpose, { title: string; heading: (skin: PageSkin) => string; legend: (skin: PageSkin) => string; intro: string }>
> = {
  payment: {
    title: 'Confirm payment',
    heading: (skin) => skin.paymentHeading,
    legend: (skin) => skin.payFromLegend,
    intro: 'would like to make this payment from your account:',
  },
  funds: {
    title: 'Confirm funds checks',
    heading: (skin) => skin.fundsHeading,
    legend: (skin) => skin.fundsLegend,
    intro: 'would like to check whether you have enough money for a payment:',
  },
  // VRP profile v4.0, "Step 3: Authorise Consent": "The PSU reviews the debtor account(s) at this stage (and other
  // control parameters …)".
  mandate: {
    title: 'Confirm payment mandate',
    heading: (skin) => skin.mandateHeading,
    legend: (skin) => skin.mandateLegend,
    intro: 'would like to make payments from your account whenever needed, within these limits:',
  },
};

/** A payment's, a funds check's or a payment mandate's page: what the PSU agrees to as lines (amount, payee, reference;
 *  the account and how long; each limit), and the one account it concerns: a radio per GBP account, or the account the
 *  consent names, checked. */
function agreementPage(input: ConsentPageInput, purpose: AgreementPurpose, skin: PageSkin): string {
  const alert = input.error ? `<p ${skin.alert}>${escapeHtml(input.error)}</p>\n` : '';
  const agreement = AGREEMENTS[purpose];
  const lines = (input.lines ?? []).map((line) => `<dt>${escapeHtml(line.label)}</dt><dd>${escapeHtml(line.value)}</dd>`).join('\n');
  const fixed = input.choose === 'fixed';
  const checked = fixed ? ' checked' : '';
  const accounts = input.accounts
    .map((a, i) => {
      const id = `${skin.accountIdPrefix}${i}`;
      return `<label for="${id}"><input type="radio" id="${id}" name="account" value="${escapeHtml(a.accountId)}"${checked} required> ${escapeHtml(a.label)}</label>`;
    })
    .join('\n');
  return layout(
    agreement.title,
    `<h1>${escapeHtml(agreement.heading(skin))}</h1>
<p>Hello ${escapeHtml(input.userName)}. <strong>${escapeHtml(input.clientName)}</strong> ${agreement.intro}</p>
<dl>
${lines}
</dl>
${alert}<form method="post" action="${escapeHtml(input.action)}">
<fieldset>
<legend>${escapeHtml(agreement.legend(skin))}</legend>
${accounts}
</fieldset>
<button type="submit" name="action" value="confirm" class="primary">${escapeHtml(skin.confirm)}</button>
<button type="submit" name="action" value="cancel" class="secondary" formnovalidate>${escapeHtml(skin.cancel)}</button>
</form>`,
    skin,
  );
}
