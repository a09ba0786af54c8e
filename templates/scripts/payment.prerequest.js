/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// The payment's own x-idempotency-key (another operation's key is another key), fresh, kept for the replay checks.
pm.environment.set('payment_idempotency_key', require('uuid').v4());
