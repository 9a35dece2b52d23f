import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { orderIdOfWorkflow, type Commitments } from '../../orders/index.js';
import type { ApiContext } from '../context.js';
import { csvCell, csvText } from '../csv.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { ApiError } from '../errors.js';
import { commitmentsQuery, commitmentsResponse, orderRefusals } from '../schemas.js';

/** Orders behind the figures per JSON page, by default and at most; a CSV carries up to MAX_CSV_ROWS at once. */
const DEFAULT_PAGE = 50;
const MAX_JSON_PAGE = 500;
export const MAX_CSV_ROWS = 10_000;

/** The CSV's columns, one row per order behind the figures (docs/http-api.md, "Commitments"). */
export const COMMITMENTS_CSV_COLUMNS = [
  'environment',
  'month',
  'team',
  'team_name',
  'currency',
  'order_id',
  'ticket_id',
  'state',
  'monthly_rate',
  'run_rate',
  'approved_this_month',
  'term_months',
  'term_total',
  'bought_at',
  'term_ends_at',
  'approved_at',
] as const;

/** `GET /api/v1/commitments`: what the teams committed to, as JSON or as CSV. */
export function registerCommitmentRoutes(app: FastifyInstance, { service }: ApiContext): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/api/v1/commitments',
    {
      schema: {
        summary: 'What the teams committed to in a month: run-rate and approvals per team and currency, against budget',
        description:
          "Per team and currency of the environment: the run-rate (the monthly prices of bought orders whose term runs at `asOf`), the monthly prices approved in the month (in the policy's `budgetTimeZone`), the policy's budgets and what remains of them; with the orders behind them, newest first (cursor paging), and the renewals: the terms ending within `renewalDays` (default 90) days of `asOf`, the soonest first. " +
          'Amounts are exact decimal strings, never converted between currencies. `format=csv` or `Accept: text/csv` gives the orders behind the figures as CSV, one row each (up to 10,000 at once; `X-Next-Cursor` names the next page), whose `run_rate` and `approved_this_month` columns add up, per team and currency, to the JSON figures. ' +
          "Approvers and ops read every team's; a requester reads their own team's (the approver directory's): naming another team is 403.",
        querystring: commitmentsQuery,
        response: {
          200: {
            content: {
              'application/json': { schema: commitmentsResponse },
              'text/csv': {
                schema: z
                  .string()
                  .describe(`CSV with a header row: ${COMMITMENTS_CSV_COLUMNS.join(', ')}; one row per order`),
              },
            },
          },
          ...orderRefusals,
        },
      },
    },
    async (request, reply) => {
      const { environment, month, team, currency, renewalDays, cursor, format, limit: asked } = request.query;
      const csv = format === 'csv' || (format === undefined && acceptsCsv(request));
      const limit = asked ?? (csv ? MAX_CSV_ROWS : DEFAULT_PAGE);
      if (!csv && limit > MAX_JSON_PAGE) {
        const rule = `must be at most ${MAX_JSON_PAGE} for JSON (a CSV takes up to ${MAX_CSV_ROWS})`;
        throw new ApiError(400, 'INVALID_INPUT', `the querystring is invalid: querystring.limit: ${rule}`, [
          { path: 'querystring.limit', message: rule },
        ]);
      }
      // One row more than the page: whether there is a next one. The cursor is read once the caller may read.
      const commitments = await service.commitments(
        request.principal!,
        { environment, month, team, currency, renewalDays },
        { limit: limit + 1, ...(cursor ? { after: () => decodeCursor(cursor) } : {}) },
      );
      const orders = commitments.orders.slice(0, limit);
      const last = orders.at(-1);
      const nextCursor = commitments.orders.length > limit && last ? encodeCursor(last) : null;
      if (!csv) {
        return {
          ...commitments,
          orders: orders.map(orderOf),
          nextCursor,
          renewals: commitments.renewals.map(renewalOf),
        };
      }
      if (nextCursor) void reply.header('x-next-cursor', nextCursor);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="commitments-${environment}-${commitments.month}.csv"`)
        .serializer((payload: unknown) => payload as string)
        .send(commitmentsCsv({ ...commitments, orders }));
    },
  );
}

/** Whether the caller asked for CSV by its Accept header. */
function acceptsCsv(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').toLowerCase().includes('text/csv');
}

/** An order behind the figures, as the JSON answer shows it. */
function orderOf(order: Commitments['orders'][number]) {
  return {
    orderId: orderIdOfWorkflow(order.workflowId),
    ticketId: order.ticketId,
    team: order.team,
    state: order.status,
    currency: order.currency,
    monthlyRate: order.monthlyRate,
    termMonths: order.termMonths,
    termTotal: order.termTotal,
    boughtAt: order.boughtAt,
    termEndsAt: order.termEndsAt,
    approvedAt: order.approvedAt,
    inRunRate: order.inRunRate,
    approvedThisMonth: order.approvedThisMonth,
  };
}

/** A term ending soon, as the JSON answer shows it. */
function renewalOf({ workflowId, ...renewal }: Commitments['renewals'][number]) {
  return { orderId: orderIdOfWorkflow(workflowId), ...renewal };
}

/** The orders behind the figures, one row each; a row's amounts are in the figures it counts in, else 0. */
function commitmentsCsv(commitments: Commitments): string {
  const names = new Map(commitments.teams.map((figures) => [figures.team, figures.name]));
  const rows = commitments.orders.map((order) => [
    csvCell(commitments.environment),
    csvCell(commitments.month),
    csvCell(order.team, 'text'),
    csvCell(names.get(order.team) ?? null, 'text'),
    csvCell(order.currency),
    csvCell(orderIdOfWorkflow(order.workflowId), 'text'),
    csvCell(order.ticketId, 'text'),
    csvCell(order.status),
    csvCell(order.monthlyRate),
    csvCell(order.inRunRate ? order.monthlyRate : '0'),
    csvCell(order.approvedThisMonth ? order.monthlyRate : '0'),
    csvCell(order.termMonths),
    csvCell(order.termTotal),
    csvCell(order.boughtAt),
    csvCell(order.termEndsAt),
    csvCell(order.approvedAt),
  ]);
  return csvText(COMMITMENTS_CSV_COLUMNS, rows);
}
