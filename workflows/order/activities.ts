/**
 * How the order calls its activities. Reads and records are local activities: they run inside the workflow task
 * that needs them and cost one marker event each, not three events and a workflow task. The buy, the ticket
 * system's callbacks and the approvers' webhook are ordinary activities: the buy must never run twice (a local
 * activity is re-run when its workflow task is retried), and callbacks may take an hour.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { OrderActivities } from '../../activities/order/types.js';

/** The policy, the approvers and the journal: retried until the database answers, so nothing is lost while it is down. */
export const records = proxyLocalActivities<Pick<OrderActivities, 'loadApprovalPolicy' | 'loadApprovers' | 'recordJournal'>>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Lookups and validation: idempotent reads, retried with backoff (the activity marks what is final). */
export const reads = proxyLocalActivities<Pick<OrderActivities, 'lookUpOrderTargets' | 'validateOrder'>>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 8 },
});

/**
 * The buy is charged and not idempotent: Temporal never retries it. The activity reports every answer as an
 * outcome; an activity that does not report (worker lost, timeout, no heartbeat) is an uncertain buy.
 */
export const buying = proxyActivities<Pick<OrderActivities, 'buyOrder'>>({
  startToCloseTimeout: '3 minutes',
  // The activity heartbeats every 5 s while its request is out: a worker lost mid-buy is noticed in 20 s.
  heartbeatTimeout: '20 seconds',
  retry: { maximumAttempts: 1 },
});

/** Ticket-system callbacks: retried for an hour, then given up (the journal says so). */
export const callbacks = proxyActivities<Pick<OrderActivities, 'notifyTicketSystem'>>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '30 minutes' },
});

/** Messages to the approvers' webhook: a few tries within minutes, then given up (the journal says so). */
export const approverMessages = proxyActivities<Pick<OrderActivities, 'notifyApprovers'>>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});
