import type { Command } from 'commander';
import type { OrderStatusView, VoteInput, VoteResult } from '../../../workflows/order/messages.js';
import {
  CliFailure,
  messageOrder,
  nonEmpty,
  parseAmount,
  parseCurrency,
  printJson,
  runOrderCommand,
  usageErrorsExit2,
  type OutputOptions,
} from './order-session.js';
import { formatMoney } from './order-view.js';

type Verb = 'approve' | 'reject';

interface VoteOptions extends OutputOptions {
  as: string;
  rate?: number;
  currency?: string;
  comment?: string;
}

export function registerApproveCommand(program: Command): void {
  registerVote(program, 'approve', 'Approve an order awaiting approval, naming the quote you approve');
}

export function registerRejectCommand(program: Command): void {
  registerVote(program, 'reject', 'Reject an order awaiting approval, naming the quote you reject and why');
}

function registerVote(program: Command, verb: Verb, description: string): void {
  const command = usageErrorsExit2(program.command(verb))
    .description(description)
    .argument('<ticket>', 'the ticket id of the order')
    .requiredOption('--as <approverId>', 'your approver id (see `mve-orders approvers list`)', nonEmpty('--as'))
    .option('--rate <monthlyRate>', 'the monthly rate of the quote you were shown (see `mve-orders status`)', parseAmount('--rate'))
    .option('--currency <code>', 'the currency of that quote, e.g. AUD', parseCurrency('--currency'));
  if (verb === 'reject') command.requiredOption('--comment <text>', 'why the order is rejected (recorded on the order)', nonEmpty('--comment'));
  else command.option('--comment <text>', 'a note recorded with your approval');
  command
    .option('--json', 'print { state, approvedBy, stillNeeded } as JSON')
    .addHelpText(
      'after',
      `
The vote counts only for the quote it names: if the price changed since you looked, it is refused and nothing
changes. Without --rate and --currency the command shows the current quote and does nothing.
Exit codes: 0 recorded; 1 refused (unknown approver, missing role, own order, stale quote, second vote,
not awaiting approval) or no such order; 2 unusable input or no engine.`,
    )
    .action((ticket: string, options: VoteOptions) =>
      runOrderCommand(verb, options, async ({ orders }) => {
        if (options.rate === undefined || options.currency === undefined) {
          const view = await orders.status(ticket);
          throw new CliFailure(1, nameTheQuote(verb, view, options.as), 'QUOTE_NOT_NAMED', view.quote ? { quote: view.quote } : undefined);
        }
        const vote = {
          approverId: options.as,
          monthlyRate: options.rate,
          currency: options.currency,
          ...(options.comment !== undefined ? { comment: options.comment } : {}),
        };
        const result = await messageOrder(orders, ticket, () => (verb === 'approve' ? orders.approve(ticket, vote) : orders.reject(ticket, vote)));
        if (options.json) return printJson(result);
        process.stdout.write(`${describeVote(verb, ticket, vote, result)}\n`);
      }),
    );
}

function describeVote(verb: Verb, ticket: string, vote: VoteInput, result: VoteResult): string {
  const done = `${verb === 'approve' ? 'approved' : 'rejected'} ${ticket} at ${formatMoney(vote.monthlyRate, vote.currency)} as ${vote.approverId}`;
  if (verb === 'reject') return `${done}: the order is ${result.state}`;
  const by = `approved by ${result.approvedBy.join(', ')}`;
  return result.stillNeeded > 0
    ? `${done}: ${by}; ${result.stillNeeded} more approval(s) needed`
    : `${done}: approval complete (${by}); the order is ${result.state}`;
}

/** The refusal when the approver did not say which price they approve: it shows them the current one. */
function nameTheQuote(verb: Verb, view: OrderStatusView, approverId: string): string {
  if (!view.quote) return `${view.ticketId} has no quote yet (state ${view.state}); nothing to ${verb}`;
  const quote = formatMoney(view.quote.monthlyRate, view.quote.currency);
  const state = view.state === 'AWAITING_APPROVAL' ? '' : ` (note: the order is ${view.state}, not awaiting approval)`;
  return (
    `name the quote you ${verb}: the current quote of ${view.ticketId} is ${quote} a month${state}. ` +
    `To ${verb} it: mve-orders ${verb} ${view.ticketId} --as ${approverId} --rate ${view.quote.monthlyRate} --currency ${view.quote.currency}` +
    (verb === 'reject' ? ' --comment <why>' : '')
  );
}
