// The interactive profiles' PSU journey after the authorisation request was validated: log in as a test user, see
// the consent's permissions, pick accounts, Confirm (code to the redirect URI) or Cancel (access_denied, consent
// Rejected). The interaction id is in the path and in a cookie, so the journey stays in the browser that began it.

import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

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
  const offered = new Set(accountsOf(interaction.psuId, deps).map((a) => a.accountId));
  const chosen = [...new Set(form.getAll('account'))];
  if (chosen.length === 0 || chosen.some((id) => !offered.has(id))) {
    sendHtml(res, 400, await renderConsent(interaction, base, clientName, deps, 'Choose at least one of your accounts, or Cancel.'));
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
  return consentPage({
    action: `${base}/confirm`,
    clientName,
    userName: user?.displayName ?? '',
    permissions: consent?.Permissions ?? [],
    accounts: accountsOf(interaction.psuId ?? '', deps),
    ...(consent?.ExpirationDateTime === undefined ? {} : { expires: consent.ExpirationDateTime }),
    ...(error === undefined ? {} : { error }),
    ...skinOf(deps),
  });
}

function skinOf(deps: AuthDeps): { skin?: PageSkin } {
  return deps.pageSkin === undefined ? {} : { skin: deps.pageSkin };
}

/** The PSU's accounts as the consent page offers them: the nickname they gave it (OBAccount Nickname), the kind of
 *  account, and the last four digits of its account number, as a bank's own pages name accounts. */
function accountsOf(psuId: string, deps: AuthDeps): ConsentAccount[] {
  return deps.bank.accountsOf(psuId).map((account) => ({
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
