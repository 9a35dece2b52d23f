import { ApplicationFailure } from '@temporalio/activity';
import { RepositoryError, type Repository } from '../db/index.js';
import { redactOrderRequest } from '../../domain/index.js';
import type { JournalEntry, OrderActivities, OrderContext } from './types.js';

export interface RecordActivityDeps {
  repository: Repository;
}

type RecordActivities = Pick<OrderActivities, 'recordJournal' | 'loadApprovers'>;

/** Appended to a text cut to fit its column, so a reader knows there was more. */
export const TRUNCATED = '… [truncated]';

/** `text` cut to at most `max` characters, marked when cut. */
export function fit(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - TRUNCATED.length)}${TRUNCATED}`;
}

/** Money as the records keep it: at most 6 decimals. */
function money(amount: number): number {
  return Math.round(amount * 1e6) / 1e6;
}

/**
 * Writes the workflow's journal to Postgres, entry by entry in order. Every write is keyed by what the
 * workflow chose (sequence, quote number, attempt), so a retried batch changes nothing already written.
 * Values are fitted to the records at this boundary (long texts cut with a marker, money to 6 decimals,
 * currencies upper case, an empty status as UNKNOWN). A write still refused is a bug retrying cannot fix: it is
 * recorded as the order's last error and the batch goes on, so no refusal can hold up an order (the buy waits
 * on its journal) — except a refused buy intent, which fails the batch for good (`BuyIntentRefused`): the
 * write-ahead record did not happen, so the buy must not be sent. A database that is down is retried.
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
          ...(context.runId ? { runId: context.runId } : {}),
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
          actor: fit(entry.actor, 255),
          reason: fit(entry.reason, 2000),
          details: entry.details ?? {},
          at,
        });
        return;
      case 'note':
        await repository.recordNote({ workflowId, sequence: entry.seq, actor: fit(entry.actor, 255), message: fit(entry.message, 4000), details: entry.details ?? {}, at });
        return;
      case 'quote':
        await repository.recordQuote({
          workflowId,
          quoteNumber: entry.quoteNumber,
          monthlyRate: money(entry.quote.monthlyRate),
          currency: entry.quote.currency.trim().toUpperCase(),
          quotedAt: new Date(entry.quote.quotedAt),
        });
        return;
      case 'vote':
        await repository.recordApprovalVote({
          workflowId,
          quoteNumber: entry.quoteNumber,
          approverId: entry.approverId,
          decision: entry.decision,
          monthlyRate: money(entry.monthlyRate),
          currency: entry.currency.trim().toUpperCase(),
          reason: entry.comment === undefined ? null : fit(entry.comment, 2000),
          at,
        });
        return;
      case 'buy-intent': {
        const { recorded, attempt } = await repository.recordBuyIntent({ workflowId, attempt: entry.attempt, ...(context.runId ? { runId: context.runId } : {}), at });
        // A retry of this very write finds its own intent, still open. One of another run, or one that has ended,
        // belongs to an earlier run of the same order (the records outlive Temporal's memory): buying could buy twice.
        if (!recorded && (attempt.outcome !== null || (attempt.runId !== null && context.runId !== undefined && attempt.runId !== context.runId))) {
          const earlier = attempt.outcome === null ? `was begun by another run (${attempt.runId}) and may have been sent` : `already ended as ${attempt.outcome} (at ${attempt.finishedAt})`;
          throw new RepositoryError('conflict', `buy attempt ${entry.attempt} of this order ${earlier}; not buying again`);
        }
        return;
      }
      case 'buy-outcome':
        await repository.recordBuyOutcome({
          workflowId,
          attempt: entry.attempt,
          outcome: entry.outcome,
          technicalServiceUid: entry.product?.technicalServiceUid ?? null,
          errorClass: entry.error ? fit(entry.error.type, 100) : null,
          errorMessage: entry.error ? fit(entry.error.message, 4000) : null,
          resolvedBy: entry.resolvedBy === undefined ? null : fit(entry.resolvedBy, 255),
          at,
        });
        return;
      case 'product':
        await repository.recordProduct({
          workflowId,
          technicalServiceUid: entry.product.technicalServiceUid,
          provisioningStatus: fit(entry.product.provisioningStatus.trim() || 'UNKNOWN', 100),
        });
        return;
      case 'policy':
        await repository.recordPolicy({ workflowId, version: entry.version, hash: entry.hash, policy: entry.policy as Record<string, unknown> });
        return;
      case 'error':
        await repository.recordLastError({ workflowId, error: entry.message === null ? null : fit(entry.message, 4000), at });
        return;
    }
  }

  return {
    async recordJournal({ entries, ...context }) {
      for (const entry of entries) {
        try {
          await write(context, entry);
        } catch (error) {
          if (!(error instanceof RepositoryError)) throw error; // the database is down: retried
          const refusal = fit(`the record of journal entry ${entry.seq} (${entry.type}) was refused: ${error.message}`, 4000);
          if (entry.type === 'buy-intent') throw ApplicationFailure.nonRetryable(refusal, 'BuyIntentRefused');
          // Shown on the order; if even that is refused (no order row), the refusal cannot be recorded anywhere.
          await repository.recordLastError({ workflowId: context.workflowId, error: refusal, at: new Date() }).catch((second: unknown) => {
            if (!(second instanceof RepositoryError)) throw second;
          });
        }
      }
    },

    async loadApprovers() {
      const approvers = await repository.listApprovers();
      return approvers.map((approver) => ({ id: approver.id, roles: approver.roles, active: approver.active }));
    },
  };
}
