/**
 * Queries, dispatched as the real server does so that a query sees every signal accepted before it:
 *
 * - while the run has a workflow task scheduled or running (or has not completed one yet), the query is
 *   buffered: it rides on the next workflow task handed out (`queries`) and the worker answers it in that
 *   task's completion, after applying the task's events. A completion that leaves no workflow task behind
 *   sends the buffered queries it did not answer on the direct path (nothing is left for them to wait for);
 * - otherwise it goes to a worker as a query task of its own: to the run's sticky worker first (no history,
 *   it has the run cached), then, if that worker has not answered within its schedule-to-start timeout, with
 *   stickiness ended, to the normal queue with the full history.
 *
 * A run whose workflow task keeps failing (attempt 3 on) has its queries refused at once.
 */
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { invalidArgument, notFound, RpcError } from '../errors.js';
import type { Execution } from '../execution.js';
import { api, TaskQueueKind } from '../proto.js';
import type proto from '@temporalio/proto';
import { isRunning } from './context.js';
import type { EngineContext } from './context.js';
import { forgetSticky, liveStickyQueue } from './sticky.js';
import { decodeToken, encodeToken } from './tokens.js';

type WorkflowQuery = proto.temporal.api.query.v1.IWorkflowQuery;
type WorkflowQueryResult = proto.temporal.api.query.v1.IWorkflowQueryResult;
type RespondQueryRequest = proto.temporal.api.workflowservice.v1.IRespondQueryTaskCompletedRequest;

/** A query waiting for its answer. */
export interface PendingQuery {
  runId: string;
  query: WorkflowQuery;
  /** `buffered`: rides on the run's next workflow task; `direct`: a query task of its own. */
  route: 'buffered' | 'direct';
  /** Counts the query tasks offered: only the latest may be handed out. */
  offers: number;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timeout: NodeJS.Timeout;
  /** On the sticky route: when to stop waiting for the sticky worker. */
  stickyTimeout?: NodeJS.Timeout;
}

const FAILING_TASK_ATTEMPT = 3;

export function query(ctx: EngineContext, execution: Execution, workflowQuery: WorkflowQuery): Promise<unknown> {
  if (!workflowQuery?.queryType) throw invalidArgument('query.queryType is required');
  if ((execution.workflowTask?.attempt ?? 1) >= FAILING_TASK_ATTEMPT)
    throw new RpcError(status.FAILED_PRECONDITION, 'Unable to query workflow due to Workflow Task in failed state.');
  return new Promise((resolve, reject) => {
    const queryId = randomUUID();
    const timeout = setTimeout(() => {
      settle(ctx, queryId);
      reject(
        new RpcError(
          status.DEADLINE_EXCEEDED,
          `query ${workflowQuery.queryType} timed out: no worker answered on task queue ${execution.taskQueue}`,
        ),
      );
    }, ctx.options.queryTimeoutMs);
    ctx.queries.set(queryId, {
      runId: execution.runId,
      query: workflowQuery,
      route: 'buffered',
      offers: 0,
      resolve,
      reject,
      timeout,
    });
    if (!waitsForWorkflowTask(execution)) dispatchDirectly(ctx, execution, queryId);
  });
}

/** Whether the run has events its worker has not processed yet (or no state to query yet). */
function waitsForWorkflowTask(execution: Execution): boolean {
  return isRunning(execution) && (execution.workflowTask !== undefined || execution.lastCompletedStartedEventId === 0);
}

/** The buffered queries of a run, for the workflow task being handed out. */
export function bufferedQueries(ctx: EngineContext, execution: Execution): Record<string, WorkflowQuery> {
  const queries: Record<string, WorkflowQuery> = {};
  for (const [queryId, pending] of ctx.queries)
    if (pending.runId === execution.runId && pending.route === 'buffered') queries[queryId] = pending.query;
  return queries;
}

/** Takes a workflow task completion's query answers; with no workflow task to follow, the other buffered queries go direct. */
export function answerBufferedQueries(
  ctx: EngineContext,
  execution: Execution,
  results: Record<string, WorkflowQueryResult>,
): void {
  for (const [queryId, result] of Object.entries(results)) {
    if (ctx.queries.get(queryId)?.runId !== execution.runId) continue;
    const pending = settle(ctx, queryId)!;
    if (result.resultType === api.enums.v1.QueryResultType.QUERY_RESULT_TYPE_ANSWERED)
      pending.resolve({ queryResult: result.answer });
    else pending.reject(queryFailed(result.errorMessage || result.failure?.message));
  }
  if (waitsForWorkflowTask(execution)) return;
  for (const queryId of Object.keys(bufferedQueries(ctx, execution))) dispatchDirectly(ctx, execution, queryId);
}

function dispatchDirectly(ctx: EngineContext, execution: Execution, queryId: string): void {
  const pending = ctx.queries.get(queryId)!;
  const sticky = liveStickyQueue(ctx, execution);
  if (!sticky) return offerQueryTask(ctx, execution, pending, queryId, false);
  offerQueryTask(ctx, execution, pending, queryId, true);
  const offer = pending.offers;
  pending.stickyTimeout = setTimeout(() => {
    if (ctx.queries.get(queryId) !== pending || pending.offers !== offer) return;
    forgetSticky(execution);
    offerQueryTask(ctx, execution, pending, queryId, false);
  }, sticky.scheduleToStartMs);
}

function offerQueryTask(
  ctx: EngineContext,
  execution: Execution,
  pending: PendingQuery,
  queryId: string,
  sticky: boolean,
): void {
  pending.route = 'direct';
  const offer = ++pending.offers;
  const [kind, queue] = sticky
    ? (['sticky', execution.sticky!.name] as const)
    : (['workflow', execution.taskQueue] as const);
  ctx.matching.offer(kind, execution.namespace, queue, () => {
    if (ctx.queries.get(queryId) !== pending || pending.offers !== offer) return null;
    if (waitsForWorkflowTask(execution)) {
      // a workflow task came first: the query rides on it, and so sees what that task brings
      clearTimeout(pending.stickyTimeout);
      pending.route = 'buffered';
      return null;
    }
    return {
      taskToken: encodeToken({ kind: 'query', queryId }),
      workflowExecution: { workflowId: execution.workflowId, runId: execution.runId },
      workflowType: { name: execution.workflowType },
      previousStartedEventId: execution.lastCompletedStartedEventId,
      startedEventId: 0,
      attempt: 1,
      history: { events: sticky ? [] : execution.history.slice() },
      nextPageToken: Buffer.alloc(0),
      query: pending.query,
      workflowExecutionTaskQueue: { name: execution.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      queries: {},
      messages: [],
    };
  });
}

export function respondQuery(ctx: EngineContext, request: RespondQueryRequest): void {
  const token = decodeToken(request.taskToken);
  const pending = token.kind === 'query' ? settle(ctx, token.queryId) : undefined;
  if (!pending) throw notFound('Query task not found (it timed out).');
  if (request.completedType === api.enums.v1.QueryResultType.QUERY_RESULT_TYPE_ANSWERED)
    pending.resolve({ queryResult: request.queryResult });
  else pending.reject(queryFailed(request.errorMessage || request.failure?.message));
}

/** Removes a query and its timers; returns it, if it was still waiting. */
function settle(ctx: EngineContext, queryId: string): PendingQuery | undefined {
  const pending = ctx.queries.get(queryId);
  ctx.queries.delete(queryId);
  clearTimeout(pending?.timeout);
  clearTimeout(pending?.stickyTimeout);
  return pending;
}

/** The TS client reads INVALID_ARGUMENT on a query as "query failed / not registered", with this message. */
const queryFailed = (message: string | null | undefined) => invalidArgument(message || 'query failed');
