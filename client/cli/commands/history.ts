import type { Command } from 'commander';
import { ORDER_ARGUMENT, orderCommand, printJson, runOrderCommand, type OrderCommandOptions } from './order-session.js';
import { eventType, formatBuyAttempts, formatHistoryTimeline, formatVotes, indent } from './order-view.js';
import { formatTable } from './table.js';

interface HistoryOptions extends OrderCommandOptions {
  events?: boolean;
}

export function registerHistoryCommand(program: Command): void {
  orderCommand(program.command('history'))
    .description("An order's recorded history: every state change and note in sequence, the votes, the buy attempts")
    .argument('<order>', ORDER_ARGUMENT)
    .option('--events', "also the workflow's history events: how many, and how many of each type")
    .option(
      '--json',
      'print everything as JSON, the workflow events included (payloads decoded for ops and admins, withheld for others)',
    )
    .action((ticket: string, options: HistoryOptions) =>
      runOrderCommand('history', options, async ({ api }) => {
        const history = await api.history(ticket, { events: options.json === true || options.events === true });
        if (options.json) return printJson(history);
        const parts = [
          `${history.ticketId}   (order ${history.orderId}, workflow ${history.workflowId})`,
          'timeline',
          formatHistoryTimeline(history.timeline).trimEnd(),
        ];
        if (history.votes.length > 0) parts.push('votes', formatVotes(history.votes).trimEnd());
        if (history.buyAttempts.length > 0)
          parts.push('buy attempts', formatBuyAttempts(history.buyAttempts).trimEnd());
        if (options.events) {
          parts.push(
            `workflow events: ${history.events.length}${history.events.length === 0 ? ' (Temporal no longer has the workflow)' : ''}`,
          );
          if (history.events.length > 0) {
            // Each type once, in the order it first appears, with how many times it occurs.
            const counts = new Map<string, number>();
            for (const event of history.events) counts.set(eventType(event), (counts.get(eventType(event)) ?? 0) + 1);
            const rows = [...counts].map(([type, count]) => [type, String(count)]);
            parts.push(indent(formatTable(['TYPE', 'COUNT'], rows)).trimEnd());
          }
        }
        process.stdout.write(`${parts.join('\n')}\n`);
      }),
    );
}
