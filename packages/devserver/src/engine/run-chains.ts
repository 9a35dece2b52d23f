/**
 * Requests that name the chain of runs they mean by its first run (`firstExecutionRunId`: the SDK's handle sends the
 * run its start created), found as the real server finds them: the run must belong to that chain — continued as new
 * or retried from it — or the answer is NOT_FOUND, so a handle never reaches a later workflow that reuses the id.
 * Terminate and cancel then act on the workflow's current run, whatever run id they name; an update on the run named.
 */
import { notFound } from '../errors.js';
import type { Execution } from '../execution.js';
import type { EngineContext } from './context.js';
import { findRun } from './executions.js';

type Ref = { workflowId?: string | null; runId?: string | null } | null | undefined;

export function findRunOfChain(
  ctx: EngineContext,
  namespace: string | null | undefined,
  ref: Ref,
  firstExecutionRunId: string | null | undefined,
  which: 'current run' | 'run named',
): Execution {
  if (!firstExecutionRunId) return findRun(ctx, namespace, ref);
  const execution = findRun(ctx, namespace, which === 'current run' ? { workflowId: ref?.workflowId } : ref);
  if (execution.firstRunId !== firstExecutionRunId)
    throw notFound(
      `Workflow execution not found. WorkflowId: ${execution.workflowId}: its run ${execution.runId} does not continue the chain that began with run ${firstExecutionRunId}.`,
    );
  return execution;
}
