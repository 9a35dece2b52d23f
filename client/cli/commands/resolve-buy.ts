import type { Command } from 'commander';
import type { ResolveBuyInput } from '../../http-client/index.js';
import {
  CliFailure,
  nonEmpty,
  ORDER_ARGUMENT,
  parseLimit,
  orderCommand,
  printJson,
  runOrderCommand,
  stateAfter,
  type OrderCommandOptions,
} from './order-session.js';

interface ResolveOptions extends OrderCommandOptions {
  attempt?: number;
  created?: string;
  notCreated?: boolean;
  note?: string;
}

export function registerResolveBuyCommand(program: Command): void {
  orderCommand(program.command('resolve-buy'))
    .description("Settle an order in BUY_UNCERTAIN after checking the provider's portal (ops and admins)")
    .argument('<order>', ORDER_ARGUMENT)
    .option(
      '--created <uid>',
      'the buy did happen: the technicalServiceUid of the product found in the portal',
      nonEmpty('--created'),
    )
    .option('--not-created', 'the buy did not happen: the order tries again (re-validating a stale quote first)')
    .option('--note <text>', 'what you checked (required with --not-created)', nonEmpty('--note'))
    .option(
      '--attempt <n>',
      'the buy attempt you checked (default: the uncertain one, read now); a later attempt is never settled',
      parseLimit('--attempt', 1_000_000),
    )
    .option('--json', 'print { order, attempt, state } as JSON (attempt: the one settled; state: where the order went)')
    .addHelpText(
      'after',
      '\nGive exactly one of --created <uid> and --not-created --note <text>. You are recorded as the one who resolved it.',
    )
    .action((ticket: string, options: ResolveOptions) =>
      runOrderCommand('resolve-buy', options, async ({ api }) => {
        const outcome = outcomeOf(options);
        const attempt = options.attempt ?? (await api.get(ticket)).buyAttempts ?? 0;
        const resolution: ResolveBuyInput = { ...outcome, attempt };
        const accepted = await api.resolveBuy(ticket, resolution);
        const { state, settled } = await stateAfter(api, ticket, accepted.state);
        if (options.json) return printJson({ order: ticket, attempt, state });
        process.stdout.write(
          settled
            ? `resolved buy attempt ${attempt} of ${ticket} (${resolution.outcome}): now ${state}\n`
            : `resolution of buy attempt ${attempt} of ${ticket} (${resolution.outcome}) accepted (in ${accepted.state}); the order has not moved on yet: see \`mve-orders status ${ticket}\`\n`,
        );
      }),
    );
}

/** What ops found, without the attempt they checked. */
type Outcome = WithoutAttempt<ResolveBuyInput>;
type WithoutAttempt<T> = T extends unknown ? Omit<T, 'attempt'> : never;

/** What ops found, checked before anything is read or sent. */
function outcomeOf(options: ResolveOptions): Outcome {
  if ((options.created !== undefined) === (options.notCreated === true)) {
    throw new CliFailure(2, 'give exactly one of --created <uid> and --not-created --note <text>');
  }
  if (options.created !== undefined) {
    return {
      outcome: 'created',
      technicalServiceUid: options.created,
      ...(options.note ? { note: options.note } : {}),
    };
  }
  if (!options.note) throw new CliFailure(2, '--not-created needs --note <text> saying what you checked');
  return { outcome: 'not-created', note: options.note };
}
