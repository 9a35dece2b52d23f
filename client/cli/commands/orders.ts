import { InvalidArgumentError, type Command } from 'commander';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { ENVIRONMENT, MONTHLY_RATE, ORDER_STATUS, TICKET_ID } from '../../../workflows/order/search-attributes.js';
import { ORDER_STATES, type OrderState } from '../../../workflows/order/states.js';
import { formatTable } from './catalog-table.js';
import { printJson, runOrderCommand, usageErrorsExit2, type OutputOptions } from './order-session.js';

interface OrdersOptions extends OutputOptions {
  status?: OrderState;
  environment?: 'staging' | 'production';
  query?: string;
}

export interface OrderListing {
  ticketId: string | null;
  workflowId: string;
  status: string | null;
  environment: string | null;
  monthlyRate: number | null;
  workflowStatus: string;
  startTime: string;
  closeTime: string | null;
}

export function registerOrdersCommand(program: Command): void {
  usageErrorsExit2(program.command('orders'))
    .description('List orders (newest first) through the visibility search attributes')
    .option('--status <state>', `only orders in this state (${ORDER_STATES.join(', ')})`, parseState)
    .option('--environment <env>', 'only orders of this environment (staging or production)', parseEnvironment)
    .option('--query <query>', "any further visibility query, e.g. \"MonthlyRate > 2000\" or \"TicketId = 'CHG-1009'\"")
    .option('--json', 'print the orders as a JSON array')
    .addHelpText(
      'after',
      '\nSearch attributes: OrderStatus, TicketId, Environment (keywords), MonthlyRate (number), plus StartTime, CloseTime.\nExit codes: 0 listed (even none); 2 a malformed query or no engine.',
    )
    .action((options: OrdersOptions) =>
      runOrderCommand('orders', options, async ({ orders }) => {
        const filters = [
          options.status && `OrderStatus = '${options.status}'`,
          options.environment && `Environment = '${options.environment}'`,
          options.query && `(${options.query})`,
        ].filter(Boolean);
        const found = (await orders.list(filters.length > 0 ? filters.join(' AND ') : undefined)).map(listing);
        found.sort((a, b) => b.startTime.localeCompare(a.startTime));
        if (options.json) return printJson(found);
        if (found.length === 0) return void process.stdout.write('No orders match.\n');
        const rows = found.map((order) => [
          order.ticketId ?? order.workflowId,
          order.status ?? '-',
          order.environment ?? '-',
          order.monthlyRate === null ? '-' : order.monthlyRate.toFixed(2),
          order.startTime,
          order.closeTime ?? (order.workflowStatus === 'RUNNING' ? 'open' : order.workflowStatus),
        ]);
        process.stdout.write(formatTable(['TICKET', 'STATUS', 'ENV', 'MONTHLY RATE', 'STARTED', 'CLOSED'], rows));
      }),
    );
}

function listing(execution: WorkflowExecutionInfo): OrderListing {
  const attributes = execution.typedSearchAttributes;
  return {
    ticketId: attributes.get(TICKET_ID) ?? null,
    workflowId: execution.workflowId,
    status: attributes.get(ORDER_STATUS) ?? null,
    environment: attributes.get(ENVIRONMENT) ?? null,
    monthlyRate: attributes.get(MONTHLY_RATE) ?? null,
    workflowStatus: execution.status.name,
    startTime: execution.startTime.toISOString(),
    closeTime: execution.closeTime?.toISOString() ?? null,
  };
}

function parseState(value: string): OrderState {
  const state = value.trim().toUpperCase();
  if (!(ORDER_STATES as readonly string[]).includes(state)) {
    throw new InvalidArgumentError(`--status must be one of ${ORDER_STATES.join(', ')}`);
  }
  return state as OrderState;
}

function parseEnvironment(value: string): 'staging' | 'production' {
  if (value !== 'staging' && value !== 'production') throw new InvalidArgumentError('--environment must be staging or production');
  return value;
}
