import { z } from 'zod';
import { parseEnv } from '../../config/env.js';

export const LIVE_READS_VARIABLE = 'MVE_LIVE_READS';
export const DEFAULT_LIVE_READS = 8;

const schema = z.object({
  [LIVE_READS_VARIABLE]: z.coerce
    .number({ error: 'must be a whole number of reads' })
    .int('must be a whole number of reads')
    .min(1, 'must be 1 or more')
    .default(DEFAULT_LIVE_READS),
});

/** How many reads of orders one server may have at Temporal at once (MVE_LIVE_READS, default 8). */
export function liveReadsFromEnv(env: NodeJS.ProcessEnv): number {
  return parseEnv(schema, env)[LIVE_READS_VARIABLE];
}

/**
 * The reads of orders a server has at Temporal at once. Each is a workflow query, which the workers answer in the
 * same queue as the orders' own work: votes, cancels, buys. Past the bound, a read answers from the records at once
 * (`source: records`, as when Temporal is down), so a flood of polls can slow no action.
 */
export class LiveReads {
  private inFlight = 0;
  /** Reads answered from the records because the bound was reached, since the server started. */
  passedOver = 0;

  constructor(readonly limit: number) {}

  /** Runs `read` within the bound; `undefined` at once when the bound is reached. */
  async within<T>(read: () => Promise<T>): Promise<T | undefined> {
    if (this.inFlight >= this.limit) {
      this.passedOver++;
      return undefined;
    }
    this.inFlight++;
    try {
      return await read();
    } finally {
      this.inFlight--;
    }
  }
}
