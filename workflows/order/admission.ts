import { ApplicationFailure, workflowInfo } from '@temporalio/workflow';
import type { BeginRunAnswer } from './activity-types.js';
import { records } from './activities.js';
import type { OrderRun } from './run.js';

export type Admission = Extract<BeginRunAnswer, { admitted: true }>;

/**
 * The run's first step, before it looks anything up or records anything: the workers admit it only for a ticket the
 * API registered and this chain of runs claimed, with carried state only from the run it continued from (see
 * admission-activity.ts). The run ids are the server's (`workflowInfo`), not the starter's. A refused run fails at
 * once, having changed nothing: not the order, not its records, not its search attributes.
 */
export async function admit(run: OrderRun): Promise<Admission> {
  const info = workflowInfo();
  const { input } = run.recorder;
  const answer = await records.beginRun({
    request: input.request,
    ...(input.submittedBy !== undefined ? { submittedBy: input.submittedBy } : {}),
    firstRunId: info.firstExecutionRunId,
    ...(info.continuedFromExecutionRunId ? { continuedFromRunId: info.continuedFromExecutionRunId } : {}),
    ...(input.carried ? { carried: { progress: input.carried, seal: input.seal } } : {}),
  });
  if (!answer.admitted) throw runRefused(answer.reason);
  return answer;
}

/**
 * A run whose input the workers could not read (the codec refused it as data: not encrypted, or altered) is refused
 * before its first step: it claims no ticket, looks nothing up, records nothing.
 */
export function refuseUnreadableRun(reason: string): never {
  throw runRefused(`its input could not be read (${reason})`);
}

function runRefused(reason: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`the workers refused this run: ${reason}`, 'RUN_REFUSED');
}
