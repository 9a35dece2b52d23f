import type { Command } from 'commander';
import {
  nonEmpty,
  ORDER_ARGUMENT,
  orderCommand,
  printJson,
  runOrderCommand,
  type OrderCommandOptions,
} from './order-session.js';

interface RecoverOptions extends OrderCommandOptions {
  reason: string;
}

export function registerRecoverCommand(program: Command): void {
  orderCommand(program.command('recover'))
    .description(
      'Recover an order whose run was ended (a `temporal workflow reset`, a terminate) or wedged (ops and admins)',
    )
    .argument('<order>', ORDER_ARGUMENT)
    .requiredOption(
      '--reason <text>',
      'what ended or wedged the order, as you found it (recorded)',
      nonEmpty('--reason'),
    )
    .option('--json', 'print { orderId, recoveredRunId, runId, resetToEventId } as JSON')
    .addHelpText(
      'after',
      [
        '',
        "The order's latest run is reset to its last completed workflow task, where the records stand, without the",
        'signals and updates that came after it; the run that reset makes goes on in its place. You are recorded as the',
        'one who recovered it. An order that has ended, or whose run is running and well, is not recovered.',
      ].join('\n'),
    )
    .action((order: string, options: RecoverOptions) =>
      runOrderCommand('recover', options, async ({ api }) => {
        const recovered = await api.recover(order, { reason: options.reason });
        if (options.json) return printJson(recovered);
        process.stdout.write(
          `recovered ${recovered.orderId}: run ${recovered.recoveredRunId} reset to event ${recovered.resetToEventId}; ` +
            `it goes on as run ${recovered.runId} (see \`mve-orders status ${order}\`)\n`,
        );
      }),
    );
}
