// A small seeded pseudo-random source for the generated bank data (sfc32 seeded from SHA-256): the same seed and
// stream name always give the same sequence, fast enough to draw ~100,000 numbers in a few milliseconds.

import { createHash } from 'node:crypto';

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max] inclusive. */
  int(min: number, max: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** One element chosen by weight (weights need not sum to 1). */
  weighted<T>(items: readonly (readonly [T, number])[]): T;
  /** A string of `length` decimal digits. */
  digits(length: number): string;
}

/** A deterministic random stream for (seed, stream), e.g. (seed, "transactions/alex/personal"). */
export function randomStream(seed: string, stream: string): Random {
  const digest = createHash('sha256').update(`${seed}\u0000${stream}`).digest();
  let a = digest.readUInt32LE(0);
  let b = digest.readUInt32LE(4);
  let c = digest.readUInt32LE(8);
  let d = digest.readUInt32LE(12);
  // sfc32 (Chris Doty-Humphrey's Small Fast Counting generator): 128-bit state, passes PractRand; plenty for fake data.
  const next = (): number => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    let t = (a + b) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    d = (d + 1) | 0;
    t = (t + d) | 0;
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();

  const random: Random = {
    next,
    int(min, max) {
      return min + Math.floor(next() * (max - min + 1));
    },
    pick(items) {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new TypeError('pick from an empty list');
      return item;
    },
    weighted(items) {
      let total = 0;
      for (const [, weight] of items) total += weight;
      let roll = next() * total;
      for (const [item, weight] of items) {
        roll -= weight;
        if (roll < 0) return item;
      }
      const last = items[items.length - 1];
      if (last === undefined) throw new TypeError('weighted pick from an empty list');
      return last[0];
    },
    digits(length) {
      let text = '';
      for (let i = 0; i < length; i++) text += String(Math.floor(next() * 10));
      return text;
    },
  };
  return random;
}
