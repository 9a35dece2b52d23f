/**
 * How the order calls its activities. Reads are local activities: they run inside the workflow task that needs
 * them and cost one marker event each, not three events and a workflow task. So is the buy, which carries its
 * journal (see `buying`). Each API call is its own activity (the location, the image, the validation, the buy), so
 * the history shows which ran, failed and was retried; each fetches or refreshes the API token itself, in the
 * worker, so the token never enters history. The journal written alone, callbacks and the approvers' webhook are ordinary
 * activities: they must not hold a workflow task open while a database or a ticket system is slow for long — a
 * workflow task held open is one that times out under load.
 */
import { proxyActivities, proxyLocalActivities } from '@temporalio/workflow';
import type { OrderActivities } from './activity-types.js';
import { retryingAbandoned } from './abandoned-reads.js';

/**
 * Each run's admission with the policy (held by the worker), and the approvers: quick reads, retried until the
 * database answers.
 */
export const records = retryingAbandoned(
  proxyLocalActivities<Pick<OrderActivities, 'beginRun' | 'loadApprovers'>>({
    startToCloseTimeout: '15 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
  }),
);

/**
 * The journal, one batch per checkpoint, and the close of a lost buy that never sent its request: retried until
 * the database answers, so nothing is lost while it is down. Each is a few small idempotent writes, so a short
 * timeout lets a worker that died mid-write be noticed quickly.
 */
export const journaling = proxyActivities<Pick<OrderActivities, 'recordJournal' | 'closeUnsentBuy'>>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * The team's budget: the preview before a round opens, and the check with the commitment of an approval (one
 * transaction under the team's lock). Records activities, not local: they wait on other orders' commitments of the
 * same team, which must not hold a workflow task open. Retried until the database answers.
 */
export const budgets = proxyActivities<Pick<OrderActivities, 'previewBudget' | 'commitBudget'>>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Lookups and validation: idempotent API reads, retried with backoff (the activity marks what is final). */
export const reads = retryingAbandoned(
  proxyLocalActivities<Pick<OrderActivities, 'lookUpLocation' | 'lookUpImage' | 'validateOrder'>>({
    startToCloseTimeout: '2 minutes',
    retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 8 },
  }),
);

/**
 * The product read of the provisioning follow-up: a few quick tries, then the follow-up notes the failure and reads
 * again at its next poll (a durable timer), so an API that is down for an hour costs no retry storm.
 */
export const productReads = retryingAbandoned(
  proxyLocalActivities<Pick<OrderActivities, 'readProduct'>>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
  }),
);

/**
 * The check of the product ops name to settle an uncertain buy (`checkResolvedProduct`). Their request waits for it
 * (POST …/resolve-buy), so it gets a few quick tries within seconds, well inside the API's time for a request; past
 * them the resolution is refused as not checked, and ops try again later.
 */
export const resolutionChecks = retryingAbandoned(
  proxyLocalActivities<Pick<OrderActivities, 'checkResolvedProduct'>>({
    startToCloseTimeout: '2 seconds',
    scheduleToCloseTimeout: '5 seconds',
    retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumAttempts: 3 },
  }),
);

/**
 * The buy is charged and not idempotent: Temporal never retries it. The activity reports every answer as an
 * outcome; an activity that does not report (worker lost, timeout, no heartbeat) is an uncertain buy.
 *
 * It runs in the workflow task that decided it, as a local activity: no activity task and no second workflow task
 * through the server. A local activity runs again when its workflow task is retried (its worker was lost), and that
 * cannot send twice: the buy claims its attempt in Postgres right before sending, a claim succeeds once, and a run
 * that finds its attempt claimed answers uncertain (`ranBefore`).
 */
export const buying = proxyLocalActivities<Pick<OrderActivities, 'buyOrder'>>({
  startToCloseTimeout: '3 minutes',
  retry: { maximumAttempts: 1 },
});

/**
 * Ticket-system callbacks: retried for an hour, then given up (the journal says so). Each is built from the records,
 * which the order writes when it next waits: until they show the change, the activity fails (retryable) and sends
 * nothing, so retries stay at most a minute apart and a notification leaves soon after its journal.
 */
export const callbacks = proxyActivities<Pick<OrderActivities, 'notifyTicketSystem'>>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '1 hour',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Messages to the approvers' webhook: a few tries within minutes, then given up (the journal says so). */
export const approverMessages = proxyActivities<Pick<OrderActivities, 'notifyApprovers'>>({
  startToCloseTimeout: '30 seconds',
  scheduleToCloseTimeout: '10 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 5 },
});
