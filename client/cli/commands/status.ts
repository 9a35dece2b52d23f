import type { Command } from 'commander';
import { printJson, runOrderCommand, type OutputOptions } from './order-session.js';
import { formatStatus } from './order-view.js';

export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description("Show an order: state, quote, approvals and deadline, product, last error, and its timeline")
    .argument('<ticket>', 'the ticket id the order was submitted with')
    .option('--json', "print the order's status view as JSON")
    .action((ticket: string, options: OutputOptions) =>
      runOrderCommand('status', options, async ({ orders }) => {
        const view = await orders.status(ticket);
        if (options.json) printJson(view);
        else process.stdout.write(formatStatus(view));
      }),
    );
}
