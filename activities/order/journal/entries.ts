import type { TransitionInput } from '../../../infra/db/index.js';
import type { JournalEntry } from '../../../workflows/order/activity-types.js';
import { writeBuyIntent } from './buy-intent.js';
import { writePolicy } from './policy.js';
import { currencyCode, fit, money } from './record-values.js';
import type { EntryOf, EntryTarget, TransitionEntry } from './types.js';
import { writeVote } from './vote.js';

/** Writes one entry other than a transition (`writeSegment` sends those together, as `transitionRecord`s). */
export async function writeEntry(target: EntryTarget, entry: Exclude<JournalEntry, TransitionEntry>): Promise<void> {
  switch (entry.type) {
    case 'received':
      return writeReceived(target);
    case 'note':
      return writeNote(target, entry);
    case 'quote':
      return writeQuote(target, entry);
    case 'vote':
      return writeVote(target, entry);
    case 'buy-intent':
      return writeBuyIntent(target, entry);
    case 'buy-outcome':
      return writeBuyOutcome(target, entry);
    case 'product':
      return writeProduct(target, entry);
    case 'policy':
      return writePolicy(target, entry);
    case 'error':
      return writeLastError(target, entry);
  }
}

/** A transition of the journal as the records take it. */
export function transitionRecord(workflowId: string, entry: TransitionEntry): TransitionInput {
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

/** The intake recorded the order (with its request, redacted); the run that received it is noted. */
async function writeReceived({ records, run }: EntryTarget): Promise<void> {
  if (run.runId) await records.recordOrderRun({ workflowId: run.workflowId, runId: run.runId });
}

async function writeNote({ records, run }: EntryTarget, entry: EntryOf<'note'>): Promise<void> {
  await records.recordNote({
    workflowId: run.workflowId,
    sequence: entry.seq,
    actor: fit(entry.actor, 255),
    message: fit(entry.message, 4000),
    details: entry.details ?? {},
    at: new Date(entry.at),
  });
}

async function writeQuote({ records, run }: EntryTarget, entry: EntryOf<'quote'>): Promise<void> {
  await records.recordQuote({
    workflowId: run.workflowId,
    quoteNumber: entry.quoteNumber,
    monthlyRate: money(entry.quote.monthlyRate),
    currency: currencyCode(entry.quote.currency),
    quotedAt: new Date(entry.quote.quotedAt),
  });
}

/**
 * A buy's outcome. One ops resolved settles an uncertain buy, so the order's last error (the outcome that was not
 * known) is cleared with it, as the workflow clears it: both writes start here together, before the entries after
 * it, which may set a new one.
 */
async function writeBuyOutcome({ records, run }: EntryTarget, entry: EntryOf<'buy-outcome'>): Promise<void> {
  const outcome = records.recordBuyOutcome({
    workflowId: run.workflowId,
    attempt: entry.attempt,
    outcome: entry.outcome,
    technicalServiceUid: entry.product?.technicalServiceUid ?? null,
    errorClass: entry.error ? fit(entry.error.type, 100) : null,
    errorMessage: entry.error ? fit(entry.error.message, 4000) : null,
    resolvedBy: entry.resolvedBy === undefined ? null : fit(entry.resolvedBy, 255),
    at: new Date(entry.at),
  });
  const settled =
    entry.resolvedBy === undefined
      ? undefined
      : records.recordLastError({ workflowId: run.workflowId, error: null, at: new Date(entry.at) });
  await Promise.all([outcome, settled]);
}

/** The product, its status never empty (UNKNOWN). */
async function writeProduct({ records, run }: EntryTarget, entry: EntryOf<'product'>): Promise<void> {
  await records.recordProduct({
    workflowId: run.workflowId,
    technicalServiceUid: entry.product.technicalServiceUid,
    provisioningStatus: fit(entry.product.provisioningStatus.trim() || 'UNKNOWN', 100),
  });
}

async function writeLastError({ records, run }: EntryTarget, entry: EntryOf<'error'>): Promise<void> {
  await records.recordLastError({
    workflowId: run.workflowId,
    error: entry.message === null ? null : fit(entry.message, 4000),
    at: new Date(entry.at),
  });
}
