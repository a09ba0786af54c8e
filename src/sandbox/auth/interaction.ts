// The interactive profiles' PSU journey after the authorisation request was validated: log in as a test user, see
// what the consent is for (its permissions; a payment's amount, payee and reference; a funds check's account), pick
// accounts (or the one to pay from), Confirm (code to the redirect URI) or Cancel (access_denied, consent Rejected).
// The interaction id is in the path and in a cookie, so the journey stays in the browser that began it.

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

import { consentKindRow, permissionsOf } from '../consent-kinds.js';
import type { BankAccount } from '../data/bank.js';
import { TEST_USERS, userByPsuId, userByUsername } from '../data/users.js';
import { pageError } from '../http/errors.js';
import { mediaType, parseForm, readBody, redirect, sendHtml } from '../http/io.js';
import type { AuthorisationRequestRecord, InteractionRecord } from '../store/auth-store.js';
import { answeringJarmErrors, completeAuthorisation, rejectAuthorisation } from './authorize.js';
import type { AuthDeps, IssuerCall } from './deps.js';
import { consentPage, loginPage } from './pages.js';
import type { ConsentAccount, PageSkin } from './pages.js';

export function handleInteraction(call: IssuerCall<'interaction'>, deps: AuthDeps): Promise<void> {
  // JARM §2.4: the PSU's Cancel (and a consent that expired meanwhile) go back signed where JARM was asked.
  return answeringJarmErrors(call, deps, () => interact(call, deps));
}

async function interact(call: IssuerCall<'interaction'>, deps: AuthDeps): Promise<void> {
  const { req, res, ctx, profile } = call;
  const { uid, step } = call.route;
  const interaction = deps.store.interactions.get(uid);
  if (!interaction || interaction.profile !== profile.name || new Date(interaction.expiresAt).getTime() < deps.now().getTime()) {
    throw pageError(404, 'This page has expired', 'Start again from the application that sent you here.');
  }
  if (cookieOf(req, 'obflow_interaction') !== uid) {
    throw pageError(400, 'Session not found', 'Open the link in the browser that started the authorisation (cookies must be allowed).');
  }
  ctx.clientId = interaction.clientId;
  const issuer = call.issuer.auth_url;
  const base = `${issuer}/interaction/${uid}`;
  const client = deps.store.clients.get(interaction.clientId);
  const clientName = client?.clientName ?? client?.softwareId ?? interaction.clientId;

  if (req.method === 'GET' && step === undefined) {
    if (interaction.psuId === undefined) sendHtml(res, 200, loginPage({ action: `${base}/login`, clientName, ...skinOf(deps) }));
    else sendHtml(res, 200, await renderConsent(interaction, base, clientName, deps));
    return;
  }
  if (req.method !== 'POST' || (step !== 'login' && step !== 'confirm'))
    throw pageError(405, 'Not allowed', 'Use the buttons on the page.');
  if (mediaType(req) !== 'application/x-www-form-urlencoded')
    throw pageError(415, 'Unsupported form', 'The form must be posted as application/x-www-form-urlencoded.');
  const form = parseForm(await readBody(req)).all;

  if (step === 'login') {
    const username = (form.get('username') ?? '').trim();
    const user = userByUsername(username);
    if (!user || user.username !== username || !sameText(user.password, form.get('password') ?? '')) {
      sendHtml(
        res,
        401,
        loginPage({
          action: `${base}/login`,
          clientName,
          username,
          error: 'That username and password do not match a test user.',
          ...skinOf(deps),
        }),
      );
      return;
    }
    deps.store.interactions.set(uid, { ...interaction, psuId: user.psuId });
    redirect(res, base);
    return;
  }

  if (interaction.psuId === undefined) {
    redirect(res, base);
    return;
  }
  const request = authorisationRequestOf(interaction);
  if (form.get('action') === 'cancel') {
    deps.store.interactions.delete(uid);
    // Throws the access_denied error that goes back to the client.
    return rejectAuthorisation(request, deps, issuer);
  }
  // What the consent lets the PSU choose (consent-kinds.ts): any of their accounts, one, or the one it names.
  const consent = await deps.consents.get(interaction.consentId);
  const choice = consent === undefined ? undefined : consentKindRow(consent).accounts(consent, interaction.psuId, deps.bank);
  if (choice?.choose === 'none') {
    // The consent names an account the PSU does not hold: it is rejected (PISP v4.0 domestic-payment-consents, OBDomestic2).
    deps.store.interactions.delete(uid);
    return rejectAuthorisation(request, deps, issuer, choice.reason);
  }
  const offered = new Set((choice?.accounts ?? []).map((a) => a.accountId));
  const chosen = [...new Set(form.getAll('account'))];
  const single = choice !== undefined && choice.choose !== 'many';
  if (chosen.length === 0 || (single && chosen.length !== 1) || chosen.some((id) => !offered.has(id))) {
    const error = single ? 'Choose one of your accounts, or Cancel.' : 'Choose at least one of your accounts, or Cancel.';
    sendHtml(res, 400, await renderConsent(interaction, base, clientName, deps, error));
    return;
  }
  deps.store.interactions.delete(uid);
  redirect(res, await completeAuthorisation(issuer, request, interaction.psuId, chosen, deps));
}

async function renderConsent(
  interaction: InteractionRecord,
  base: string,
  clientName: string,
  deps: AuthDeps,
  error?: string,
): Promise<string> {
  const consent = await deps.consents.get(interaction.consentId);
  const user = userByPsuId(interaction.psuId ?? '') ?? TEST_USERS[0];
  const row = consent === undefined ? undefined : consentKindRow(consent);
  const choice = consent === undefined || row === undefined ? undefined : row.accounts(consent, interaction.psuId ?? '', deps.bank);
  const problem = choice?.choose === 'none' ? `This cannot go ahead: ${choice.reason}.` : undefined;
  return consentPage({
    action: `${base}/confirm`,
    clientName,
    userName: user?.displayName ?? '',
    purpose: row?.page ?? 'account-access',
    permissions: consent === undefined ? [] : permissionsOf(consent),
    lines: consent === undefined || row === undefined ? [] : row.lines(consent),
    choose: choice === undefined || choice.choose === 'none' ? 'many' : choice.choose,
    accounts: labelled(choice === undefined || choice.choose === 'none' ? [] : choice.accounts),
    ...(consent?.ExpirationDateTime === undefined ? {} : { expires: consent.ExpirationDateTime }),
    ...(error === undefined && problem === undefined ? {} : { error: error ?? problem ?? '' }),
    ...skinOf(deps),
  });
}

function skinOf(deps: AuthDeps): { skin?: PageSkin } {
  return deps.pageSkin === undefined ? {} : { skin: deps.pageSkin };
}

/** The accounts as the consent page offers them: the nickname the PSU gave it (OBAccount Nickname), the kind of
 *  account, and the last four digits of its account number, as a bank's own pages name accounts. */
function labelled(accounts: readonly BankAccount[]): ConsentAccount[] {
  return accounts.map((account) => ({
    accountId: account.accountId,
    label: `${account.nickname} (${account.kind}) ending ${account.accountNumber.slice(-4)}`,
  }));
}

/** The authorisation request an interaction holds (the record less the page session's own fields). */
function authorisationRequestOf(interaction: InteractionRecord): AuthorisationRequestRecord {
  const { uid: _uid, profile: _profile, psuId: _psuId, expiresAt: _expiresAt, ...request } = interaction;
  return request;
}

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
