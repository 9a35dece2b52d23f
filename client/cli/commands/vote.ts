import type { Command } from 'commander';
import type { ApiOrder, VoteResult } from '../../http-client/index.js';
import {
  asFlag,
  CliFailure,
  nonEmpty,
  ORDER_ARGUMENT,
  orderCommand,
  parseAmount,
  parseCurrency,
  printJson,
  runOrderCommand,
  type OrderCommandOptions,
} from './order-session.js';
import { budgetAfter } from './budget-lines.js';
import { formatMoney } from './order-view.js';

type Verb = 'approve' | 'reject';

interface VoteOptions extends OrderCommandOptions {
  rate?: number;
  currency?: string;
  comment?: string;
}

export function registerApproveCommand(program: Command): void {
  registerVote(
    program,
    'approve',
    'Approve an order awaiting approval, naming the quote you approve (you: as your token says)',
  );
}

export function registerRejectCommand(program: Command): void {
  registerVote(
    program,
    'reject',
    'Reject an order awaiting approval, naming the quote you reject and why (you: as your token says)',
  );
}

function registerVote(program: Command, verb: Verb, description: string): void {
  const command = orderCommand(program.command(verb))
    .description(description)
    .argument('<order>', ORDER_ARGUMENT)
    .option(
      '--rate <monthlyRate>',
      'the monthly rate of the quote you were shown (see `mve-orders status` or `mve-orders approvals`)',
      parseAmount('--rate'),
    )
    .option('--currency <code>', 'the currency of that quote, e.g. AUD', parseCurrency('--currency'));
  if (verb === 'reject')
    command.requiredOption(
      '--comment <text>',
      'why the order is rejected (recorded on the order)',
      nonEmpty('--comment'),
    );
  else command.option('--comment <text>', 'a note recorded with your approval', nonEmpty('--comment'));
  command
    .option('--json', 'print { state, approvedBy, stillNeeded } as JSON')
    .addHelpText(
      'after',
      `
You vote as the holder of your token (MVE_TOKEN, or --as <user> with \`mve-orders dev\`): your approver roles
must allow the quote, and the order must not be your own. The vote counts only for the quote it names: if the
price changed since you looked, it is refused with the current one and nothing changes. Without --rate and
--currency the command shows the current quote and the command to approve it, and does nothing (exit 1).`,
    )
    .action((ticket: string, options: VoteOptions) =>
      runOrderCommand(verb, options, async ({ api }) => {
        if (options.rate === undefined || options.currency === undefined) {
          const order = await api.get(ticket);
          throw new CliFailure(
            1,
            nameTheQuote(verb, order, options),
            'QUOTE_NOT_NAMED',
            order.quote ? { quote: order.quote } : undefined,
          );
        }
        const named = { monthlyRate: options.rate, currency: options.currency };
        const result =
          verb === 'approve'
            ? await api.approve(ticket, {
                ...named,
                ...(options.comment !== undefined ? { comment: options.comment } : {}),
              })
            : await api.reject(ticket, { ...named, reason: options.comment! });
        if (options.json) return printJson(result);
        process.stdout.write(`${describeVote(verb, ticket, named, result)}\n`);
      }),
    );
}

function describeVote(
  verb: Verb,
  ticket: string,
  named: { monthlyRate: number; currency: string },
  result: VoteResult,
): string {
  if (result.alreadyDone) return `${ticket}: ${result.alreadyDone}`;
  const done = `${verb === 'approve' ? 'approved' : 'rejected'} ${ticket} at ${formatMoney(named.monthlyRate, named.currency)}`;
  if (verb === 'reject') return `${done}: the order is ${result.state}`;
  const by = `approved by ${result.approvedBy.join(', ')}`;
  return result.stillNeeded > 0
    ? `${done}: ${by}; ${result.stillNeeded} more approval(s) needed`
    : `${done}: approval complete (${by}); the order is ${result.state}`;
}

/** The refusal when the approver did not say which price they approve: it shows them the current one. */
function nameTheQuote(verb: Verb, order: ApiOrder, options: VoteOptions): string {
  if (!order.quote) return `${order.ticketId} has no quote yet (state ${order.state}); nothing to ${verb}`;
  const quote = formatMoney(order.quote.monthlyRate, order.quote.currency);
  const state =
    order.state === 'AWAITING_APPROVAL' ? '' : ` (note: the order is ${order.state}, not awaiting approval)`;
  // What the approver weighs beside the price: its team's figures, while it awaits a decision.
  const figures = order.budget
    ? `After it, team ${budgetAfter(order.budget)}${order.budget.overBudget ? ` (${order.budget.overBudget.reason})` : ''}. `
    : '';
  return (
    `name the quote you ${verb}: the current quote of ${order.ticketId} is ${quote} a month${state}. ${figures}` +
    `To ${verb} it: mve-orders ${verb} ${order.orderId}${asFlag(options)} --rate ${order.quote.monthlyRate} --currency ${order.quote.currency}` +
    (verb === 'reject' ? ` --comment ${options.comment ? JSON.stringify(options.comment) : '<why>'}` : '')
  );
}
