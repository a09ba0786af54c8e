/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// A new mandate: a fresh x-idempotency-key (at most 40 characters, OB R/W Data API Profile "Idempotency"), a value and
// not a dynamic variable, so the replay sends the same key with the same body.
pm.environment.set('vrp_consent_idempotency_key', require('uuid').v4());
