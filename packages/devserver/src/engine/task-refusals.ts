/**
 * The refusals of a workflow task completion, worded as the real server words them: "<Cause>: <what is wrong>",
 * the cause spelled as its Go enum prints it (BadScheduleActivityAttributes). The worker is answered
 * INVALID_ARGUMENT with that message, and the WorkflowTaskFailed event carries it as a server failure.
 */
import { WorkflowTaskRefusal } from '../errors.js';
import { WorkflowTaskFailedCause } from '../proto.js';

/** "BadScheduleActivityAttributes" for WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES. */
export function causeName(cause: number): string {
  const name = WorkflowTaskFailedCause[cause] ?? String(cause);
  return name
    .replace('WORKFLOW_TASK_FAILED_CAUSE_', '')
    .toLowerCase()
    .replace(/(^|_)([a-z])/g, (_m, _sep: string, c: string) => c.toUpperCase());
}

const message = (cause: number, detail?: string) => (detail ? `${causeName(cause)}: ${detail}` : causeName(cause));

/** A command breaks a rule: the task fails with `cause` and is retried. */
export const failTask = (cause: number, detail?: string) =>
  new WorkflowTaskRefusal(cause, message(cause, detail), false);

/** A command carries more than the size limits allow: the task fails with `cause` and the run is terminated. */
export const terminateRun = (cause: number, detail: string) =>
  new WorkflowTaskRefusal(cause, message(cause, detail), true);
