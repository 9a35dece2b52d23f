import type { Command } from 'commander';
import {
  asFlag,
  orderCommand,
  parseLimit,
  printJson,
  runOrderCommand,
  type OrderCommandOptions,
} from './order-session.js';
import { formatApprovals, formatMoney } from './order-view.js';

export function registerApprovalsCommand(program: Command): void {
  orderCommand(program.command('approvals'))
    .description(
      'Your inbox: the orders awaiting your decision (your approver roles, not your own orders, not yet voted), oldest first',
    )
    .option('--limit <n>', 'at most this many (1 to 1000; default 100)', parseLimit('--limit', 1000))
    .option('--json', 'print { approvals } as JSON')
    .action((options: OrderCommandOptions & { limit?: number }) =>
      runOrderCommand('approvals', options, async ({ api }) => {
        const { approvals } = await api.approvals(options.limit !== undefined ? { limit: options.limit } : {});
        if (options.json) return printJson({ approvals });
        if (approvals.length === 0) return void process.stdout.write('Nothing awaits your decision.\n');
        process.stdout.write(formatApprovals(approvals));
        const first = approvals.find((item) => item.monthlyRate !== null && item.currency !== null);
        if (first) {
          process.stdout.write(
            `\nto approve one (after \`mve-orders status <ticket>\`): mve-orders approve ${first.orderId}${asFlag(options)} ` +
              `--rate ${first.monthlyRate} --currency ${first.currency}   (the quote of ${formatMoney(first.monthlyRate!, first.currency!)})\n`,
          );
        }
      }),
    );
}
