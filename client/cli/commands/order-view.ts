import type { OrderStatusView, TimelineEntry } from '../../../workflows/order/messages.js';
import { formatTable } from './catalog-table.js';

/** How an order reads to a person: `mve-orders status` and the demo print it this way. */

export function formatMoney(monthlyRate: number, currency: string): string {
  return `${monthlyRate.toFixed(2)} ${currency}`;
}

export function formatTimeline(timeline: readonly TimelineEntry[]): string {
  if (timeline.length === 0) return '  (nothing yet)\n';
  const rows = timeline.map((entry) => [String(entry.seq), entry.at, entry.state, entry.actor, entry.reason]);
  return indent(formatTable(['#', 'AT', 'STATE', 'BY', 'WHY'], rows));
}

export function formatStatus(view: OrderStatusView, now = Date.now()): string {
  const lines = [`${view.ticketId}  ${view.state}   (workflow ${view.workflowId})`];
  const row = (label: string, value: string) => lines.push(`  ${label.padEnd(13)}${value}`);
  row('environment', `${view.environment}, requested by ${view.requestedBy}`);
  if (view.location) {
    const where = [view.location.metro, view.location.country].filter(Boolean).join(', ');
    row('location', `${view.location.name}${where ? ` (${where})` : ''}, id ${view.location.id}`);
  }
  if (view.image) {
    row('image', `${view.image.vendor} ${view.image.product} ${view.image.version} (id ${view.image.id})${view.kind ? `, kind ${view.kind}` : ''}`);
  }
  if (view.quote) {
    const trace = view.quote.traceId ? `, trace ${view.quote.traceId}` : '';
    row('quote', `${formatMoney(view.quote.monthlyRate, view.quote.currency)} a month (quoted ${new Date(view.quote.quotedAt).toISOString()}${trace})`);
  }
  if (view.approval) {
    const { tier, votes, stillNeeded, deadline, remindersSent } = view.approval;
    row('approval', `tier "${tier.name}": ${tier.approvals} approver(s) with role ${tier.roles.join(' or ')}; ${stillNeeded} still needed`);
    row('', `deadline ${deadline} (${untilDeadline(Date.parse(deadline), now)}), reminders sent ${remindersSent}`);
    for (const vote of votes) {
      row('', `${vote.decision} by ${vote.approverId} at ${formatMoney(vote.monthlyRate, vote.currency)}${vote.comment ? `: ${vote.comment}` : ''}`);
    }
  }
  if (view.buyAttempts > 0) row('buy attempts', String(view.buyAttempts));
  if (view.product) row('product', `${view.product.technicalServiceUid} (provisioning ${view.product.provisioningStatus})`);
  if (view.lastError) {
    const extra = [view.lastError.type, view.lastError.traceId && `trace ${view.lastError.traceId}`].filter(Boolean).join(', ');
    row('last error', `${view.lastError.message}${extra ? ` (${extra})` : ''} at ${view.lastError.at}`);
  }
  if (view.state === 'AWAITING_APPROVAL' && view.quote) {
    row('to approve', `mve-orders approve ${view.ticketId} --as <approver> --rate ${view.quote.monthlyRate} --currency ${view.quote.currency}`);
  }
  if (view.state === 'BUY_UNCERTAIN') {
    row('to resolve', `check the provider's portal, then mve-orders resolve-buy ${view.ticketId} --as <you> (--created <uid> | --not-created --note <text>)`);
  }
  lines.push('timeline');
  return `${lines.join('\n')}\n${formatTimeline(view.timeline)}`;
}

function untilDeadline(deadline: number, now: number): string {
  const minutes = Math.round((deadline - now) / 60_000);
  if (minutes <= 0) return 'passed';
  return `in ${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : `  ${line}`))
    .join('\n');
}
