/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// A new payment under the mandate: its own x-idempotency-key (at most 40 characters) and fresh
// InstructionIdentification and EndToEndIdentification (Max35Text); values, not dynamic variables, so a replay sends
// the same body and the signed body holds no dynamic variable.
const uuid = require('uuid');
pm.environment.set('vrp_idempotency_key', uuid.v4());
pm.environment.set('vrp_instruction_id', uuid.v4().replace(/-/g, '').slice(0, 35));
pm.environment.set('vrp_end_to_end_id', uuid.v4().replace(/-/g, '').slice(0, 35));
