// Consents of every kind (account-access, domestic-payment, funds-confirmation, domestic-vrp) persisted in the data directory, with
// the one state machine the resource side (create, GET, DELETE, a payment that uses one up) and the authorisation side
// (the PSU confirms or cancels) share. Which transitions a kind has is a table (CONSENT_TRANSITIONS), so a new kind
// (VRP consents) is one more row: AwaitingAuthorisation → Authorised | Rejected; then Revoked (deleted by the TPP) for
// the long-lived kinds, Consumed (its payment made) for a single payment; terminal otherwise.

import { ConsentStateError, consentKindOf } from '../contracts.js';
import type { AnyConsentRecord, ConsentKind, ConsentStatus, ConsentStore, VrpConsentRecord } from '../contracts.js';
import { addDays, bankDateOf, startOfBankDay } from '../bank-time.js';
import { isoSeconds } from '../time.js';
import type { Collection, CollectionSpec, SandboxDb } from './db.js';

/** What can happen to a consent: the PSU authorises or rejects it, the TPP deletes it, a payment uses it up. */
export type ConsentAction = 'authorise' | 'reject' | 'revoke' | 'consume';

interface Transition {
  from: readonly ConsentStatus[];
  to: ConsentStatus;
}

const AUTHORISE: Transition = { from: ['AwaitingAuthorisation'], to: 'Authorised' };
const REJECT: Transition = { from: ['AwaitingAuthorisation'], to: 'Rejected' };
const REVOKE: Transition = { from: ['AwaitingAuthorisation', 'Authorised'], to: 'Revoked' };

/**
 * The transitions of each kind. account-access (AIS v3.1 "Consent Status") and funds-confirmation (CBPII v3.1.11 /
 * v4.0 "Funds Confirmation Consent Status": AWAU, AUTH, RJCT, CANC) are deleted by the TPP; a domestic-payment consent
 * (PISP "Payment Order Consent" state model: AWAU → AUTH → COND, or RJCT) has no DELETE and is consumed by its payment.
 * A domestic-vrp consent is long-lived: "The state model for the VRP consents resource follows the generic consent
 * state model. However, it does not use the COND Status" (VRP v4.0 domestic-vrp-consents, "State Model"); its
 * payments leave it Authorised, the TPP's DELETE revokes it (v4.0 CANC).
 */
export const CONSENT_TRANSITIONS: Readonly<Record<ConsentKind, Readonly<Partial<Record<ConsentAction, Transition>>>>> = {
  'account-access': { authorise: AUTHORISE, reject: REJECT, revoke: REVOKE },
  'domestic-payment': { authorise: AUTHORISE, reject: REJECT, consume: { from: ['Authorised'], to: 'Consumed' } },
  'funds-confirmation': { authorise: AUTHORISE, reject: REJECT, revoke: REVOKE },
  'domestic-vrp': { authorise: AUTHORISE, reject: REJECT, revoke: REVOKE },
};

/** Consents expire at their ExpirationDateTime (AIS v3.1 "Consent Elements", CBPII ExpirationDateTime); one without
 *  it (a payment consent, an open-ended one) is kept. */
export const CONSENT_COLLECTION: CollectionSpec<AnyConsentRecord> = {
  name: 'consents',
  expiresAt: (consent) => (consent.ExpirationDateTime === undefined ? undefined : Date.parse(consent.ExpirationDateTime)),
};

/**
 * The consents of one data directory. The async ConsentStore methods serve the authorisation side; `read`, `insert`
 * and `transition` are synchronous for the resource side's transactions (SandboxDb.transaction), where a payment and
 * the consent it consumes are committed together.
 */
export class ConsentBook implements ConsentStore {
  private readonly consents: Collection<AnyConsentRecord>;

  constructor(db: SandboxDb) {
    this.consents = db.collection(CONSENT_COLLECTION);
  }

  read(consentId: string): AnyConsentRecord | undefined {
    return this.consents.get(consentId);
  }

  insert(record: AnyConsentRecord): AnyConsentRecord {
    if (this.consents.has(record.ConsentId)) throw new TypeError(`consent ${record.ConsentId} exists`);
    this.consents.set(record.ConsentId, record);
    return record;
  }

  /** Applies `action` as the consent's kind allows it, else throws ConsentStateError (the state it is in). */
  transition(consentId: string, action: ConsentAction, now: Date, extra: Partial<AnyConsentRecord> = {}): AnyConsentRecord {
    const current = this.consents.get(consentId);
    const rule = current === undefined ? undefined : CONSENT_TRANSITIONS[consentKindOf(current)][action];
    const wanted = rule?.to ?? TARGET[action];
    if (!current) throw new ConsentStateError(consentId, 'missing', wanted);
    if (!rule || !rule.from.includes(current.Status)) throw new ConsentStateError(consentId, current.Status, wanted);
    const next = { ...current, ...extra, Status: rule.to, StatusUpdateDateTime: isoSeconds(now) } as AnyConsentRecord;
    this.consents.set(consentId, next);
    return next;
  }

  async create(record: AnyConsentRecord): Promise<AnyConsentRecord> {
    return this.insert(record);
  }

  async get(consentId: string): Promise<AnyConsentRecord | undefined> {
    return this.read(consentId);
  }

  async authorise(consentId: string, psuId: string, accountIds: string[], now: Date): Promise<AnyConsentRecord> {
    return this.transition(consentId, 'authorise', now, { psuId, accountIds: [...accountIds] });
  }

  async reject(consentId: string, now: Date): Promise<AnyConsentRecord> {
    return this.transition(consentId, 'reject', now);
  }

  async revoke(consentId: string, now: Date): Promise<AnyConsentRecord> {
    return this.transition(consentId, 'revoke', now);
  }
}

/** The status an action leads to, for the error of a kind that lacks it. */
const TARGET: Readonly<Record<ConsentAction, ConsentStatus>> = {
  authorise: 'Authorised',
  reject: 'Rejected',
  revoke: 'Revoked',
  consume: 'Consumed',
};

export function openConsentStore(db: SandboxDb): ConsentBook {
  return new ConsentBook(db);
}

/** Why a consent cannot serve a step, or that it can: the one rule every side applies (authorization endpoint, consent
 *  pages, token endpoint, resource reads, payments). */
export type ConsentUse =
  | { usable: true; consent: AnyConsentRecord }
  | { usable: false; reason: 'missing' | 'status' | 'expired'; consent: AnyConsentRecord | undefined };

/**
 * When a consent ends (epoch ms), or undefined when it does not: its ExpirationDateTime; a VRP consent the end of the
 * bank's date of its ValidToDateTime ("The time element of the date should be disregarded in computing the date
 * range", VRP v4.0 OBDomesticVRPControlParameters; docs/sandbox-vrp.md). A VRP consent keeps no ExpirationDateTime:
 * the store would prune it an hour after it ended, and its payments name it for ever.
 */
export function consentEndsAt(consent: AnyConsentRecord): number | undefined {
  if (consent.ExpirationDateTime !== undefined) return Date.parse(consent.ExpirationDateTime);
  const validTo = consentKindOf(consent) === 'domestic-vrp' ? (consent as VrpConsentRecord).mandate.validTo : undefined;
  return validTo === undefined ? undefined : startOfBankDay(addDays(bankDateOf(Date.parse(validTo)), 1));
}

/**
 * A consent is usable at `now` for a step that needs it in `status` (default Authorised) when it exists, is in that
 * status and has not ended (consentEndsAt; AIS v3.1 "Consent Elements": the consent ends at that time, whatever tokens
 * the TPP still holds).
 */
export function usableConsent(consent: AnyConsentRecord | undefined, now: Date, status: ConsentStatus = 'Authorised'): ConsentUse {
  if (!consent) return { usable: false, reason: 'missing', consent };
  if (consent.Status !== status) return { usable: false, reason: 'status', consent };
  const ends = consentEndsAt(consent);
  if (ends !== undefined && ends <= now.getTime()) return { usable: false, reason: 'expired', consent };
  return { usable: true, consent };
}
