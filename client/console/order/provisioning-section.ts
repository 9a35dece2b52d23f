/**
 * The order page's "Provisioning" section: the follow-up of a bought MVE as the workflow reports it (the provider's
 * status, how long each one lasted, the deadline), and, when it ended without the MVE live, what ops should check
 * with the provider. The workflow decides all of it; this only shows what its status says.
 */
import { describeDuration } from '../../../domain/lifecycle/index.js';
import type { OrderStatusView } from '../../../workflows/order/messages.js';
import { html, timeLeft, when, type Html } from '../html.js';
import { dataTable } from '../tables.js';

export type Provisioning = NonNullable<OrderStatusView['provisioning']>;

/** What the section reads of the order, as the API shows it. */
export interface FollowedOrder {
  state: string;
  provisioning?: Provisioning;
  product?: { technicalServiceUid: string } | null;
  lastError?: { message: string } | null;
}

/** The ends of a follow-up that leave ops something to do, and what the section says about each. */
const ENDINGS: Record<string, { title: string; meaning: string; check: string }> = {
  PROVISIONING_FAILED: {
    title: 'Provisioning failed',
    meaning: 'The product will not go live as it is, and the order follows it no more.',
    check: 'why it failed, and whether anything is charged for it. If the MVE is still needed, order it again',
  },
  PROVISIONING_STALLED: {
    title: 'Provisioning stalled',
    meaning:
      'The order stopped following the product at its deadline: the product may still go live, or need the provider to act.',
    check: 'its status now, and when it will be live or why it is not',
  },
};

/** Whether the section's notice tells the order's last error (the page then shows it there only). */
export function provisioningTellsError(order: FollowedOrder): boolean {
  return order.provisioning !== undefined && order.state in ENDINGS;
}

/**
 * The section, once the follow-up has begun; before (and for an order not followed) an empty live region, so the
 * section appears by itself on a page left open.
 * `boughtUnder` names what ops look for in the provider's portal.
 */
export function provisioningSection(order: FollowedOrder, now: number, boughtUnder: Html): Html {
  const follow = order.provisioning;
  if (!follow) return html`<div data-live="provisioning"></div>`;
  return html`<section data-live="provisioning" aria-labelledby="provisioning-heading" data-testid="provisioning">
    <h2 id="provisioning-heading">Provisioning</h2>
    ${endingNotice(order, boughtUnder)}
    <dl class="facts">
      <dt>Status</dt><dd data-testid="provisioning-status">${statusNow(order.state, follow, now)}</dd>
      ${
        follow.settledBy
          ? html`<dt>Settled</dt><dd data-testid="provisioning-settled">${when(follow.startedAt)}, by ${follow.settledBy}, who found the product after an uncertain buy</dd>`
          : html`<dt>Bought</dt><dd>${when(follow.startedAt)}</dd>`
      }
      ${deadlineRow(order.state, follow, now)}
      ${
        follow.failedReads > 0
          ? html`<dt>Failed reads</dt><dd data-testid="provisioning-failed-reads" class="urgent">${follow.failedReads} in a row; ${follow.lastAnsweredAt ? html`the last answer came ${when(follow.lastAnsweredAt)}` : 'no read has been answered yet'}. The order reads it again later.</dd>`
          : ''
      }
      ${follow.remindersSent > 0 ? html`<dt>Reminders</dt><dd data-testid="provisioning-reminders">${follow.remindersSent} sent while it was not live (each is in the timeline)</dd>` : ''}
    </dl>
    ${statusesTable(order.state, follow, now)}
  </section>`;
}

function endingNotice(order: FollowedOrder, boughtUnder: Html): Html | string {
  const ending = ENDINGS[order.state];
  if (!ending) return '';
  const uid = order.product?.technicalServiceUid;
  return html`<div class="notice error prose" role="status" data-testid="provisioning-notice" data-state="${order.state}">
    <p><strong>${ending.title}</strong>${order.lastError ? html`: ${order.lastError.message}` : ''}. ${ending.meaning}</p>
    <p>Check with the provider, for ${uid ? html`product <code>${uid}</code>, bought as ` : ''}${boughtUnder}: ${ending.check}.</p>
  </div>`;
}

/** When the follow-up last knew the product's status: a stalled one stopped reading, so not now. */
function knownUntil(state: string, follow: Provisioning, now: number): number {
  return state === 'PROVISIONING_STALLED' && follow.lastAnsweredAt ? Date.parse(follow.lastAnsweredAt) : now;
}

function statusNow(state: string, follow: Provisioning, now: number): Html {
  const since = Date.parse(follow.since);
  const status = html`<strong>${follow.status}</strong>`;
  const bought = follow.settledBy ? `${follow.settledBy} settled the buy` : 'the buy';
  if ((state === 'LIVE' || state === 'PROVISIONING_FAILED') && follow.statuses.length === 1)
    return html`${status}, as it was when ${follow.settledBy ? bought : 'bought'} (since ${when(follow.since)})`;
  if (state === 'LIVE' || state === 'PROVISIONING_FAILED')
    return html`${status}, ${describeDuration(since - Date.parse(follow.startedAt))} after ${bought} (since ${when(follow.since)})`;
  if (state === 'PROVISIONING_STALLED')
    return html`${status} for at least ${describeDuration(knownUntil(state, follow, now) - since)} (since ${when(follow.since)}), when it was last read`;
  return html`${status} for ${describeDuration(now - since)} (since ${when(follow.since)})`;
}

/** While the order follows the product: time left; once it stalled: passed. Live or failed, it no longer matters. */
function deadlineRow(state: string, follow: Provisioning, now: number): Html | string {
  if (state === 'LIVE' || state === 'PROVISIONING_FAILED') return '';
  const passed = Date.parse(follow.deadline) <= now;
  const following = state !== 'PROVISIONING_STALLED';
  return html`<dt>Deadline</dt><dd data-testid="provisioning-deadline">${when(follow.deadline)} <span class="${passed ? 'urgent' : 'muted'}">(${timeLeft(follow.deadline, now)})</span>${following ? html` <span class="muted">to be live, else the order ends PROVISIONING_STALLED</span>` : ''}</dd>`;
}

/** Each status seen, oldest first, with how long it lasted: until the next one, or (the last) until now. */
function statusesTable(state: string, follow: Provisioning, now: number): Html {
  const until = knownUntil(state, follow, now);
  const rows = follow.statuses.map((seen, index) => {
    const next = follow.statuses[index + 1];
    const from = Date.parse(seen.at);
    const lasted = next
      ? describeDuration(Date.parse(next.at) - from)
      : state === 'PROVISIONING_STALLED'
        ? `at least ${describeDuration(until - from)}`
        : `${describeDuration(until - from)} so far`;
    return { ...seen, lasted };
  });
  return dataTable({
    testId: 'provisioning-statuses',
    caption: "The provider's statuses of the product, oldest first",
    rowHeader: true,
    rows,
    rowAttributes: (row) => html`data-testid="provisioning-step" data-status="${row.status}"`,
    columns: [
      { label: 'Status', cell: (row) => row.status },
      { label: 'First seen (UTC)', cell: (row) => when(row.at, { zone: false }) },
      { label: 'Lasted', cell: (row) => row.lasted },
    ],
  });
}
