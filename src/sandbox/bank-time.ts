// The bank's calendar: dates as the bank's customers live them, in Europe/London (GMT in winter, BST from the last
// Sunday of March to the last Sunday of October), so a day, a week or a month of a VRP mandate's periodic limits starts
// at local midnight and a day may last 23 or 25 hours (docs/sandbox-vrp.md, "Periodic limits"). Pure: dates are plain
// values and instants epoch milliseconds; the time zone data is Node's ICU (Intl), never the process's TZ.

/** The time zone the bank keeps its calendar in (a UK ASPSP: VRP periods "line up with a calendar", VRP v4.0
 *  OBDomesticVRPControlParameters PeriodAlignment). */
export const BANK_TIME_ZONE = 'Europe/London';

/** A calendar date: month 1–12, day 1–31. */
export interface CalendarDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

const MS_PER_DAY = 86_400_000;

const WALL_CLOCK = new Intl.DateTimeFormat('en-GB', {
  timeZone: BANK_TIME_ZONE,
  year: 'numeric',
  month: 'numeric',
  day: 'numeric',
  hour: 'numeric',
  minute: 'numeric',
  second: 'numeric',
  hourCycle: 'h23',
});

/** The wall-clock reading in London at `instant`, as if it were UTC (epoch ms, whole seconds). */
function wallClock(instant: number): number {
  const parts: Record<string, number> = {};
  for (const part of WALL_CLOCK.formatToParts(new Date(instant))) if (part.type !== 'literal') parts[part.type] = Number(part.value);
  return Date.UTC(parts.year ?? 0, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0);
}

/** London's offset from UTC at `instant`, in ms (0 in GMT, 3 600 000 in BST). */
function offsetAt(instant: number): number {
  return wallClock(instant) - Math.floor(instant / 1000) * 1000;
}

/** The bank's date at `instant`. */
export function bankDateOf(instant: number): CalendarDate {
  const wall = new Date(wallClock(instant));
  return { year: wall.getUTCFullYear(), month: wall.getUTCMonth() + 1, day: wall.getUTCDate() };
}

/**
 * The instant the bank's `date` begins: midnight in London. London changes its clocks at 01:00 UTC, never at local
 * midnight, so every date has exactly one midnight; the offset is read at that midnight (checked once more, which a
 * zone changing at midnight would need).
 */
export function startOfBankDay(date: CalendarDate): number {
  const utc = Date.UTC(date.year, date.month - 1, date.day);
  const first = utc - offsetAt(utc);
  const offset = offsetAt(first);
  return utc - offset;
}

/** `date` moved by `days` calendar days. */
export function addDays(date: CalendarDate, days: number): CalendarDate {
  const moved = new Date(Date.UTC(date.year, date.month - 1, date.day) + days * MS_PER_DAY);
  return { year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() };
}

/** The number of days in `month` of `year`. */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** `date` moved by `months` calendar months, on `day` of the month (default its own), or the month's last day when the
 *  month is shorter: 31 January + 1 month is 28 (29) February, + 2 months 31 March. */
export function addMonths(date: CalendarDate, months: number, day: number = date.day): CalendarDate {
  const index = date.year * 12 + (date.month - 1) + months;
  const year = Math.floor(index / 12);
  const month = (index % 12) + 1;
  return { year, month, day: Math.min(day, daysInMonth(year, month)) };
}

/** Calendar days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: CalendarDate, to: CalendarDate): number {
  return Math.round((Date.UTC(to.year, to.month - 1, to.day) - Date.UTC(from.year, from.month - 1, from.day)) / MS_PER_DAY);
}

/** Whole calendar months from `from` to `to`, ignoring days (February → May is 3). */
export function monthsBetween(from: CalendarDate, to: CalendarDate): number {
  return (to.year - from.year) * 12 + (to.month - from.month);
}

/** ISO 8601 day of the week: Monday 1 … Sunday 7. */
export function isoWeekday(date: CalendarDate): number {
  const day = new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay();
  return day === 0 ? 7 : day;
}

/** Negative, zero or positive as `a` is before, on or after `b`. */
export function compareDates(a: CalendarDate, b: CalendarDate): number {
  return daysBetween(b, a);
}

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/** A date as a person in the UK reads it: 5 June 2026. */
export function dateText(date: CalendarDate): string {
  return `${date.day} ${MONTH_NAMES[date.month - 1] ?? ''} ${date.year}`;
}

/** A date as ISO 8601 (2026-06-05), for messages. */
export function isoDate(date: CalendarDate): string {
  return `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}
