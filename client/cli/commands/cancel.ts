import type { Command } from 'commander';
import { messageOrder, nonEmpty, printJson, runOrderCommand, usageErrorsExit2, type OutputOptions } from './order-session.js';

export function registerCancelCommand(program: Command): void {
  usageErrorsExit2(program.command('cancel'))
    .description('Cancel an order that has not reached the buy yet')
    .argument('<ticket>', 'the ticket id of the order')
    .requiredOption('--as <actor>', 'who cancels (recorded on the order)', nonEmpty('--as'))
    .requiredOption('--reason <text>', 'why (recorded on the order)', nonEmpty('--reason'))
    .option('--json', 'print { ticketId, state } as JSON')
    .addHelpText('after', '\nExit codes: 0 cancelled; 1 refused (already buying or ended) or no such order; 2 unusable input or no engine.')
    .action((ticket: string, options: OutputOptions & { as: string; reason: string }) =>
      runOrderCommand('cancel', options, async ({ orders }) => {
        const state = await messageOrder(orders, ticket, () => orders.cancel(ticket, { actor: options.as, reason: options.reason }));
        if (options.json) printJson({ ticketId: ticket, state });
        else process.stdout.write(`cancelled ${ticket}: now ${state}\n`);
      }),
    );
}
