import type {
  ApiOrder,
  HistoryBuyAttempt,
  HistoryEntry,
  HistoryVote,
  OrderListItem,
  PendingApproval,
} from '../../http-client/index.js';
import type { TimelineEntry } from '../../../workflows/order/messages.js';
import { budgetAfter, budgetRows, recordedFigures } from './budget-lines.js';
import { formatTable } from './table.js';

/** How an order reads to a person: `mve-orders status`, `orders`, `approvals`, `history` and the demo print it this way. */

export function formatMoney(monthlyRate: number, currency: string): string {
  return `${monthlyRate.toFixed(2)} ${currency}`;
}

/** The governing policy as a person needs it: its version and the start of its hash. */
export function formatPolicy(policy: { version: string; hash: string } | null | undefined): string {
  return policy ? `${policy.version} (sha256 ${policy.hash.slice(0, 12)})` : 'not recorded yet';
}

export function formatTimeline(timeline: readonly TimelineEntry[]): string {
  if (timeline.length === 0) return '  (nothing yet)\n';
  const rows = timeline.map((entry) => [String(entry.seq), entry.at, entry.state, entry.actor, entry.reason]);
  return indent(formatTable(['#', 'AT', 'STATE', 'BY', 'WHY'], rows));
}

/** Everything the order shows: who, the governing policy, where and what, quote, approvals, product, errors, timeline. */
export function formatStatus(order: ApiOrder, now = Date.now()): string {
  const lines = [`${order.ticketId}  ${order.state}   (order ${order.orderId}, workflow ${order.workflowId})`];
  const row = (label: string, value: string) => lines.push(`  ${label.padEnd(13)}${value}`);
  if (order.waitingForWorkerSince)
    row('waiting', `for a worker since ${order.waitingForWorkerSince}: none has started this order yet`);
  row(
    'environment',
    `${order.environment}, requested by ${order.requestedBy}${order.submittedBy ? `, submitted by ${order.submittedBy}` : ''}`,
  );
  row('policy', formatPolicy(order.policy));
  if (order.location) {
    const where = [order.location.metro, order.location.country].filter(Boolean).join(', ');
    row('location', `${order.location.name}${where ? ` (${where})` : ''}, id ${order.location.id}`);
  }
  if (order.image) {
    row(
      'image',
      `${order.image.vendor} ${order.image.product} ${order.image.version} (id ${order.image.id})${order.kind ? `, kind ${order.kind}` : ''}`,
    );
  }
  if (order.quote) {
    const quoted = order.quote.quotedAt ? ` (quoted ${order.quote.quotedAt})` : '';
    row('quote', `${formatMoney(order.quote.monthlyRate, order.quote.currency)} a month${quoted}`);
  }
  if (order.budget) for (const [label, value] of budgetRows(order.budget)) row(label, value);
  else if (order.team) row('team', order.team);
  if (order.approval) {
    const { tier, votes, stillNeeded, deadline, remindersSent } = order.approval;
    row(
      'approval',
      `tier "${tier.name}": ${tier.approvals} approver(s) with role ${tier.roles.join(' or ')}; ${stillNeeded} still needed`,
    );
    row('', `deadline ${deadline} (${untilDeadline(Date.parse(deadline), now)}), reminders sent ${remindersSent}`);
    const short = order.approval.shortOfApprovers;
    if (short) {
      const again = short.nextDirectoryReadAt ? ` (the directory is read again at ${short.nextDirectoryReadAt})` : '';
      row('warning', `${short.message}${again}`);
    }
    for (const vote of votes) {
      row(
        '',
        `${vote.decision} by ${vote.approverId} at ${formatMoney(vote.monthlyRate, vote.currency)}${vote.comment ? `: ${vote.comment}` : ''}`,
      );
    }
  }
  if (order.buyAttempts) row('buy attempts', String(order.buyAttempts));
  if (order.product)
    row('product', `${order.product.technicalServiceUid} (provisioning ${order.product.provisioningStatus})`);
  if (order.lastError) {
    const extra = [order.lastError.type, order.lastError.traceId && `trace ${order.lastError.traceId}`]
      .filter(Boolean)
      .join(', ');
    row('last error', `${order.lastError.message}${extra ? ` (${extra})` : ''} at ${order.lastError.at}`);
  }
  if (order.source === 'records') row('source', 'the records (Temporal no longer has the workflow)');
  if (order.state === 'AWAITING_APPROVAL' && order.quote) {
    row(
      'to approve',
      `mve-orders approve ${order.orderId} --rate ${order.quote.monthlyRate} --currency ${order.quote.currency} (as an approver)`,
    );
  }
  if (order.state === 'BUY_UNCERTAIN') {
    row(
      'to resolve',
      `check the provider's portal, then (as ops) mve-orders resolve-buy ${order.orderId} (--created <uid> | --not-created --note <text>)`,
    );
  }
  lines.push('timeline');
  return `${lines.join('\n')}\n${formatTimeline(order.timeline ?? [])}`;
}

export function formatOrderList(orders: readonly OrderListItem[]): string {
  const rows = orders.map((order) => [
    order.orderId,
    order.state,
    order.environment,
    order.requestedBy,
    order.quote ? formatMoney(order.quote.monthlyRate, order.quote.currency) : '-',
    order.createdAt,
    order.updatedAt,
  ]);
  return formatTable(['ORDER', 'STATE', 'ENV', 'REQUESTER', 'MONTHLY RATE', 'CREATED', 'UPDATED'], rows);
}

export function formatApprovals(approvals: readonly PendingApproval[]): string {
  const rows = approvals.map((item) => [
    item.orderId,
    item.requestedBy,
    item.environment,
    item.monthlyRate === null || item.currency === null ? '-' : formatMoney(item.monthlyRate, item.currency),
    budgetAfter(item.budget),
    item.tier,
    `${item.approvalsGiven}/${item.approvalsNeeded}`,
    item.deadline ?? '-',
    item.waitingSince,
  ]);
  return formatTable(
    ['ORDER', 'REQUESTER', 'ENV', 'MONTHLY RATE', 'TEAM AFTER IT', 'TIER', 'APPROVALS', 'DEADLINE', 'WAITING SINCE'],
    rows,
  );
}

/** The history's timeline: state changes and notes, in sequence. */
export function formatHistoryTimeline(timeline: readonly HistoryEntry[]): string {
  if (timeline.length === 0) return '  (nothing recorded)\n';
  const rows = timeline.map((entry) => [
    String(entry.seq),
    entry.at,
    entry.kind === 'state' ? (entry.state ?? '') : 'note',
    entry.actor,
    entry.text,
  ]);
  return indent(formatTable(['#', 'AT', 'STATE', 'BY', 'WHY / NOTE'], rows));
}

export function formatVotes(votes: readonly HistoryVote[]): string {
  const rows = votes.map((vote) => [
    String(vote.quoteNumber),
    vote.at,
    vote.decision,
    vote.approverId,
    `${Number(vote.monthlyRate).toFixed(2)} ${vote.currency}`,
    budgetAfter(recordedFigures(vote.figures)),
    vote.reason ?? '',
  ]);
  // The team's figures as the approver was shown them when voting.
  return indent(formatTable(['QUOTE', 'AT', 'DECISION', 'BY', 'AT PRICE', 'TEAM AFTER IT', 'WHY'], rows));
}

export function formatBuyAttempts(attempts: readonly HistoryBuyAttempt[]): string {
  const rows = attempts.map((attempt) => [
    String(attempt.attempt),
    attempt.intentAt,
    attempt.outcome ?? 'unknown',
    attempt.technicalServiceUid ?? '-',
    [attempt.errorClass, attempt.errorMessage].filter(Boolean).join(': ') || '-',
    attempt.resolvedBy ?? '-',
  ]);
  return indent(formatTable(['#', 'INTENT AT', 'OUTCOME', 'PRODUCT', 'ERROR', 'RESOLVED BY'], rows));
}

/** `EVENT_TYPE_WORKFLOW_EXECUTION_STARTED` → `WORKFLOW_EXECUTION_STARTED`. */
export function eventType(event: unknown): string {
  const type =
    typeof event === 'object' && event !== null ? (event as Record<string, unknown>)['eventType'] : undefined;
  return typeof type === 'string' ? type.replace(/^EVENT_TYPE_/, '') : 'UNKNOWN';
}

function untilDeadline(deadline: number, now: number): string {
  const minutes = Math.round((deadline - now) / 60_000);
  if (minutes <= 0) return 'passed';
  return `in ${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

export function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : `  ${line}`))
    .join('\n');
}
