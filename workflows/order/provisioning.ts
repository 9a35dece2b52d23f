import { sleep } from '@temporalio/workflow';
import { describeDuration } from '../../domain/lifecycle/index.js';
import { pollDelay, verdictOf, type ProvisioningPlan } from '../../domain/lifecycle/index.js';
import type { ProductReadAnswer } from './activity-types.js';
import { productReads } from './activities.js';
import { continueAsNewIfDue } from './continue-as-new.js';
import { summarise } from './failures.js';
import type { ProvisioningProgress } from './progress.js';
import { ENGINE } from './recorder.js';
import type { OrderRun } from './run.js';

/** Where the follow-up ends the order: at BOUGHT when the API does not offer the product read. */
export interface ProvisioningEnding {
  state: 'BOUGHT' | 'LIVE' | 'PROVISIONING_FAILED' | 'PROVISIONING_STALLED';
  actor: string;
  reason: string;
}

/**
 * After the buy: reads the product until the API reports it LIVE, or in a state it never comes back from, or the
 * plan's deadline passes; ops are reminded while it is slow. Between reads the order sleeps on a durable timer that
 * grows to the plan's longest wait, so a poll costs a timer and one read's marker in history, and a long follow-up
 * continues as new like a long approval wait. Nothing here can buy: the order only reads what it bought.
 *
 * The first answer decides whether there is a follow-up at all: an API that answers the read with 404 or 405 does not
 * offer it, and the order ends at BOUGHT, as it would with the follow-up off.
 */
export async function followProvisioning(run: OrderRun, plan: ProvisioningPlan): Promise<ProvisioningEnding> {
  const { recorder } = run;
  const { progress } = recorder;
  const follow = (progress.provisioning ??= begin(run, plan));
  for (;;) {
    const answer = await readProduct(run, follow);
    follow.reads++;
    const ending = answer && onAnswer(run, follow, answer);
    if (ending) return ending;
    const now = Date.now();
    if (now >= follow.deadline) return stalled(run, follow, plan);
    if (now >= nextReminderAt(follow, plan)) remind(run, follow);
    const wait = Math.min(pollDelay(plan, follow.reads), follow.deadline - now, nextReminderAt(follow, plan) - now);
    recorder.checkpoint();
    await continueAsNewIfDue(run, () => false);
    await sleep(Math.max(1, wait));
  }
}

/**
 * The follow-up begins where the order was bought: by its buy, or by ops settling an uncertain buy as created (then
 * the product's first status is the one the provider reported at the settlement). The deadline and the reminders
 * count on the workflow's clock; the statuses are stamped as the timeline is (`OrderRecorder.now`).
 */
function begin(run: OrderRun, plan: ProvisioningPlan): ProvisioningProgress {
  const { progress } = run.recorder;
  const now = Date.now();
  const bought = progress.timeline.findLast((line) => line.state === 'BOUGHT');
  return {
    startedAt: now,
    deadline: now + plan.deadlineMs,
    // Seen when the order was bought: the timeline's time for it.
    statuses: [
      {
        status: progress.product!.provisioningStatus.trim() || 'UNKNOWN',
        at: bought ? Date.parse(bought.at) : run.recorder.now(),
      },
    ],
    reads: 0,
    failedReads: 0,
    remindersSent: 0,
    ...(bought && bought.actor !== ENGINE ? { settledBy: bought.actor } : {}),
  };
}

/** What the product's time is counted from: the buy, or the settlement of an uncertain one. */
function fromTheBuy(follow: ProvisioningProgress): string {
  return follow.settledBy ? `${follow.settledBy} settled the buy` : 'the buy';
}

function nextReminderAt(follow: ProvisioningProgress, plan: ProvisioningPlan): number {
  return follow.startedAt + plan.reminderMs * (follow.remindersSent + 1);
}

/** One read; a read that failed after its quick tries is shown as the order's last error (once per run of failures). */
async function readProduct(run: OrderRun, follow: ProvisioningProgress): Promise<ProductReadAnswer | undefined> {
  const { recorder } = run;
  const { request } = recorder.input;
  const { technicalServiceUid } = recorder.progress.product!;
  try {
    return await productReads.readProduct({ environment: request.environment, technicalServiceUid });
  } catch (error) {
    follow.failedReads++;
    if (follow.failedReads === 1) {
      const summary = summarise(error, `the read of product ${technicalServiceUid} failed`);
      recorder.setLastError({ ...summary, message: `${summary.message}; the follow-up reads it again later` });
    }
    return undefined;
  }
}

function onAnswer(
  run: OrderRun,
  follow: ProvisioningProgress,
  answer: ProductReadAnswer,
): ProvisioningEnding | undefined {
  const { recorder } = run;
  const { progress } = recorder;
  const product = progress.product!;
  const uid = product.technicalServiceUid;
  const answeredBefore = follow.lastAnsweredAt !== undefined;
  follow.lastAnsweredAt = recorder.now();
  if (follow.failedReads > 0) {
    follow.failedReads = 0;
    progress.lastError = undefined;
    recorder.record({ type: 'error', message: null });
  }
  if (!answer.found) {
    if (!answeredBefore) {
      // Nothing to follow: the order is what it was before the follow-up existed.
      progress.provisioning = undefined;
      recorder.note(
        ENGINE,
        `the API answered ${answer.status} to the read of product ${uid}: it does not offer the product read, so the order ends at BOUGHT (follow the product in the provider's portal)`,
      );
      return { state: 'BOUGHT', actor: ENGINE, reason: `bought ${uid}` };
    }
    return failed(run, {
      type: 'ProductNotFound',
      message: `the API no longer knows product ${uid} (HTTP ${answer.status})`,
    });
  }
  const status = answer.provisioningStatus.trim() || 'UNKNOWN';
  const previous = follow.statuses.at(-1)!;
  if (status !== previous.status) {
    const now = recorder.now();
    follow.statuses.push({ status, at: now });
    progress.product = { ...product, provisioningStatus: status };
    recorder.record({ type: 'product', product: progress.product, actor: ENGINE });
    const change = `product ${uid} is ${status} (${previous.status} for ${describeDuration(now - previous.at)})`;
    recorder.noteAndNotify(ENGINE, 'provisioning-changed', change, {
      provisioningStatus: status,
      previous: previous.status,
    });
  }
  const verdict = verdictOf(status);
  if (verdict === 'live') {
    const reason =
      follow.statuses.length === 1
        ? `product ${uid} is LIVE, as it was when ${follow.settledBy ? fromTheBuy(follow) : 'bought'}`
        : `product ${uid} is LIVE, ${describeDuration(Date.now() - follow.startedAt)} after ${fromTheBuy(follow)}`;
    recorder.moveTo('LIVE', ENGINE, reason);
    return { state: 'LIVE', actor: ENGINE, reason };
  }
  if (verdict === 'failed') {
    return failed(run, { type: 'ProvisioningFailed', message: `the API reports product ${uid} as ${status}` });
  }
  if (progress.state === 'BOUGHT') {
    recorder.moveTo(
      'PROVISIONING',
      ENGINE,
      `following product ${uid} until it is LIVE (${status}; deadline ${new Date(follow.deadline).toISOString()})`,
    );
  }
  return undefined;
}

function failed(run: OrderRun, error: { type: string; message: string }): ProvisioningEnding {
  run.recorder.setLastError(error);
  run.recorder.moveTo('PROVISIONING_FAILED', ENGINE, error.message);
  return { state: 'PROVISIONING_FAILED', actor: ENGINE, reason: error.message };
}

function stalled(run: OrderRun, follow: ProvisioningProgress, plan: ProvisioningPlan): ProvisioningEnding {
  const { status } = follow.statuses.at(-1)!;
  const uid = run.recorder.progress.product!.technicalServiceUid;
  const message = `product ${uid} is not LIVE ${describeDuration(plan.deadlineMs)} after ${fromTheBuy(follow)} (still ${status}); ops must check it with the provider`;
  run.recorder.setLastError({ type: 'ProvisioningStalled', message });
  run.recorder.moveTo('PROVISIONING_STALLED', ENGINE, message);
  return { state: 'PROVISIONING_STALLED', actor: ENGINE, reason: message };
}

function remind(run: OrderRun, follow: ProvisioningProgress): void {
  const { recorder } = run;
  follow.remindersSent++;
  const { status, at } = follow.statuses.at(-1)!;
  const message = `reminder ${follow.remindersSent}: product ${recorder.progress.product!.technicalServiceUid} is not LIVE yet (${status} for ${describeDuration(recorder.now() - at)}; the order ends PROVISIONING_STALLED at ${new Date(follow.deadline).toISOString()})`;
  recorder.noteAndNotify(ENGINE, 'provisioning-slow', message);
}
