import { MARKETS } from './markets.js';

/** USD per vCPU per month on a one-month term, before the market's factor. */
const USD_PER_VCPU_MONTH = 145;

/** Longer terms are cheaper per month. */
const TERM_FACTORS: Record<number, number> = { 1: 1, 12: 0.9, 24: 0.85, 36: 0.8, 48: 0.77, 60: 0.75 };

export interface Price {
  monthlyRate: number;
  currency: string;
}

/**
 * The simulator's deterministic price model: size (vCPU of the `MVE <vCPU>/<GB>` label) × term × market,
 * in the market's currency. The same order always costs the same, so tests can assert quotes.
 */
export function priceOf(sizeLabel: string, term: number, marketCode: string): Price {
  const vcpu = Number(/^MVE (\d+)\//.exec(sizeLabel)?.[1] ?? Number.NaN);
  const market = MARKETS[marketCode];
  const termFactor = TERM_FACTORS[term];
  if (!Number.isFinite(vcpu) || !market || termFactor === undefined) {
    throw new Error(`no price for size "${sizeLabel}", term ${term}, market "${marketCode}"`);
  }
  const monthlyRate = Math.round(vcpu * USD_PER_VCPU_MONTH * termFactor * market.priceFactor * 100) / 100;
  return { monthlyRate, currency: market.currency };
}
