/** The buy: charged and not idempotent, so it is sent at most once, only when everything before it holds. */
import { currentRun } from '../../order-requests.js';
import type { ApiActivities } from '../dependencies.js';
import { readyToSend, type BuyDeps } from './before-sending.js';
import { recordCreated } from './created.js';
import { send } from './send.js';

/** The buy, which writes the order's journal before it sends (the write-ahead rule) and records what it created. */
export function createBuyOrderActivity(deps: BuyDeps): ApiActivities['buyOrder'] {
  return async (input) => {
    const run = currentRun();
    const ready = await readyToSend(deps, run, input);
    if ('outcome' in ready) return ready;
    const sent = await send(ready.client, ready.envelope);
    if ('outcome' in sent) return sent;
    const journal = await recordCreated(deps.writeJournal, run, sent.product, input);
    return { outcome: 'created', product: sent.product, journal };
  };
}

export { createdEntries } from './created.js';
export type { BuyDeps } from './before-sending.js';
