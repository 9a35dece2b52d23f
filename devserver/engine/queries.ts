/**
 * Queries, as legacy query tasks: the query goes to a worker on the workflow's task queue with the full
 * history (no sticky queues), and the worker's answer comes back through RespondQueryTaskCompleted.
 */
import { randomUUID } from 'node:crypto';
import { status } from '@grpc/grpc-js';
import { invalidArgument, notFound, RpcError } from '../errors.js';
import type { Execution } from '../execution.js';
import { api, TaskQueueKind } from '../proto.js';
import type proto from '@temporalio/proto';
import type { EngineContext } from './context.js';
import { decodeToken, encodeToken } from './tokens.js';

type WorkflowQuery = proto.temporal.api.query.v1.IWorkflowQuery;
type RespondQueryRequest = proto.temporal.api.workflowservice.v1.IRespondQueryTaskCompletedRequest;

export function query(ctx: EngineContext, execution: Execution, workflowQuery: WorkflowQuery): Promise<unknown> {
  if (!workflowQuery?.queryType) throw invalidArgument('query.queryType is required');
  return new Promise((resolve, reject) => {
    const queryId = randomUUID();
    const timeout = setTimeout(() => {
      ctx.queries.delete(queryId);
      reject(new RpcError(status.DEADLINE_EXCEEDED, `query ${workflowQuery.queryType} timed out: no worker answered on task queue ${execution.taskQueue}`));
    }, ctx.options.queryTimeoutMs);
    ctx.queries.set(queryId, { resolve, reject, timeout });
    ctx.matching.offer('workflow', execution.namespace, execution.taskQueue, () => {
      if (!ctx.queries.has(queryId)) return null;
      return {
        taskToken: encodeToken({ kind: 'query', queryId }),
        workflowExecution: { workflowId: execution.workflowId, runId: execution.runId },
        workflowType: { name: execution.workflowType },
        previousStartedEventId: execution.lastCompletedStartedEventId,
        startedEventId: 0,
        attempt: 1,
        history: { events: execution.history.slice() },
        nextPageToken: Buffer.alloc(0),
        query: workflowQuery,
        workflowExecutionTaskQueue: { name: execution.taskQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
        queries: {},
        messages: [],
      };
    });
  });
}

export function respondQuery(ctx: EngineContext, request: RespondQueryRequest): void {
  const token = decodeToken(request.taskToken);
  const pending = token.kind === 'query' ? ctx.queries.get(token.queryId) : undefined;
  if (token.kind !== 'query' || !pending) throw notFound('Query task not found (it timed out).');
  ctx.queries.delete(token.queryId);
  clearTimeout(pending.timeout);
  if (request.completedType === api.enums.v1.QueryResultType.QUERY_RESULT_TYPE_ANSWERED) {
    pending.resolve({ queryResult: request.queryResult });
  } else {
    // the TS client reads INVALID_ARGUMENT on a query as "query failed / not registered", with this message
    pending.reject(invalidArgument(request.errorMessage || request.failure?.message || 'query failed'));
  }
}
