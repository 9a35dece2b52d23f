/** The campaigns' dice: one seed gives the same rolls on every machine, so a seed arms the same faults. */

/** Plain functions, not methods: a campaign takes them apart (`const { pick } = dice`). */
export interface Dice {
  /** A number in [0, 1). */
  random: () => number;
  pick: <T>(items: readonly T[]) => T;
  /** A whole number from `low` to `high`. */
  between: (low: number, high: number) => number;
}

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function seededDice(seed: number): Dice {
  const random = prng(seed);
  return {
    random,
    pick: (items) => items[Math.floor(random() * items.length)],
    between: (low, high) => Math.round(low + random() * (high - low)),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
