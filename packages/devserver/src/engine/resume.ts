/**
 * Bringing back the runs a durable store loaded: every deadline goes back on the clock at its absolute time
 * (so what fell due while the server was down fires at once, the rest when due) and pending work goes back
 * to matching, as on the real server after a restart:
 *
 * - a workflow task that was scheduled is offered again; one a worker had started keeps its deadline, and
 *   without a completion times out and is retried (a transient attempt);
 * - a scheduled activity is offered again; a running one keeps its start-to-close and heartbeat deadlines,
 *   so (its worker gone) it times out and is retried by its retry policy; one in retry backoff waits it out;
 * - timers fire at their time; a retried run still in its backoff gets its first workflow task when it ends;
 * - closed runs are kept until their retention, counted from their close.
 */
import { EventType } from '../proto.js';
import { isRunning } from './context.js';
import type { EngineContext } from './context.js';
import { resumeActivity } from './activities.js';
import { armTimer } from './commands.js';
import { armFirstTaskTimer, armRunTimeout } from './executions.js';
import { resumeWorkflowTask } from './workflow-tasks.js';

export function resumeStoredRuns(ctx: EngineContext): { open: number; closed: number } {
  let open = 0;
  let closed = 0;
  for (const execution of [...ctx.store.allRuns()]) {
    for (const event of execution.history) ctx.observeTaskId(event.taskId);
    if (!isRunning(execution)) {
      closed++;
      ctx.retain(execution, true);
      continue;
    }
    open++;
    armRunTimeout(ctx, execution);
    for (const timer of execution.timers.values()) armTimer(ctx, execution, timer);
    for (const activity of execution.activities.values()) resumeActivity(ctx, execution, activity);
    if (execution.workflowTask) resumeWorkflowTask(ctx, execution);
    else if (!execution.history.some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED))
      // a retried run whose first workflow task waits for the retry backoff
      armFirstTaskTimer(ctx, execution);
  }
  return { open, closed };
}
