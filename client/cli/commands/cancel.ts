import type { Command } from 'commander';
import {
  nonEmpty,
  ORDER_ARGUMENT,
  orderCommand,
  printJson,
  runOrderCommand,
  stateAfter,
  type OrderCommandOptions,
} from './order-session.js';

export function registerCancelCommand(program: Command): void {
  orderCommand(program.command('cancel'))
    .description(
      'Cancel an order that has not reached the buy yet (ops, or the requester or ticket system of the order)',
    )
    .argument('<order>', ORDER_ARGUMENT)
    .requiredOption(
      '--reason <text>',
      'why (recorded on the order, with you as the one who cancelled)',
      nonEmpty('--reason'),
    )
    .option('--json', 'print { order, state } as JSON (state: where the order went)')
    .action((ticket: string, options: OrderCommandOptions & { reason: string }) =>
      runOrderCommand('cancel', options, async ({ api }) => {
        const accepted = await api.cancel(ticket, { reason: options.reason });
        if (accepted.alreadyDone) {
          if (options.json)
            return printJson({ order: ticket, state: accepted.state, alreadyDone: accepted.alreadyDone });
          return void process.stdout.write(`${ticket}: ${accepted.alreadyDone}\n`);
        }
        const { state, settled } = await stateAfter(api, ticket, accepted.state);
        if (options.json) return printJson({ order: ticket, state });
        process.stdout.write(
          settled
            ? `cancelled ${ticket}: now ${state}\n`
            : `cancel of ${ticket} accepted (in ${accepted.state}); the order has not moved on yet: see \`mve-orders status ${ticket}\`\n`,
        );
      }),
    );
}
