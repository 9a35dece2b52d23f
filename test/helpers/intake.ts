/**
 * For tests that call the activities on their own, without the API and a workflow: the records an order's intake and
 * its first run's admission leave (a registered ticket, the order recorded redacted, the ticket claimed by the run and
 * the run admitted), and votes signed as the HTTP API signs them.
 */
import { randomBytes } from 'node:crypto';
import type { Keyring } from '../../codec/index.js';
import { redactOrderRequest } from '../../domain/index.js';
import { ticketFingerprint, type Repository } from '../../infra/db/index.js';
import type { OrderRequest } from '../../schemas/index.js';
import type { JournalEntry } from '../../workflows/order/activity-types.js';
import { signAction } from '../../workflows/order/signed-action.js';

export interface AdmittedOrder {
  workflowId: string;
  runId: string;
  request: OrderRequest;
}

/** What the intake records for `order`, then its run's claim and admission (`admit: false`: the intake's part only). */
export async function recordIntake(
  repository: Repository,
  actionKeys: Keyring,
  order: AdmittedOrder,
  options: { admit?: boolean; submittedBy?: string } = {},
): Promise<void> {
  const { workflowId, runId, request } = order;
  await repository.registerTicket({
    ticketId: request.ticketId,
    workflowId,
    environment: request.environment,
    requestedBy: request.requestedBy,
    submittedBy: options.submittedBy ?? request.requestedBy,
    fingerprint: ticketFingerprint(actionKeys, actionKeys.currentKeyId, request)!,
    fingerprintKeyId: actionKeys.currentKeyId,
  });
  await repository.recordOrderReceived({
    workflowId,
    ticketId: request.ticketId,
    environment: request.environment,
    requestedBy: request.requestedBy,
    request: redactOrderRequest(request),
  });
  if (options.admit === false) return;
  await repository.claimTicket({ workflowId, runId });
  await repository.admitRun({ workflowId, runId, firstRunId: runId, continuedFromRunId: null });
}

type VoteEntry = Extract<JournalEntry, { type: 'vote' }>;

/** A vote entry as the workflow journals it, with the HTTP API's signature for the order's chain `firstRunId`. */
export function signedVote(
  actionKeys: Keyring,
  target: { workflowId: string; firstRunId: string },
  vote: Omit<VoteEntry, 'type' | 'signed'>,
): VoteEntry {
  const fields = {
    approverId: vote.approverId,
    monthlyRate: vote.monthlyRate,
    currency: vote.currency,
    ...(vote.comment === undefined ? {} : { comment: vote.comment }),
  };
  const [key] = actionKeys.exportEntries();
  const nonce = randomBytes(16).toString('hex');
  return { type: 'vote', ...vote, signed: signAction(key, target, vote.decision, fields, Date.now(), nonce) };
}
