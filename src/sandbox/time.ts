// How the emulator writes a date-time on the wire: UTC with an explicit +00:00 offset, as the OBIE examples write them
// (AIS v3.1 "Common Field Types": ISODateTime). Its own times have whole seconds; a TPP's keep the fraction it sent.

/** ISO 8601 in UTC with whole seconds (milliseconds dropped) and a +00:00 offset: 2017-04-05T10:43:07+00:00. */
export function isoSeconds(date: Date): string {
  return isoInstant(date, '');
}

/**
 * A date-time the TPP sent, written back as the same instant: UTC with a +00:00 offset, keeping the fractional
 * seconds exactly as sent (`fraction` is the sent `.ddd…`, or '' when there was none). Offsets are whole minutes, so
 * moving to UTC never changes the fraction. 2017-04-05T11:43:07.415+01:00 → 2017-04-05T10:43:07.415+00:00.
 */
export function isoInstant(date: Date, fraction: string): string {
  return `${date.toISOString().slice(0, 19)}${fraction}+00:00`;
}
