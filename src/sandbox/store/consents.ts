// Account-access consents (AIS v3.1) persisted in the data directory; the status machine lives here so the resource
// side (create, GET, DELETE) and the authorisation side (PSU confirms or cancels) share one set of rules:
// AwaitingAuthorisation → Authorised | Rejected; AwaitingAuthorisation | Authorised → Revoked; terminal otherwise.

import { ConsentStateError } from '../contracts.js';
import type { ConsentRecord, ConsentStatus, ConsentStore } from '../contracts.js';
import { isoSeconds } from '../time.js';
import type { CollectionSpec, SandboxDb } from './db.js';

/** Consents expire at their ExpirationDateTime (AIS v3.1 "Consent Elements"); one without it is kept. */
export const CONSENT_COLLECTION: CollectionSpec<ConsentRecord> = {
  name: 'consents',
  expiresAt: (consent) => (consent.ExpirationDateTime === undefined ? undefined : Date.parse(consent.ExpirationDateTime)),
};

export function openConsentStore(db: SandboxDb): ConsentStore {
  const consents = db.collection(CONSENT_COLLECTION);

  function transition(
    consentId: string,
    from: ConsentStatus[],
    to: ConsentStatus,
    now: Date,
    extra: Partial<ConsentRecord> = {},
  ): ConsentRecord {
    const current = consents.get(consentId);
    if (!current) throw new ConsentStateError(consentId, 'missing', to);
    if (!from.includes(current.Status)) throw new ConsentStateError(consentId, current.Status, to);
    const next: ConsentRecord = { ...current, ...extra, Status: to, StatusUpdateDateTime: isoSeconds(now) };
    consents.set(consentId, next);
    return next;
  }

  return {
    async create(record) {
      if (consents.get(record.ConsentId)) throw new TypeError(`consent ${record.ConsentId} exists`);
      consents.set(record.ConsentId, record);
      return record;
    },
    async get(consentId) {
      return consents.get(consentId);
    },
    async authorise(consentId, psuId, accountIds, now) {
      return transition(consentId, ['AwaitingAuthorisation'], 'Authorised', now, { psuId, accountIds: [...accountIds] });
    },
    async reject(consentId, now) {
      return transition(consentId, ['AwaitingAuthorisation'], 'Rejected', now);
    },
    async revoke(consentId, now) {
      return transition(consentId, ['AwaitingAuthorisation', 'Authorised'], 'Revoked', now);
    },
  };
}

/** Why a consent cannot serve a step, or that it can: the one rule every side applies (authorization endpoint, consent
 *  pages, token endpoint, resource reads). */
export type ConsentUse =
  | { usable: true; consent: ConsentRecord }
  | { usable: false; reason: 'missing' | 'status' | 'expired'; consent: ConsentRecord | undefined };

/**
 * A consent is usable at `now` for a step that needs it in `status` (default Authorised) when it exists, is in that
 * status and has not passed its ExpirationDateTime (AIS v3.1 "Consent Elements": the consent ends at that time,
 * whatever tokens the TPP still holds).
 */
export function usableConsent(consent: ConsentRecord | undefined, now: Date, status: ConsentStatus = 'Authorised'): ConsentUse {
  if (!consent) return { usable: false, reason: 'missing', consent };
  if (consent.Status !== status) return { usable: false, reason: 'status', consent };
  if (consent.ExpirationDateTime !== undefined && Date.parse(consent.ExpirationDateTime) <= now.getTime())
    return { usable: false, reason: 'expired', consent };
  return { usable: true, consent };
}
