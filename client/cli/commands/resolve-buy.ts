import type { Command } from 'commander';
import type { ResolveBuyInput } from '../../../workflows/order/messages.js';
import { CliFailure, messageOrder, nonEmpty, printJson, runOrderCommand, usageErrorsExit2, type OutputOptions } from './order-session.js';

interface ResolveOptions extends OutputOptions {
  as: string;
  created?: string;
  provisioningStatus?: string;
  notCreated?: boolean;
  note?: string;
}

export function registerResolveBuyCommand(program: Command): void {
  usageErrorsExit2(program.command('resolve-buy'))
    .description("Settle an order in BUY_UNCERTAIN after checking the provider's portal")
    .argument('<ticket>', 'the ticket id of the order')
    .requiredOption('--as <actor>', 'who resolves it (recorded on the order)', nonEmpty('--as'))
    .option('--created <uid>', 'the buy did happen: the technicalServiceUid of the product found in the portal', nonEmpty('--created'))
    .option('--provisioning-status <status>', 'with --created: the provisioning status the portal shows')
    .option('--not-created', 'the buy did not happen: the order tries again (re-validating a stale quote first)')
    .option('--note <text>', 'what you checked (required with --not-created)')
    .option('--json', 'print { ticketId, state } as JSON')
    .addHelpText(
      'after',
      `
Give exactly one of --created <uid> and --not-created --note <text>.
Exit codes: 0 resolved; 1 refused (not in BUY_UNCERTAIN, malformed UID) or no such order; 2 unusable input or no engine.`,
    )
    .action((ticket: string, options: ResolveOptions) =>
      runOrderCommand('resolve-buy', options, async ({ orders }) => {
        const resolution = resolutionOf(options);
        const state = await messageOrder(orders, ticket, () => orders.resolveBuy(ticket, resolution));
        if (options.json) printJson({ ticketId: ticket, state });
        else process.stdout.write(`resolved ${ticket} (${resolution.outcome}): now ${state}\n`);
      }),
    );
}

function resolutionOf(options: ResolveOptions): Omit<Extract<ResolveBuyInput, { outcome: "created" }>, "attempt"> | Omit<Extract<ResolveBuyInput, { outcome: "not-created" }>, "attempt"> {
  if ((options.created !== undefined) === (options.notCreated === true)) {
    throw new CliFailure(2, 'give exactly one of --created <uid> and --not-created --note <text>');
  }
  const note = options.note?.trim() || undefined;
  if (options.created !== undefined) {
    return {
      actor: options.as,
      outcome: 'created',
      technicalServiceUid: options.created,
      ...(options.provisioningStatus ? { provisioningStatus: options.provisioningStatus } : {}),
      ...(note ? { note } : {}),
    };
  }
  if (options.provisioningStatus) throw new CliFailure(2, '--provisioning-status goes with --created, not --not-created');
  if (!note) throw new CliFailure(2, '--not-created needs --note <text> saying what you checked');
  return { actor: options.as, outcome: 'not-created', note };
}
