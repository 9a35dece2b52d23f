import {
  RepositoryError,
  type OrdersRepository,
  type Repository,
  type TransitionInput,
  type TransitionOutcome,
} from '../../infra/db/index.js';
import type { Keyring } from '../../codec/index.js';
import type { PoliciesInForce } from '../../domain/approval/index.js';
import { policyHash } from './policy-activity.js';
import { voteSignatureRefusal } from './vote-signature.js';
import type { JournalEntry } from '../../workflows/order/activity-types.js';

export interface JournalWriterDeps {
  repository: Repository;
  /** The action keys (MVE_ACTION_KEY): a vote is recorded only with the HTTP API's signature over it. */
  actionKeys: Keyring;
  /** The policies this worker serves: their rules, for a policy entry whose hash no worker stored (see below). */
  policies?: PoliciesInForce;
}

/** The order run a journal batch is written for. */
export interface JournalRun {
  workflowId: string;
  /** Recorded with the order and each buy attempt. */
  runId: string | undefined;
}

/**
 * The records refused a buy intent: the attempt belongs to another run, or has ended. The write-ahead record did not
 * happen, so the buy must not be sent.
 */
export class BuyIntentRefused extends Error {
  override name = 'BuyIntentRefused';
}

/** Writes a batch of the order's journal to Postgres. */
export type JournalWriter = (run: JournalRun, entries: JournalEntry[]) => Promise<void>;

/** Appended to a text cut to fit its column, so a reader knows there was more. */
export const TRUNCATED = '… [truncated]';

/** `text` cut to at most `max` characters, marked when cut. */
export function fit(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - TRUNCATED.length)}${TRUNCATED}`;
}

type TransitionEntry = Extract<JournalEntry, { type: 'transition' }>;

/** A transition of the journal as the records take it. */
function transitionRecord(workflowId: string, entry: TransitionEntry): TransitionInput {
  return {
    workflowId,
    sequence: entry.seq,
    from: entry.from,
    to: entry.to,
    actor: fit(entry.actor, 255),
    reason: fit(entry.reason, 2000),
    details: entry.details ?? {},
    at: new Date(entry.at),
  };
}

/** Money as the records keep it: at most 6 decimals. */
function money(amount: number): number {
  return Math.round(amount * 1e6) / 1e6;
}

/**
 * Writes the workflow's journal to Postgres, in order: the writes of a batch go out together on one connection, one
 * round trip instead of one each, and PostgreSQL runs them one after another as sent. Every write is keyed by what the
 * workflow chose (sequence, quote number, attempt), so a batch written again changes nothing already written.
 * Values are fitted to the records at this boundary (long texts cut with a marker, money to 6 decimals,
 * currencies upper case, an empty status as UNKNOWN). A write still refused is a bug retrying cannot fix: it is
 * recorded as the order's last error and the batch goes on, so no refusal can hold up an order (the buy waits
 * on its journal) — except a refused buy intent, which ends the batch with `BuyIntentRefused`. A database that
 * is down throws its own error (worth retrying).
 */
export function createJournalWriter(deps: JournalWriterDeps): JournalWriter {
  const { repository } = deps;

  function rulesServed(hash: string): Record<string, unknown> | undefined {
    const served = Object.values(deps.policies?.policies ?? {}).find((policy) => policyHash(policy) === hash);
    return served as unknown as Record<string, unknown> | undefined;
  }

  /** Writes one entry other than a transition (`writeSegment` sends those together). */
  async function write(
    records: OrdersRepository,
    run: JournalRun,
    entry: Exclude<JournalEntry, TransitionEntry>,
  ): Promise<void> {
    const { workflowId } = run;
    const at = new Date(entry.at);
    switch (entry.type) {
      case 'received':
        // The intake recorded the order (with its request, redacted); the run that received it is noted.
        if (run.runId) await records.recordOrderRun({ workflowId, runId: run.runId });
        return;
      case 'note':
        await records.recordNote({
          workflowId,
          sequence: entry.seq,
          actor: fit(entry.actor, 255),
          message: fit(entry.message, 4000),
          details: entry.details ?? {},
          at,
        });
        return;
      case 'quote':
        await records.recordQuote({
          workflowId,
          quoteNumber: entry.quoteNumber,
          monthlyRate: money(entry.quote.monthlyRate),
          currency: entry.quote.currency.trim().toUpperCase(),
          quotedAt: new Date(entry.quote.quotedAt),
        });
        return;
      case 'vote':
        await requireSignedVote(workflowId, entry);
        await records.recordApprovalVote({
          workflowId,
          quoteNumber: entry.quoteNumber,
          approverId: entry.approverId,
          decision: entry.decision,
          monthlyRate: money(entry.monthlyRate),
          currency: entry.currency.trim().toUpperCase(),
          reason: entry.comment === undefined ? null : fit(entry.comment, 2000),
          at,
          signature: entry.signed as unknown as Record<string, unknown>,
        });
        return;
      case 'buy-intent': {
        const { recorded, attempt } = await records.recordBuyIntent({
          workflowId,
          attempt: entry.attempt,
          ...(run.runId ? { runId: run.runId } : {}),
          at,
        });
        // A retry of this very write finds its own intent, still open. One of another run, or one that has ended,
        // belongs to an earlier run of the same order (the records outlive Temporal's memory): buying could buy twice.
        if (
          !recorded &&
          (attempt.outcome !== null ||
            (attempt.runId !== null && run.runId !== undefined && attempt.runId !== run.runId))
        ) {
          const earlier =
            attempt.outcome === null
              ? `was begun by another run (${attempt.runId}) and may have been sent`
              : `already ended as ${attempt.outcome} (at ${attempt.finishedAt})`;
          throw new RepositoryError(
            'conflict',
            `buy attempt ${entry.attempt} of this order ${earlier}; not buying again`,
          );
        }
        return;
      }
      case 'buy-outcome':
        await records.recordBuyOutcome({
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
        await records.recordProduct({
          workflowId,
          technicalServiceUid: entry.product.technicalServiceUid,
          provisioningStatus: fit(entry.product.provisioningStatus.trim() || 'UNKNOWN', 100),
        });
        return;
      case 'policy': {
        // The rules are stored by hash (loadApprovalPolicy); an entry of an older input still carries them, and they
        // are stored with it, since no worker may have stored them.
        const named = { workflowId, version: entry.version, hash: entry.hash };
        try {
          await records.recordPolicy(
            entry.policy ? { ...named, policy: entry.policy as unknown as Record<string, unknown> } : named,
          );
        } catch (error) {
          // A run that read its policy from a worker of before this deploy (which stored no rules) and journals it only
          // now names a hash nobody stored: when it is the hash of a policy this worker serves, its rules are stored.
          const rules =
            error instanceof RepositoryError && error.kind === 'not-found' ? rulesServed(entry.hash) : undefined;
          if (!rules) throw error;
          await records.recordPolicy({ ...named, policy: rules });
        }
        return;
      }
      case 'error':
        await records.recordLastError({
          workflowId,
          error: entry.message === null ? null : fit(entry.message, 4000),
          at,
        });
        return;
    }
  }

  /** A vote is recorded only when the HTTP API signed it for this order: a run cannot make one up. */
  async function requireSignedVote(workflowId: string, vote: Extract<JournalEntry, { type: 'vote' }>): Promise<void> {
    const ticket = await repository.getTicketByWorkflow(workflowId);
    const refusal = ticket?.claimedRunId
      ? voteSignatureRefusal(deps.actionKeys, { workflowId, firstRunId: ticket.claimedRunId }, vote)
      : 'no run has claimed the order\u2019s ticket';
    if (refusal) throw new RepositoryError('invalid-input', `recordApprovalVote: ${refusal}`);
  }

  /**
   * Starts the writes of a segment together, in order; its transitions go as one statement, started where the first
   * of them stands (the order's row then moves once, not once per change). Resolves with each entry's refusal, if any.
   */
  function writeSegment(records: OrdersRepository, run: JournalRun, segment: JournalEntry[]) {
    const transitions = segment.filter((entry): entry is TransitionEntry => entry.type === 'transition');
    let together: Promise<TransitionOutcome[]> | undefined;
    return Promise.all(
      segment.map((entry): Promise<{ error: unknown } | undefined> => {
        if (entry.type !== 'transition')
          return write(records, run, entry).then(
            () => undefined,
            (error: unknown) => ({ error }),
          );
        together ??= records.recordTransitions(
          transitions.map((transition) => transitionRecord(run.workflowId, transition)),
        );
        const at = transitions.indexOf(entry);
        return together.then(
          (outcomes) => ('refused' in outcomes[at]! ? { error: outcomes[at].refused } : undefined),
          (error: unknown) => ({ error }),
        );
      }),
    );
  }

  return async (run, entries) => {
    await repository.withOneConnection(async (records) => {
      for (const segment of segments(entries)) {
        // Started together on one connection: PostgreSQL gets them in one round trip and runs them in order.
        const outcomes = await writeSegment(records, run, segment);
        let refused: { at: number; message: string } | undefined;
        let intentRefused: BuyIntentRefused | undefined;
        for (const [index, outcome] of outcomes.entries()) {
          if (!outcome) continue;
          const entry = segment[index]!;
          if (!(outcome.error instanceof RepositoryError)) throw outcome.error; // the database is down: worth retrying
          const message = fit(
            `the record of journal entry ${entry.seq} (${entry.type}) was refused: ${outcome.error.message}`,
            4000,
          );
          // An intent ends its segment: the batch ends with it, once what came before is recorded.
          if (entry.type === 'buy-intent') intentRefused = new BuyIntentRefused(message);
          else refused = { at: index, message };
        }
        // Shown on the order, unless an error entry after it set the last error (written one by one, it would have
        // replaced it); if even that is refused (no order row), the refusal cannot be recorded anywhere.
        if (refused && !segment.slice(refused.at + 1).some((entry) => entry.type === 'error')) {
          await records
            .recordLastError({ workflowId: run.workflowId, error: refused.message, at: new Date() })
            .catch((second: unknown) => {
              if (!(second instanceof RepositoryError)) throw second;
            });
        }
        if (intentRefused) throw intentRefused;
      }
    });
  };
}

/**
 * The entries in order, cut where a write must wait for the ones before it: after each buy intent (what follows an
 * intent is written only once the intent is), and before a policy entry that carries its rules (storing them takes a
 * transaction of its own, on another connection, which the order's row must already be in).
 */
function segments(entries: JournalEntry[]): JournalEntry[][] {
  const cut: JournalEntry[][] = [[]];
  for (const entry of entries) {
    if (entry.type === 'policy' && entry.policy && cut.at(-1)!.length > 0) cut.push([]);
    cut.at(-1)!.push(entry);
    if (entry.type === 'buy-intent') cut.push([]);
  }
  return cut.filter((segment) => segment.length > 0);
}
