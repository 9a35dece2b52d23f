import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { orderIdOfWorkflow } from '../domain/index.js';
import type { LogLine } from '../infra/log.js';
import { fieldsOfActivity } from './logging.js';

/**
 * An activity's benign failure is an order refused for the requester's mistake (an unknown location, image or
 * size, or an order the API's validation refuses: activities/order/failures.ts), which the SDK logs at DEBUG only. This logs each as one line naming the
 * order and the reason. Every other failure keeps the SDK's warning, with its stack trace: that one may be a bug.
 */
export function logRefusals(log: LogLine): ActivityInterceptorsFactory {
  return ({ info }) => ({
    inbound: {
      async execute(input, next) {
        try {
          return await next(input);
        } catch (error) {
          if (error instanceof ApplicationFailure && error.category === ApplicationFailureCategory.BENIGN) {
            const workflowId = info.workflowExecution?.workflowId;
            const order = workflowId ? `order ${orderIdOfWorkflow(workflowId)}` : `activity ${info.activityId}`;
            log(`${order} refused by ${info.activityType}: ${error.message}`, fieldsOfActivity(info));
          }
          throw error;
        }
      },
    },
  });
}
