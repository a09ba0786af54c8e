/* eslint-disable @typescript-eslint/no-require-imports -- require() is the Postman sandbox's module system */
// A new payment: a fresh x-idempotency-key (at most 40 characters, OB R/W Data API Profile "Idempotency"), fresh
// InstructionIdentification and EndToEndIdentification (Max35Text), and the other amount the changed-body check
// sends under the same key. Values, not a dynamic variable: the replay must send the same body, and a signed body holds no
// dynamic variable.
const uuid = require('uuid');
const env = pm.environment;
/** Another amount than `amount` with the same decimals: one more in its units (one less at 13 digits). */
function otherAmount(amount) {
  const parts = String(amount).split('.');
  const units = parts[0];
  const other = units.length === 13 && /^9+$/.test(units) ? String(Number(units) - 1) : String(Number(units) + 1);
  return other + (parts.length > 1 ? '.' + parts[1] : '');
}
env.set('payment_consent_idempotency_key', uuid.v4());
env.set('payment_instruction_id', uuid.v4().replace(/-/g, '').slice(0, 35));
env.set('payment_end_to_end_id', uuid.v4().replace(/-/g, '').slice(0, 35));
env.set('payment_changed_amount', otherAmount(env.get('payment_amount')));
