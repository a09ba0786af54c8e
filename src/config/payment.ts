// The values the payments and funds families send that a person may change (flow.payment, flow.funds,
// flow.messageSigning), with their defaults and the rules the config holds them to: one home, read by the config
// schema and by the environment's flow inputs (src/pipeline/family-inputs.ts). Imports nothing.

/** OBActiveCurrencyAndAmount_SimpleType (OB R/W Payment Initiation v3.1.11 and v4.0 OpenAPI files): up to 13 digits,
 *  and up to 5 decimals. */
export const AMOUNT_PATTERN = /^\d{1,13}$|^\d{1,13}\.\d{1,5}$/;

/** What a value written into a signed JSON body may hold: printable text without a double quote or backslash (JSON
 *  escapes would make the bytes differ from the value), braces (a Postman `{{variable}}` would be resolved in it) or
 *  control characters. */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
export const PAYMENT_TEXT = /^[^"\\{}\u0000-\u001f\u007f]+$/;

/** Why a text is not an amount a payment may carry (the pattern, and more than zero); undefined when it is one. */
export function paymentAmountProblem(value: string): string | undefined {
  if (!AMOUNT_PATTERN.test(value))
    return 'must be a decimal amount of at most 13 digits and 5 decimals, as text (OBActiveCurrencyAndAmount_SimpleType), e.g. "10.00"';
  if (!/[1-9]/.test(value)) return 'must be more than zero';
  return undefined;
}

/** The payment of the sandbox demo: 10.00 GBP to a payee at another bank (the sort code and account number of the OB
 *  R/W specification's examples), with a reference a statement shows. */
export const PAYMENT_DEFAULTS = {
  amount: '10.00',
  currency: 'GBP',
  creditorAccount: { schemeName: 'UK.OBIE.SortCodeAccountNumber', identification: '08080021325698', name: 'ACME Inc' },
  reference: 'obflow test payment',
} as const;

/** The funds checks: an amount any current account of the sandbox holds, and one beyond any balance and overdraft. */
export const FUNDS_DEFAULTS = {
  availableAmount: '1.00',
  unavailableAmount: '9999999999.00',
  currency: 'GBP',
} as const;

/** The OB Directory's trust anchor, `http://openbanking.org.uk/tan` of a signature whose key it hosts (OB R/W Data API
 *  Profile, "Message Signing", Step 2). */
export const OB_TRUST_ANCHOR = 'openbanking.org.uk';
