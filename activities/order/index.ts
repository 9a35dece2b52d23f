/** Public face of activities/order: the order workflow's activities, built once per worker from its dependencies. */
import { createApiActivities, type ApiActivityDeps } from './api-activities.js';
import { createNotifyActivity, type NotifyDeps } from './notify.js';
import { createPolicyActivity, type PolicyActivityDeps } from './policy-activity.js';
import { createRecordActivities, type RecordActivityDeps } from './record-activities.js';
import type { OrderActivities } from './types.js';

export type OrderActivityDeps = ApiActivityDeps & RecordActivityDeps & PolicyActivityDeps & Omit<NotifyDeps, 'now'>;

export function createActivities(deps: OrderActivityDeps): OrderActivities {
  return {
    ...createApiActivities(deps),
    ...createRecordActivities(deps),
    ...createPolicyActivity(deps),
    ...createNotifyActivity({ ...deps, now: deps.now }),
  };
}

export { policyHash } from './policy-activity.js';
export {
  CALLBACK_ALLOW_HTTP_VARIABLE,
  CALLBACK_ALLOWED_NETWORKS_VARIABLE,
  callbackPolicyFromEnv,
  type CallbackPolicy,
} from './callback-policy.js';
export { signNotification, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './notify.js';
export type * from './types.js';
