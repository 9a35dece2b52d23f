/**
 * The checks the real server's frontend makes on schedule requests, with its messages: the spec ("Invalid
 * schedule spec: …", which the SDK turns into a TypeError), the workflow the action starts (type, task queue,
 * timeouts, no cron, no id reuse policy, search attributes and sizes), notes, and the schedule kept as plain
 * data with its spec canonical.
 */
import { invalidArgument } from '../errors.js';
import type { EngineContext } from '../engine/context.js';
import { checkStartSizes } from '../engine/limits.js';
import { durationToMs, IdReusePolicy, toNumber } from '../proto.js';
import type { NamespaceRecord } from '../store.js';
import { validateSearchAttributes } from '../visibility/search-attributes.js';
import { plainSchedule } from './record.js';
import type { Schedule, ScheduleControls } from './scheduler.js';
import { canonicalizeSpec } from './spec.js';
import type { NewWorkflow } from './workflows.js';

const MAX_ID_LENGTH = 1000;
/** What a workflow id gets appended; the id must stay within the limit with it. */
const APPENDED_TIME_EXAMPLE = '-2009-11-10T23:00:00Z';
const MAX_NOTES_LENGTH = 1000;

/** The schedule a create or update request gives, checked: its spec canonical, its state part as controls. */
export function checkedSchedule(
  ctx: EngineContext,
  namespace: NamespaceRecord,
  schedule: Schedule | null | undefined,
): { schedule: Schedule; controls: ScheduleControls } {
  const given = schedule ?? {};
  let spec;
  try {
    spec = canonicalizeSpec(given.spec ?? {});
  } catch (error) {
    throw invalidArgument(`Invalid schedule spec: ${(error as Error).message}`);
  }
  const workflow = given.action?.startWorkflow;
  if (workflow) checkStartWorkflow(ctx, namespace, workflow);
  const state = given.state;
  return {
    schedule: plainSchedule({ spec, action: given.action, policies: given.policies }),
    controls: {
      notes: state?.notes ?? '',
      paused: state?.paused ?? false,
      limitedActions: state?.limitedActions ?? false,
      remainingActions: toNumber(state?.remainingActions),
    },
  };
}

function checkStartWorkflow(ctx: EngineContext, namespace: NamespaceRecord, workflow: NewWorkflow): void {
  const idLength = (workflow.workflowId ?? '').length + APPENDED_TIME_EXAMPLE.length;
  if (idLength > MAX_ID_LENGTH)
    throw invalidArgument(`WorkflowId exceeds maximum allowed length (${idLength}/${MAX_ID_LENGTH})`);
  if (!workflow.workflowType?.name) throw invalidArgument('WorkflowType is not set on request.');
  if (!workflow.taskQueue?.name) throw invalidArgument('taskQueue is not set');
  const timeouts = [
    ['workflowExecutionTimeout', 'WorkflowExecutionTimeoutSeconds'],
    ['workflowRunTimeout', 'WorkflowRunTimeoutSeconds'],
    ['workflowTaskTimeout', 'WorkflowTaskTimeoutSeconds'],
  ] as const;
  for (const [field, name] of timeouts)
    if (durationToMs(workflow[field]) < 0)
      throw invalidArgument(`An invalid ${name} is set on request. cause: ${field} must not be negative`);
  if (workflow.cronSchedule) throw invalidArgument('Scheduled workflow must not contain CronSchedule');
  const reuse = workflow.workflowIdReusePolicy ?? 0;
  if (reuse && reuse !== IdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
    throw invalidArgument('Scheduled workflow must not contain WorkflowIDReusePolicy');
  validateSearchAttributes(workflow.searchAttributes, namespace.searchAttributes, namespace.name);
  checkStartSizes(ctx.options.limits, workflow, ctx.log);
}

/** PatchSchedule's pause and unpause notes. */
export function checkNotes(patch: { pause?: string | null; unpause?: string | null }): void {
  if ((patch.pause ?? '').length > MAX_NOTES_LENGTH || (patch.unpause ?? '').length > MAX_NOTES_LENGTH)
    throw invalidArgument('Schedule notes exceeds limit.');
}
