import type { ApproverMessage } from './activity-types.js';
import { tallyVotes } from '../../domain/approval/index.js';
import { approverMessages } from './activities.js';
import { summarise } from './failures.js';
import { Outbox } from './outbox.js';
import { roundFacts, type OrderProgress } from './progress.js';
import type { OrderIdentity, OrderWorkflowInput } from './types.js';

/**
 * Tells approvers, through the workers' webhook when they have one, that a round waits for them and reminds them.
 * A message the webhook does not take is given up after its retries (and `onUndelivered` says so).
 */
export class ApproverNotifier {
  private readonly outbox: Outbox<ApproverMessage>;

  constructor(
    private readonly input: OrderWorkflowInput,
    private readonly identity: OrderIdentity,
    onUndelivered: (message: string, details: Record<string, unknown>) => void,
  ) {
    this.outbox = new Outbox<ApproverMessage>(
      async ([message]) => {
        if (message) await approverMessages.notifyApprovers(message);
      },
      {
        maxBatch: 1,
        retryAfterMs: 0,
        onFailure: (error, [message]) => {
          const what = message?.event === 'approval-reminder' ? `reminder ${message.reminder}` : 'the approval request';
          const summary = summarise(error, 'the message could not be sent');
          onUndelivered(`the approvers' webhook did not take ${what}: ${summary.message}`, {
            event: message?.event,
            seq: message?.seq,
            type: summary.type,
          });
          return 'drop';
        },
      },
    );
  }

  /** Starts sending, when the workers have a webhook for approvers (known once the policy is read). */
  listen(progress: OrderProgress): void {
    if (progress.governing?.approverWebhook) this.outbox.start();
  }

  tell(progress: OrderProgress, event: ApproverMessage['event']): void {
    const { round, targets, governing } = progress;
    if (!governing?.approverWebhook || !round) return;
    const { request } = this.input;
    const tally = tallyVotes(roundFacts(request.requestedBy, round));
    this.outbox.push({
      workflowId: this.identity.workflowId,
      ticketId: request.ticketId,
      environment: request.environment,
      seq: progress.seq,
      event,
      ...(event === 'approval-reminder' ? { reminder: round.remindersSent } : {}),
      requestedBy: request.requestedBy,
      quote: { monthlyRate: round.quote.monthlyRate, currency: round.quote.currency },
      tier: { name: round.tier.name, roles: [...round.tier.roles], approvals: round.tier.approvals },
      stillNeeded: tally.outcome === 'waiting' ? tally.stillNeeded : 0,
      deadline: new Date(round.deadline).toISOString(),
      ...(targets
        ? {
            summary: `${targets.image.vendor} ${targets.image.product} ${targets.image.version} (kind ${targets.kind}) at ${targets.location.name}`,
          }
        : {}),
    });
  }

  get unsent(): number {
    return this.outbox.unsent;
  }
}
