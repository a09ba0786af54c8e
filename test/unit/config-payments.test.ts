// The payments settings as config: the live-bank guard (a flow that moves money goes only to a bank the config says is
// a sandbox, or one it names on purpose: flow.payments.allowLiveBank), and the payment to make validated as one-line
// config errors before any request (src/config/schema.ts).

import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';
import { ObflowError } from '../../src/errors.js';
import { BANK_IDENTITY } from '../helpers/config-fixtures.js';

function refusal(raw: unknown): ObflowError {
  try {
    parseConfig(raw, 'test');
  } catch (error) {
    if (error instanceof ObflowError) return error;
    throw error;
  }
  throw new Error('expected an ObflowError');
}

const bankConfig = (bank: Record<string, unknown>, flow: Record<string, unknown>) => ({
  target: 'bank',
  bank: { name: 'acme', auth_url: 'https://auth.acme.example', sandbox_base_url: 'https://rs.acme.example', ...bank },
  identity: BANK_IDENTITY,
  flow,
});

describe('the live-bank guard (flow.payments.allowLiveBank)', () => {
  it.each([
    ['bank.environment "production"', { environment: 'production' }, 'bank.environment is "production"'],
    ['a bank not said to be a sandbox', {}, 'bank.environment does not say "sandbox"'],
  ])('refuses payments at %s without the setting, naming it and the fix', (_case, bank, why) => {
    const error = refusal(bankConfig(bank, { apis: ['payments'] }));
    expect(error.code).toBe('ERR_CONFIG_INVALID');
    expect(error.message).toContain('flow.payments.allowLiveBank');
    expect(error.message).toContain(why);
    expect(error.message).toContain('"acme"');
    expect(error.message).not.toContain('\n');
  });

  it('guards a VRP mandate the same way: its walk sends payments meant to be refused, which a live bank might make', () => {
    const error = refusal(bankConfig({ environment: 'production' }, { apis: ['vrp'] }));
    expect(error.code).toBe('ERR_CONFIG_INVALID');
    expect(error.message).toContain('flow.apis has vrp');
    expect(error.message).toContain('flow.payments.allowLiveBank');
  });

  it('refuses a setting that names another bank', () => {
    const error = refusal(bankConfig({ environment: 'production' }, { apis: ['payments'], payments: { allowLiveBank: 'other' } }));
    expect(error.code).toBe('ERR_CONFIG_INVALID');
    expect(error.message).toContain('is "other", but the bank is "acme"');
  });

  it('allows a bank sandbox, a bank named on purpose, and anything that moves no money', () => {
    expect(parseConfig(bankConfig({ environment: 'sandbox' }, { apis: ['payments'] }), 'test').flow.apis).toEqual(['payments']);
    expect(
      parseConfig(bankConfig({ environment: 'production' }, { apis: ['payments'], payments: { allowLiveBank: 'acme' } }), 'test').flow.apis,
    ).toEqual(['payments']);
    expect(parseConfig(bankConfig({ environment: 'production' }, { apis: ['accounts', 'funds'] }), 'test').flow.apis).toEqual([
      'accounts',
      'funds',
    ]);
    // The embedded sandbox is a sandbox.
    expect(parseConfig({ flow: { apis: ['payments'] } }, 'test').flow.apis).toEqual(['payments']);
  });
});

describe('flow.payment: the payment to make, validated before any request', () => {
  it('has sandbox defaults', () => {
    const payment = parseConfig({ flow: { apis: ['payments'] } }, 'test').flow.payment;
    expect(payment.currency).toBe('GBP');
    expect(Number(payment.amount)).toBeGreaterThan(0);
  });
  it.each([
    ['a negative amount', { amount: '-1.00' }, 'flow.payment.amount'],
    ['a zero amount', { amount: '0.00' }, 'flow.payment.amount'],
    ['too many decimals', { amount: '1.000001' }, 'flow.payment.amount'],
    ['a number, not a string', { amount: 10 }, 'flow.payment.amount'],
    ['a currency in lower case', { currency: 'gbp' }, 'flow.payment.currency'],
    ['a reference with a quote (it goes into a signed JSON body)', { reference: 'a"b' }, 'flow.payment.reference'],
    ['a reference with a variable', { reference: '{{x}}' }, 'flow.payment.reference'],
    ['a reference over 35 characters', { reference: 'x'.repeat(36) }, 'flow.payment.reference'],
    ['an unknown key', { amonut: '1.00' }, 'flow.payment'],
  ])('refuses %s in one line naming the key', (_case, payment, key) => {
    const error = refusal({ flow: { apis: ['payments'], payment } });
    expect(error.code).toBe('ERR_CONFIG_INVALID');
    expect(error.message).toContain(key);
    expect(error.message).not.toContain('\n');
  });
});
