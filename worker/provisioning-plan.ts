import { z } from 'zod';
import { parseEnv } from '../config/env.js';
import { durationSchema } from '../domain/lifecycle/index.js';
import type { ProvisioningPlan } from '../domain/lifecycle/index.js';

export const FOLLOW_PROVISIONING_VARIABLE = 'MVE_FOLLOW_PROVISIONING';

const schema = z
  .object({
    [FOLLOW_PROVISIONING_VARIABLE]: z.enum(['true', 'false'], { error: 'must be true or false' }).default('true'),
    MVE_PROVISIONING_DEADLINE: durationSchema().default(2 * 3_600_000),
    MVE_PROVISIONING_REMINDER: durationSchema().default(30 * 60_000),
    MVE_PROVISIONING_POLL: durationSchema().default(15_000),
    MVE_PROVISIONING_POLL_MAX: durationSchema().default(5 * 60_000),
  })
  .superRefine((vars, context) => {
    if (vars.MVE_PROVISIONING_POLL > vars.MVE_PROVISIONING_POLL_MAX) {
      context.addIssue({
        code: 'custom',
        path: ['MVE_PROVISIONING_POLL'],
        message: 'must not be longer than MVE_PROVISIONING_POLL_MAX',
      });
    }
    if (vars.MVE_PROVISIONING_POLL_MAX > vars.MVE_PROVISIONING_DEADLINE) {
      context.addIssue({
        code: 'custom',
        path: ['MVE_PROVISIONING_POLL_MAX'],
        message: 'must not be longer than MVE_PROVISIONING_DEADLINE',
      });
    }
  });

/**
 * How this worker follows bought products until they are live (undefined: it does not, and orders end at BOUGHT).
 * Each new order is given the plan of the worker that begins it, and keeps it to its end.
 */
export function provisioningPlanFromEnv(env: NodeJS.ProcessEnv): ProvisioningPlan | undefined {
  const vars = parseEnv(schema, env);
  if (vars[FOLLOW_PROVISIONING_VARIABLE] === 'false') return undefined;
  return {
    firstPollMs: vars.MVE_PROVISIONING_POLL,
    maxPollMs: vars.MVE_PROVISIONING_POLL_MAX,
    reminderMs: vars.MVE_PROVISIONING_REMINDER,
    deadlineMs: vars.MVE_PROVISIONING_DEADLINE,
  };
}
