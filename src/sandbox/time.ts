// The one way the emulator writes a date-time on the wire: whole seconds and an explicit +00:00 offset, as the OBIE
// examples write them (AIS v3.1 "Common Field Types": ISODateTime). Consents, balances, transactions and Meta all use it.

/** ISO 8601 in UTC with whole seconds (milliseconds dropped) and a +00:00 offset: 2017-04-05T10:43:07+00:00. */
export function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}
