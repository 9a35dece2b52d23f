import { ApplicationFailure } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { LogLine } from '../infra/log.js';
import { fieldsOfActivity } from './logging.js';

/** The one workflow type whose runs this worker's activities serve. */
const ORDER_WORKFLOW_TYPE = 'orderWorkflow';

/**
 * Defence in depth, not the guard (that is activities/order/run-guard.ts, which checks what it can verify): an
 * activity scheduled by a workflow that is not an order run — a workflow of someone's own, on any task queue, that
 * reached this worker's — is refused before it runs, and logged, so ops see someone trying the door.
 */
export function refuseForeignWorkflows(log: LogLine | undefined): ActivityInterceptorsFactory {
  return ({ info }) => ({
    inbound: {
      async execute(input, next) {
        if (info.workflowType === ORDER_WORKFLOW_TYPE) return next(input);
        const from = info.workflowExecution
          ? `workflow ${info.workflowExecution.workflowId} (run ${info.workflowExecution.runId}, type ${info.workflowType ?? 'unknown'})`
          : 'no workflow';
        log?.(`refused ${info.activityType} scheduled by ${from}: not an order run`, fieldsOfActivity(info));
        throw ApplicationFailure.nonRetryable(
          `${info.activityType} serves order runs only; it was scheduled by ${from}`,
          'ACTIVITY_REFUSED',
        );
      },
    },
  });
}
