import { ApplicationFailure } from '@temporalio/activity';
import { RepositoryError, type Repository } from '../db/index.js';
import { redactOrderRequest } from '../../domain/index.js';
import type { JournalEntry, OrderActivities, OrderContext } from './types.js';

export interface RecordActivityDeps {
  repository: Repository;
}

type RecordActivities = Pick<OrderActivities, 'recordJournal' | 'loadApprovers'>;

/**
 * Writes the workflow's journal to Postgres, entry by entry in order. Every write is keyed by what the
 * workflow chose (sequence, quote number, attempt), so a retried batch changes nothing already written.
 * A refused write (bad input, broken constraint) is a bug that retrying cannot fix: it fails for good and
 * the workflow shows it; a database that is down is retried.
 */
export function createRecordActivities(deps: RecordActivityDeps): RecordActivities {
  const { repository } = deps;

  async function write(context: OrderContext & { ticketId: string }, entry: JournalEntry): Promise<void> {
    const { workflowId } = context;
    const at = new Date(entry.at);
    switch (entry.type) {
      case 'received':
        await repository.recordOrderReceived({
          workflowId,
          ticketId: context.ticketId,
          environment: context.environment,
          requestedBy: entry.request.requestedBy,
          request: redactOrderRequest(entry.request) as Record<string, unknown>,
          at,
        });
        return;
      case 'transition':
        await repository.recordTransition({
          workflowId,
          sequence: entry.seq,
          from: entry.from,
          to: entry.to,
          actor: entry.actor,
          reason: entry.reason,
          details: entry.details ?? {},
          at,
        });
        return;
      case 'note':
        await repository.recordNote({ workflowId, sequence: entry.seq, actor: entry.actor, message: entry.message, details: entry.details ?? {}, at });
        return;
      case 'quote':
        await repository.recordQuote({
          workflowId,
          quoteNumber: entry.quoteNumber,
          monthlyRate: entry.quote.monthlyRate,
          currency: entry.quote.currency,
          quotedAt: new Date(entry.quote.quotedAt),
        });
        return;
      case 'vote':
        await repository.recordApprovalVote({
          workflowId,
          quoteNumber: entry.quoteNumber,
          approverId: entry.approverId,
          decision: entry.decision,
          monthlyRate: entry.monthlyRate,
          currency: entry.currency,
          reason: entry.comment ?? null,
          at,
        });
        return;
      case 'buy-intent':
        await repository.recordBuyIntent({ workflowId, attempt: entry.attempt, at });
        return;
      case 'buy-outcome':
        await repository.recordBuyOutcome({
          workflowId,
          attempt: entry.attempt,
          outcome: entry.outcome,
          technicalServiceUid: entry.product?.technicalServiceUid ?? null,
          errorClass: entry.error?.type ?? null,
          errorMessage: entry.error?.message ?? null,
          resolvedBy: entry.resolvedBy ?? null,
          at,
        });
        return;
      case 'product':
        await repository.recordProduct({
          workflowId,
          technicalServiceUid: entry.product.technicalServiceUid,
          provisioningStatus: entry.product.provisioningStatus,
        });
        return;
      case 'policy':
        await repository.recordPolicy({ workflowId, version: entry.version, hash: entry.hash, policy: entry.policy as Record<string, unknown> });
        return;
      case 'error':
        await repository.recordLastError({ workflowId, error: entry.message, at });
        return;
    }
  }

  return {
    async recordJournal({ entries, ...context }) {
      for (const entry of entries) {
        try {
          await write(context, entry);
        } catch (error) {
          if (error instanceof RepositoryError) {
            throw ApplicationFailure.nonRetryable(`journal entry ${entry.seq} (${entry.type}): ${error.message}`, 'RecordRefused');
          }
          throw error;
        }
      }
    },

    async loadApprovers() {
      const approvers = await repository.listApprovers();
      return approvers.map((approver) => ({ id: approver.id, roles: approver.roles, active: approver.active }));
    },
  };
}
