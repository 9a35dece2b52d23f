/** Public face of activities/order: the order workflow's activities, built once per worker from its dependencies. */
import { createAdmissionActivity, type AdmissionActivityDeps } from './admission-activity.js';
import { createApiActivities, type ApiActivityDeps } from './api/index.js';
import { createApproverNotifyActivity, type ApproverNotifyDeps } from './approver-notify.js';
import { createBudgetActivity } from './budget-activity.js';
import { createJournalWriter } from './journal/index.js';
import { createNotifyActivity, type NotifyDeps } from './notify.js';
import { createPolicyActivity, type PolicyActivityDeps } from './policy-activity.js';
import { RecentOrderRequests, type OrderRequestReader } from './order-requests.js';
import { createRecordActivities, type RecordActivityDeps } from './record-activities.js';
import { AdmittedRuns, guardActivities } from './run-guard.js';
import type { OrderActivities } from '../../workflows/order/activity-types.js';

export type OrderActivityDeps = Omit<ApiActivityDeps, 'writeJournal' | 'orderRequests'> & {
  /** Reads an order run's request from its start input (the buy's input does not carry it). */
  orderRequests: OrderRequestReader;
} & RecordActivityDeps &
  Omit<PolicyActivityDeps, 'approverWebhook'> &
  Pick<AdmissionActivityDeps, 'actionKeys' | 'provisioning'> &
  Omit<NotifyDeps, 'now'> &
  Partial<Pick<ApproverNotifyDeps, 'approverWebhookUrl' | 'consoleUrl'>>;

/** The order's activities, each behind the guard that checks who scheduled it and for which run (run-guard.ts). */
export function createActivities(options: OrderActivityDeps): OrderActivities {
  const admittedRuns = new AdmittedRuns(options.repository);
  return guardActivities(unguardedActivities(options, admittedRuns), {
    admittedRuns,
    repository: options.repository,
    runs: options.orderRequests,
  });
}

function unguardedActivities(options: OrderActivityDeps, admittedRuns: AdmittedRuns): OrderActivities {
  const deps = { ...options, admittedRuns, orderRequests: new RecentOrderRequests(options.orderRequests) };
  const api = createApiActivities({ ...deps, writeJournal: createJournalWriter(deps) });
  return {
    ...api,
    ...createRecordActivities(deps),
    ...createBudgetActivity(deps),
    ...createAdmissionActivity({
      ...deps,
      ...createPolicyActivity({ ...deps, approverWebhook: Boolean(deps.approverWebhookUrl) }),
    }),
    ...createNotifyActivity({ ...deps, now: deps.now }),
    ...createApproverNotifyActivity({
      ...deps,
      now: deps.now,
      approverWebhookUrl: deps.approverWebhookUrl,
      consoleUrl: deps.consoleUrl,
    }),
  };
}

export { policyHash } from './policy-activity.js';
export { ACTIVITY_REFUSED } from './run-guard.js';
export {
  OrderRequestUnavailable,
  temporalOrderRequests,
  type OrderRequestReader,
  type RunReference,
  type RunReset,
  type RunStart,
} from './order-requests.js';
export {
  CALLBACK_ALLOW_HTTP_VARIABLE,
  CALLBACK_ALLOWED_NETWORKS_VARIABLE,
  callbackPolicyFromEnv,
  type CallbackPolicy,
} from './callback-policy.js';
export { signNotification, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './notify.js';
export {
  APPROVER_WEBHOOK_URL_VARIABLE,
  approverSlackMessage,
  CONSOLE_URL_VARIABLE,
  orderPageUrl,
  type SlackMessage,
} from './approver-notify.js';
export type * from '../../workflows/order/activity-types.js';
