import { condition, sleep } from '@temporalio/workflow';
import type { BuyAnswer, BuyOutcome, BuyInput, ProductRecord } from './activity-types.js';
import { buying, journaling } from './activities.js';
import { continueAsNewIfDue } from './continue-as-new.js';
import { summarise } from './failures.js';
import { currentQuote } from './progress.js';
import { ENGINE } from './recorder.js';
import type { OrderRun } from './run.js';

/** The entries a buy writes for a created MVE (`BuyInput.recordCreated`): its outcome, the product, the move to BOUGHT. */
const CREATED_RECORD_ENTRIES = 3;

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
    // The buy records a created MVE itself (its outcome, the product, the move to BOUGHT), numbered on from here.
    const recordCreated = { seq: recorder.reserve(CREATED_RECORD_ENTRIES), actor: ENGINE };
    let outcome: BuyOutcome;
    try {
      // The attempt is in Postgres before the request can leave.
      outcome = await buyWritingAhead(run, attempt, recordCreated);
    } catch (error) {
      recorder.release();
      // The records refuse the attempt (they hold it already, from another run): buying could buy twice.
      const refusal = summarise(error, 'the buy intent could not be recorded');
      recorder.setLastError(refusal);
      recorder.moveTo('FAILED', ENGINE, `not buying: ${refusal.message}`);
      return 'failed';
    }
    if (outcome.outcome === 'created' && outcome.journal) {
      recorder.adopt(outcome.journal.entries, outcome.journal.written);
      return 'bought';
    }
    // An uncertain attempt may have recorded what it created, in its reserved numbers, without reporting back.
    if (outcome.outcome === 'uncertain' && run.changes.skipsNumbersOfUncertainBuy) recorder.skipReserved();
    else recorder.release();
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
      recorder.moveTo(
        'BUY_UNCERTAIN',
        ENGINE,
        `the buy may or may not have been carried out: ${outcome.error.message}`,
      );
      progress.buyRemindersSent = 0;
      return settleUncertainBuy(run);
    }
    if (!outcome.retryable || tries >= options.maxBuyAttempts) {
      recorder.moveTo('FAILED', ENGINE, `the buy was not carried out: ${outcome.error.message}`);
      return 'failed';
    }
    const delay = outcome.retryAfterMs ?? Math.min(60_000, 2_000 * 2 ** (tries - 1));
    recorder.note(
      ENGINE,
      `buy attempt ${attempt} was not carried out (${outcome.error.type}); trying again in ${Math.round(delay / 1000)} s`,
    );
    recorder.checkpoint();
    await sleep(delay);
  }
}

/**
 * The buy activity writes the journal before it sends, and records a created MVE; when it did not write the journal,
 * the journal is written first and the buy sent after.
 */
async function buyWritingAhead(
  run: OrderRun,
  attempt: number,
  recordCreated: BuyInput['recordCreated'],
): Promise<BuyOutcome> {
  let lost: LostBuy | undefined;
  let sent: Awaited<ReturnType<typeof attemptBuy>>;
  try {
    sent = await run.recorder.writeAheadWith(async (journal) => {
      const sent = await attemptBuy(run, attempt, { journal, recordCreated });
      if (!sent.reported) lost = sent.answer;
      return { value: sent, written: sent.reported && sent.answer.outcome !== 'unrecorded' };
    });
  } catch (error) {
    // A lost buy whose journal the records now refuse: its attempt has an outcome already (it may have recorded
    // what it bought before it was lost), so it is uncertain, not refused.
    if (lost) return lost;
    throw error;
  }
  if (!sent.reported) return settleLostBuy(attempt, sent.answer);
  if (sent.answer.outcome !== 'unrecorded') return sent.answer;
  // Nothing was sent; the journal is written now (by the journal's own activity, retried), so the buy goes out alone.
  const again = await attemptBuy(run, attempt, { journal: [], recordCreated });
  if (!again.reported) return settleLostBuy(attempt, again.answer);
  return again.answer.outcome === 'unrecorded'
    ? { outcome: 'not-created', retryable: true, error: again.answer.error }
    : again.answer;
}

/**
 * A buy activity that did not report back is uncertain, unless its request provably never left: the activity claims
 * its attempt in Postgres just before sending, and closing an unclaimed attempt as not created shuts that door.
 */
async function settleLostBuy(attempt: number, lost: LostBuy): Promise<BuyOutcome> {
  if (!(await journaling.closeUnsentBuy({ attempt }))) return lost;
  return {
    outcome: 'not-created',
    retryable: true,
    error: { type: 'BuyNotSent', message: `${lost.error.message}; its request never left` },
  };
}

/** What a buy activity that did not report back comes to, unless its request provably never left. */
type LostBuy = Extract<BuyOutcome, { outcome: 'uncertain' }>;

/**
 * One buy request, by the activity that writes the journal before it sends and records what it created. It runs in
 * the workflow task that decided it (see `buying`). `reported` is false when it did not report back (timed out).
 */
async function attemptBuy(
  run: OrderRun,
  attempt: number,
  withJournal: Pick<BuyInput, 'journal' | 'recordCreated'>,
): Promise<{ reported: true; answer: BuyAnswer } | { reported: false; answer: LostBuy }> {
  const { location, image } = run.recorder.progress.targets!;
  // What building the buy needs, and no more: the activity reads the request from this run's start input (history
  // holds it once) and knows its run from its context.
  const targets = {
    location: { id: location.id },
    image: { id: image.id, vendor: image.vendor, product: image.product },
  };
  try {
    const answer = await buying.buyOrder({ targets, attempt, ...withJournal });
    return { reported: true, answer };
  } catch (error) {
    return {
      reported: false,
      answer: {
        outcome: 'uncertain',
        error: summarise(error, 'the buy activity did not report back (worker lost or timed out)'),
      },
    };
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
    recorder.noteAndNotify(
      ENGINE,
      'buy-uncertain-reminder',
      `reminder ${progress.buyRemindersSent}: the buy outcome is unknown; ops must check and resolve it`,
    );
  }
  const resolution = inbox.resolution!;
  inbox.resolution = undefined;
  // Settled, the buy's outcome is known: the error that left it unknown no longer stands. The records clear it with
  // the resolved outcome (an entry of its own would number what follows otherwise, and a later buy's recorded answer
  // carries the numbers reserved for it).
  progress.lastError = undefined;
  const recorded = {
    type: 'buy-outcome',
    attempt: resolution.attempt,
    outcome: resolution.outcome,
    resolvedBy: resolution.actor,
  } as const;
  if (resolution.outcome === 'not-created') {
    recorder.record(recorded);
    recorder.note(resolution.actor, `resolved: the MVE was not created (${resolution.note})`);
    return 'revalidate';
  }
  const product: ProductRecord = {
    technicalServiceUid: resolution.technicalServiceUid,
    provisioningStatus: resolution.provisioningStatus ?? 'UNKNOWN',
  };
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
