import { InvalidArgumentError, Option, type Command } from 'commander';
import type { OrderState } from '../../../domain/lifecycle/index.js';
import {
  nonEmpty,
  orderCommand,
  parseLimit,
  printJson,
  runOrderCommand,
  type OrderCommandOptions,
} from './order-session.js';
import { formatOrderList } from './order-view.js';

interface OrdersOptions extends OrderCommandOptions {
  status?: OrderState;
  environment?: 'staging' | 'production';
  requester?: string;
  limit?: number;
  cursor?: string;
}

/**
 * What `orders` needs from the domain for its help and its check of --status: the order states. Loaded before the
 * command line is parsed, only when it names `orders` (commands.ts): the domain's module brings zod with it.
 */
export interface OrdersDetails {
  states: readonly OrderState[];
}

export async function loadOrdersDetails(): Promise<OrdersDetails> {
  const { ORDER_STATES } = await import('../../../domain/lifecycle/index.js');
  return { states: ORDER_STATES };
}

/**
 * Without `details` (another command runs, or the list of commands is shown), --status is registered unchecked and
 * its help names no states: neither is ever reached then.
 */
export function registerOrdersCommand(program: Command, details: OrdersDetails | undefined): void {
  const status = new Option(
    '--status <state>',
    `only orders in this state${details ? ` (${details.states.join(', ')})` : ''}`,
  );
  if (details) status.argParser(stateParser(details.states));
  orderCommand(program.command('orders'))
    .description(
      'List orders, newest first, a page at a time (the ones you may see: ops and approvers all, a requester their own)',
    )
    .addOption(status)
    .option('--environment <env>', 'only orders of this environment (staging or production)', parseEnvironment)
    .option('--requester <id>', 'only orders requested by this person', nonEmpty('--requester'))
    .option('--limit <n>', 'orders a page (1 to 500; default 50)', parseLimit('--limit', 500))
    .option('--cursor <cursor>', 'the next page: the cursor the previous page printed', nonEmpty('--cursor'))
    .option('--json', 'print { orders, nextCursor } as JSON')
    .addHelpText('after', '\nWhen there are more orders, the command prints the --cursor of the next page.')
    .action((options: OrdersOptions) =>
      runOrderCommand('orders', options, async ({ api }) => {
        const page = await api.list({
          ...(options.status ? { status: options.status } : {}),
          ...(options.environment ? { environment: options.environment } : {}),
          ...(options.requester ? { requester: options.requester } : {}),
          ...(options.limit !== undefined ? { limit: options.limit } : {}),
          ...(options.cursor ? { cursor: options.cursor } : {}),
        });
        if (options.json) return printJson(page);
        process.stdout.write(page.orders.length === 0 ? 'No orders match.\n' : formatOrderList(page.orders));
        if (page.nextCursor) {
          process.stdout.write(
            `more: mve-orders orders ${nextPageArguments(options, page.nextCursor)}\nnext cursor: ${page.nextCursor}\n`,
          );
        }
      }),
    );
}

/** The same filters with the next page's cursor, so the printed command runs as it stands. */
function nextPageArguments(options: OrdersOptions, cursor: string): string {
  const args = [
    options.status && `--status ${options.status}`,
    options.environment && `--environment ${options.environment}`,
    options.requester && `--requester ${options.requester}`,
    options.limit !== undefined && `--limit ${options.limit}`,
    options.as && `--as ${options.as}`,
    `--cursor ${cursor}`,
  ];
  return args.filter(Boolean).join(' ');
}

function stateParser(states: readonly OrderState[]) {
  return (value: string): OrderState => {
    const state = value.trim().toUpperCase();
    if (!(states as readonly string[]).includes(state)) {
      throw new InvalidArgumentError(`--status must be one of ${states.join(', ')}`);
    }
    return state as OrderState;
  };
}

function parseEnvironment(value: string): 'staging' | 'production' {
  if (value !== 'staging' && value !== 'production')
    throw new InvalidArgumentError('--environment must be staging or production');
  return value;
}
