import { condition, sleep } from '@temporalio/workflow';
import type { BuyOutcome, ProductRecord } from '../../activities/order/types.js';
import { buying } from './activities.js';
import { continueAsNewIfDue } from './continue-as-new.js';
import { summarise } from './failures.js';
import { currentQuote } from './progress.js';
import { ENGINE } from './recorder.js';
import type { OrderRun } from './run.js';

/** How a buy ended: bought, failed for good, or provably not carried out after an uncertain attempt (validate again). */
export type BuyResult = 'bought' | 'failed' | 'revalidate';

/** Buys once. Retries only what provably did not happen; anything ambiguous waits for ops. */
export async function buy(run: OrderRun): Promise<BuyResult> {
  const { recorder, options } = run;
  const { progress } = recorder;
  const quote = currentQuote(progress)!;
  recorder.moveTo('BUYING', ENGINE, `buying at ${quote.monthlyRate} ${quote.currency}`);
  for (let tries = 1; ; tries++) {
    const attempt = ++progress.buyAttempts;
    recorder.record({ type: 'buy-intent', attempt });
    try {
      await recorder.writeAhead(); // the attempt is in Postgres before the request can leave
    } catch (error) {
      // The records refuse the attempt (they hold it already, from another run): buying could buy twice.
      const refusal = summarise(error, 'the buy intent could not be recorded');
      recorder.setLastError(refusal);
      recorder.moveTo('FAILED', ENGINE, `not buying: ${refusal.message}`);
      return 'failed';
    }
    const outcome = await attemptBuy(run, attempt);
    recorder.record({
      type: 'buy-outcome',
      attempt,
      outcome: outcome.outcome,
      ...(outcome.outcome === 'created' ? { product: outcome.product } : { error: outcome.error }),
    });
    if (outcome.outcome === 'created') {
      recordProduct(run, outcome.product, ENGINE);
      return 'bought';
    }
    recorder.setLastError(outcome.error);
    if (outcome.outcome === 'uncertain') {
      recorder.moveTo('BUY_UNCERTAIN', ENGINE, `the buy may or may not have been carried out: ${outcome.error.message}`);
      progress.buyRemindersSent = 0;
      return settleUncertainBuy(run);
    }
    if (!outcome.retryable || tries >= options.maxBuyAttempts) {
      recorder.moveTo('FAILED', ENGINE, `the buy was not carried out: ${outcome.error.message}`);
      return 'failed';
    }
    const delay = outcome.retryAfterMs ?? Math.min(60_000, 2_000 * 2 ** (tries - 1));
    recorder.note(ENGINE, `buy attempt ${attempt} was not carried out (${outcome.error.type}); trying again in ${Math.round(delay / 1000)} s`);
    recorder.checkpoint();
    await sleep(delay);
  }
}

async function attemptBuy(run: OrderRun, attempt: number): Promise<BuyOutcome> {
  const { location, image } = run.recorder.progress.targets!;
  // What building the buy needs, and no more: the activity reads the request from this run's start input (history
  // holds it once) and knows its run from its context.
  const targets = { location: { id: location.id }, image: { id: image.id, vendor: image.vendor, product: image.product } };
  try {
    return await buying.buyOrder({ targets, attempt });
  } catch (error) {
    return { outcome: 'uncertain', error: summarise(error, 'the buy activity did not report back (worker lost or timed out)') };
  }
}

/**
 * An order in BUY_UNCERTAIN waits for ops to say whether the MVE was created, reminding them on a schedule;
 * also where a run carried over in BUY_UNCERTAIN resumes.
 */
export async function settleUncertainBuy(run: OrderRun): Promise<BuyResult> {
  const { recorder, inbox, options } = run;
  const { progress } = recorder;
  for (;;) {
    const resolved = () => inbox.resolution !== undefined;
    recorder.checkpoint();
    await continueAsNewIfDue(run, resolved);
    if (await condition(resolved, options.buyUncertainReminderMs)) break;
    progress.buyRemindersSent++;
    recorder.note(ENGINE, `reminder ${progress.buyRemindersSent}: the buy outcome is unknown; ops must check and resolve it`);
    recorder.notify('buy-uncertain-reminder', 'the buy outcome is unknown: check the provider and resolve the order');
  }
  const resolution = inbox.resolution!;
  inbox.resolution = undefined;
  const recorded = { type: 'buy-outcome', attempt: resolution.attempt, outcome: resolution.outcome, resolvedBy: resolution.actor } as const;
  if (resolution.outcome === 'not-created') {
    recorder.record(recorded);
    recorder.note(resolution.actor, `resolved: the MVE was not created (${resolution.note})`);
    return 'revalidate';
  }
  const product: ProductRecord = { technicalServiceUid: resolution.technicalServiceUid, provisioningStatus: resolution.provisioningStatus ?? 'UNKNOWN' };
  recorder.record({ ...recorded, product });
  recordProduct(run, product, resolution.actor, resolution.note);
  return 'bought';
}

function recordProduct(run: OrderRun, product: ProductRecord, actor: string, comment?: string): void {
  const { recorder } = run;
  recorder.progress.product = product;
  recorder.record({ type: 'product', product, actor });
  recorder.moveTo('BOUGHT', actor, comment ?? `created ${product.technicalServiceUid} (${product.provisioningStatus})`);
}
