import { ApiAuthenticationError, type ApiClient } from '../../../../infra/ordering-api/index.js';
import type { BuyEnvelope, OrderRequest } from '../../../../schemas/index.js';
import { buyRefusal } from '../../buy-evidence.js';
import { summaryOf } from '../../failures.js';
import { BuyIntentRefused } from '../../journal/index.js';
import type { RunReference } from '../../order-requests.js';
import type { BuyAnswer, BuyInput, BuyOutcome, BuyTargets } from '../../../../workflows/order/activity-types.js';
import { clientFor, type ApiActivityDeps } from '../dependencies.js';
import { orderToSend } from '../order-to-send.js';
import { writeJournalInTime } from './journal.js';
import { ranBefore } from './ran-before.js';

/** What the buy is built from. */
export type BuyDeps = Omit<ApiActivityDeps, 'catalog' | 'now'>;

/** The buy's request, and the client it goes out with. */
export interface Sending {
  client: ApiClient;
  envelope: BuyEnvelope;
}

/**
 * Everything the buy must have done before its request may leave, in order: its journal written (the write-ahead
 * rule), its right to spend proven by the records, its order built, a token in hand, and its attempt claimed, last.
 * A step that fails answers the workflow; all but an earlier run's claim (`ranBefore`) prove nothing was sent.
 */
export async function readyToSend(deps: BuyDeps, run: RunReference, input: BuyInput): Promise<Sending | BuyAnswer> {
  const unwritten = await writeAhead(deps, run, input);
  if (unwritten) return unwritten;
  const proven = await provenRequest(deps, run);
  if ('outcome' in proven) return proven;
  const sending = addressed(deps, run, proven.request, input.targets);
  if ('outcome' in sending) return sending;
  return (await withoutToken(sending.client)) ?? (await unclaimed(deps, run, input)) ?? sending;
}

/** The write-ahead rule: the attempt's intent is in Postgres before the request can leave. */
async function writeAhead(deps: BuyDeps, run: RunReference, input: BuyInput): Promise<BuyAnswer | undefined> {
  if (!input.journal.length) return undefined;
  try {
    await writeJournalInTime(deps.writeJournal, run, input.journal);
    return undefined;
  } catch (error) {
    return (
      (error instanceof BuyIntentRefused && (await ranBefore(deps.repository, run, input))) || {
        outcome: 'unrecorded',
        error: summaryOf(error),
      }
    );
  }
}

/** The run's request, once the records prove its right to spend (`buyRefusal`). */
async function provenRequest(deps: BuyDeps, run: RunReference): Promise<{ request: OrderRequest } | BuyOutcome> {
  let request: OrderRequest;
  let refusal: string | undefined;
  try {
    request = await deps.orderRequests.requestOf(run);
    refusal = await buyRefusal(deps, run, request);
  } catch (error) {
    // Nothing was sent: the request or the records could not be read (Temporal or the database unreachable).
    return { outcome: 'not-created', retryable: true, error: summaryOf(error) };
  }
  return refusal ? refused(deps, run, refusal) : { request };
}

/** A buy the records do not prove: nothing is sent, the refusal is kept, and the order is told why. */
async function refused(deps: BuyDeps, run: RunReference, reason: string): Promise<BuyOutcome> {
  await deps.repository
    .recordRefusedCall({ ...run, activity: 'buyOrder', reason })
    .catch(() => undefined /* the refusal stands; the order's journal records it too */);
  return {
    outcome: 'not-created',
    retryable: false,
    error: { type: 'BuyRefused', message: `not buying: ${reason}` },
  };
}

/** The request built for the client of its environment. */
function addressed(deps: BuyDeps, run: RunReference, request: OrderRequest, targets: BuyTargets): Sending | BuyOutcome {
  try {
    const client = clientFor(deps.clients, request.environment);
    return { client, envelope: orderToSend(deps.kindMap, run, request, targets).buyEnvelope };
  } catch (error) {
    // Nothing was sent: a missing key or an order that cannot be built is a clean, final "not created".
    return { outcome: 'not-created', retryable: false, error: summaryOf(error) };
  }
}

/** The token is fetched (or refreshed) before sending: a buy never leaves only to be refused for its token. */
async function withoutToken(client: ApiClient): Promise<BuyOutcome | undefined> {
  try {
    await client.tokenProvider.getToken();
    return undefined;
  } catch (error) {
    // Nothing was sent: a token that cannot be had is a clean "not created", worth retrying unless refused.
    return { outcome: 'not-created', retryable: !(error instanceof ApiAuthenticationError), error: summaryOf(error) };
  }
}

/** Claimed last, right before it leaves: a workflow whose buy activity was lost can then tell whether it did. */
async function unclaimed(deps: BuyDeps, run: RunReference, input: BuyInput): Promise<BuyOutcome | undefined> {
  try {
    const { claimed } = await deps.repository.claimBuyForSending({
      workflowId: run.workflowId,
      attempt: input.attempt,
    });
    if (claimed) return undefined;
    return (
      (await ranBefore(deps.repository, run, input)) ?? {
        outcome: 'not-created',
        retryable: false,
        error: {
          type: 'BuyNotClaimed',
          message: `attempt ${input.attempt} has no open buy intent (closed, ended or never recorded): not sending`,
        },
      }
    );
  } catch (error) {
    // Nothing was sent: the database did not answer.
    return { outcome: 'not-created', retryable: true, error: summaryOf(error) };
  }
}
