import { InvalidArgumentError, type Command } from 'commander';
import { ORDER_STATES, type OrderState } from '../../../domain/lifecycle/index.js';
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

export function registerOrdersCommand(program: Command): void {
  orderCommand(program.command('orders'))
    .description(
      'List orders, newest first, a page at a time (the ones you may see: ops and approvers all, a requester their own)',
    )
    .option('--status <state>', `only orders in this state (${ORDER_STATES.join(', ')})`, parseState)
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

function parseState(value: string): OrderState {
  const state = value.trim().toUpperCase();
  if (!(ORDER_STATES as readonly string[]).includes(state)) {
    throw new InvalidArgumentError(`--status must be one of ${ORDER_STATES.join(', ')}`);
  }
  return state as OrderState;
}

function parseEnvironment(value: string): 'staging' | 'production' {
  if (value !== 'staging' && value !== 'production')
    throw new InvalidArgumentError('--environment must be staging or production');
  return value;
}
