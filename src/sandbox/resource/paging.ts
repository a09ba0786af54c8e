// Transaction selection and paging for GET /accounts/{AccountId}/transactions (pure): the consent's window and
// Credits/Debits permissions, the fromBookingDateTime/toBookingDateTime filters, newest first, 100 a page
// (bank-interface §8), and the OBIE Links (Self/First/Prev/Next/Last, absolute) and Meta of the page.

import type { BankTransaction, Ledger } from '../data/bank.js';
import { isoSeconds } from '../time.js';

export const PAGE_SIZE = 100;

export interface Selection {
  /** Entries in the selection, newest first: entry(k) for k in [0, count). */
  count: number;
  entry(k: number): BankTransaction;
}

const indexCache = new WeakMap<Ledger, { credits: number[]; debits: number[] }>();

function directionIndex(ledger: Ledger): { credits: number[]; debits: number[] } {
  let index = indexCache.get(ledger);
  if (!index) {
    index = { credits: [], debits: [] };
    ledger.transactions.forEach((entry, i) => (entry.credit ? index?.credits : index?.debits)?.push(i));
    indexCache.set(ledger, index);
  }
  return index;
}

/** First position in `positions` (ascending ledger indexes) whose entry is at or after `time`. */
function lowerBound(ledger: Ledger, positions: ArrayLike<number> | undefined, length: number, time: number): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const entry = ledger.transactions[positions ? (positions[mid] ?? 0) : mid];
    if (entry && entry.time < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Entries of the ledger booked in [from, to] (inclusive, epoch ms), credits and/or debits, newest first. */
export function selectTransactions(ledger: Ledger, from: number, to: number, credits: boolean, debits: boolean): Selection {
  if (!credits && !debits)
    return {
      count: 0,
      entry: () => {
        throw new RangeError('empty selection');
      },
    };
  const positions = credits && debits ? undefined : credits ? directionIndex(ledger).credits : directionIndex(ledger).debits;
  const length = positions ? positions.length : ledger.transactions.length;
  const start = lowerBound(ledger, positions, length, from);
  const end = to === Number.POSITIVE_INFINITY ? length : lowerBound(ledger, positions, length, to + 1);
  const count = Math.max(0, end - start);
  return {
    count,
    entry(k) {
      const position = end - 1 - k;
      const entry = ledger.transactions[positions ? (positions[position] ?? -1) : position];
      if (!entry || k < 0 || k >= count) throw new RangeError(`entry ${k} outside the selection`);
      return entry;
    },
  };
}

// fromBookingDateTime / toBookingDateTime: "Time component is optional - set to 00:00:00 for just Date. If the Date
// Time contains a timezone, the ASPSP must ignore the timezone component." (AIS v3.1 parameters)
const QUERY_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?(?:Z|[+-]\d{2}:?\d{2})?$/i;

/** Epoch ms of a booking-date filter read as UTC with any zone ignored; undefined when malformed. */
export function parseBookingFilter(text: string): number | undefined {
  const match = QUERY_DATE.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0'] = match;
  const time = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const check = new Date(time);
  if (check.getUTCFullYear() !== Number(y) || check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d)) return undefined;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  return time;
}

export interface PageLinks {
  Self: string;
  First: string;
  Prev?: string;
  Next?: string;
  Last: string;
}

/** Links of page `page` of `totalPages`: the same origin and path, the filters as given, `page` last. */
export function pageLinks(base: string, filters: [string, string][], page: number, totalPages: number): PageLinks {
  const url = (n: number): string => {
    const query = new URLSearchParams([...filters, ['page', String(n)]]);
    return `${base}?${query.toString()}`;
  };
  const links: PageLinks = { Self: url(page), First: url(1), Last: url(totalPages) };
  if (page > 1) links.Prev = url(page - 1);
  if (page < totalPages) links.Next = url(page + 1);
  return {
    Self: links.Self,
    First: links.First,
    ...(links.Prev ? { Prev: links.Prev } : {}),
    ...(links.Next ? { Next: links.Next } : {}),
    Last: links.Last,
  };
}

/** Meta.FirstAvailableDateTime / LastAvailableDateTime: the booking-time range the consent makes available. */
export function availableRange(selection: Selection): { FirstAvailableDateTime?: string; LastAvailableDateTime?: string } {
  if (selection.count === 0) return {};
  return {
    FirstAvailableDateTime: isoSeconds(new Date(selection.entry(selection.count - 1).time)),
    LastAvailableDateTime: isoSeconds(new Date(selection.entry(0).time)),
  };
}
