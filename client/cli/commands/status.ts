import type { Command } from 'commander';
import { ORDER_ARGUMENT, orderCommand, printJson, runOrderCommand, type OrderCommandOptions } from './order-session.js';
import { formatStatus } from './order-view.js';

export function registerStatusCommand(program: Command): void {
  orderCommand(program.command('status'))
    .description(
      'Show an order: state, who requested and submitted it, its approval policy, quote, approvals and deadline, product, last error, timeline',
    )
    .argument('<order>', ORDER_ARGUMENT)
    .option('--json', 'print the order as the API gives it, as JSON')
    .action((ticket: string, options: OrderCommandOptions) =>
      runOrderCommand('status', options, async ({ api }) => {
        const order = await api.get(ticket);
        if (options.json) printJson(order);
        else process.stdout.write(formatStatus(order));
      }),
    );
}
