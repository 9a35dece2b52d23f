import { ApplicationFailure } from '@temporalio/activity';
import type { Keyring } from '../../codec/index.js';
import type { ProvisioningPlan } from '../../domain/lifecycle/index.js';
import { hasEnded, type OrderState } from '../../domain/lifecycle/index.js';
import {
  ticketFingerprint,
  type EvidenceRepository,
  type TicketRecord,
  type TicketsRepository,
} from '../../infra/db/index.js';
import { sealRefusal } from '../../workflows/order/carried-seal.js';
import type {
  BeginRunAnswer,
  BeginRunInput,
  Environment,
  GoverningPolicy,
  OrderActivities,
} from '../../workflows/order/activity-types.js';
import { currentRun, type RunReference } from './order-requests.js';
import type { AdmittedRuns } from './run-guard.js';

export interface AdmissionActivityDeps {
  repository: Pick<TicketsRepository, 'claimTicket' | 'getTicketByWorkflow' | 'recordRefusedRun'> &
    Pick<EvidenceRepository, 'admitRun' | 'getAdmittedRun' | 'orderState'>;
  /** The runs admitted (the activities' guard reads them: run-guard.ts). */
  admittedRuns: AdmittedRuns;
  /** The action keys (MVE_ACTION_KEY): the tickets' fingerprints and the carried seals are made with them. */
  actionKeys: Keyring;
  /** The environment's policy, for a first run (see policy-activity.ts). */
  loadApprovalPolicy: (input: { environment: Environment }) => Promise<GoverningPolicy>;
  /** How this worker follows bought products until they are live (MVE_FOLLOW_PROVISIONING…); undefined: it does not. */
  provisioning?: ProvisioningPlan;
}

/**
 * Each run's first step: the worker decides whether this run may act for its ticket from what it can verify — the
 * ticket the API registered in Postgres, the run ids the Temporal server gives the run, and the seal on any carried
 * state — never from what the starter put in the input (docs/security.md).
 *
 * - A first run claims the ticket for its chain (the chain's first run id) and must carry the registered request
 *   (its fingerprint) and submitter. A run of another chain finds the ticket claimed, or not registered, and stops.
 * - A run that continued as new must be of the claiming chain, continued from a run (the server says so), and carry
 *   the progress that run sealed.
 * - The chain is one line of runs (`admitted_runs`): its first run, then one run after each. A run that is neither
 *   (`temporal workflow reset` makes a new run with a copy of an old run's start) is refused, and so is any new run
 *   once the records say the order has ended. A run already admitted (its workflow task retried) goes on.
 *
 * It trusts `firstRunId` and `continuedFromRunId` because it runs only as a local activity (run-guard.ts): the
 * order's own workflow code read them from the server's start event.
 *
 * A refused run is kept in `refused_runs` for ops and answered `admitted: false`; the workflow then stops with
 * nothing looked up, voted on or bought. A database that does not answer is thrown (the read is retried): no claim,
 * no order.
 */
export function createAdmissionActivity(deps: AdmissionActivityDeps): Pick<OrderActivities, 'beginRun'> {
  const keyEntries = deps.actionKeys.exportEntries();

  async function refusalOf(run: RunReference, input: BeginRunInput): Promise<string | undefined> {
    const { request, firstRunId, continuedFromRunId, carried } = input;
    let ticket: TicketRecord | null;
    if (carried) {
      if (!continuedFromRunId) return 'it carries state but did not continue from another run';
      ticket = await deps.repository.getTicketByWorkflow(run.workflowId);
      if (ticket && ticket.claimedRunId !== firstRunId) return chainRefusal(ticket);
    } else {
      const claim = await deps.repository.claimTicket({ workflowId: run.workflowId, runId: firstRunId });
      ticket = claim.ticket;
      if (ticket && !claim.claimed) return chainRefusal(ticket);
    }
    if (!ticket) return 'no ticket was registered for this workflow by the order API';
    if (ticketFingerprint(deps.actionKeys, ticket.fingerprintKeyId, request) !== ticket.fingerprint)
      return 'its request is not the one the order API registered for the ticket';
    if ((input.submittedBy ?? null) !== ticket.submittedBy)
      return 'its submitter is not the one the order API registered for the ticket';
    if (carried) {
      const continuation = { workflowId: run.workflowId, firstRunId, fromRunId: continuedFromRunId! };
      return sealRefusal(keyEntries, continuation, carried.progress, carried.seal);
    }
    return undefined;
  }

  /** Why this run is not the chain's next run, if it is not; admits it otherwise. */
  async function lineRefusal(run: RunReference, input: BeginRunInput): Promise<string | undefined> {
    if (await deps.repository.getAdmittedRun(run)) return remembered(run);
    const continuedFromRunId = input.carried ? input.continuedFromRunId! : null;
    if (!continuedFromRunId && run.runId !== input.firstRunId)
      return `it is a copy of the chain's first run ${input.firstRunId} (a reset): a reset does not take an order back`;
    const state = await deps.repository.orderState(run.workflowId);
    // The records' states are the order's (a PostgreSQL enum).
    if (state !== null && hasEnded(state as OrderState))
      return `the records say the order has ended (${state}): no run takes it on again`;
    const admitted = await deps.repository.admitRun({ ...run, firstRunId: input.firstRunId, continuedFromRunId });
    if (!admitted.admitted) {
      return `run ${admitted.holder} already ${continuedFromRunId ? `continues the chain after ${continuedFromRunId}` : 'is the chain\u2019s first run'}; this one is a copy made by a reset`;
    }
    return remembered(run);
  }

  function remembered(run: RunReference): undefined {
    deps.admittedRuns.remember(run);
    return undefined;
  }

  return {
    async beginRun(input): Promise<BeginRunAnswer> {
      const run = currentRun();
      const reason = (await refusalOf(run, input)) ?? (await lineRefusal(run, input));
      if (reason) {
        await deps.repository.recordRefusedRun({ ...run, reason });
        return { admitted: false, reason };
      }
      if (input.carried) return { admitted: true };
      try {
        const policy = await deps.loadApprovalPolicy({ environment: input.request.environment });
        return { admitted: true, policy, ...(deps.provisioning ? { provisioning: deps.provisioning } : {}) };
      } catch (error) {
        // No policy for the environment, or rules that cannot be stored: the order is admitted and ends FAILED.
        if (error instanceof ApplicationFailure && error.nonRetryable)
          return { admitted: true, policyRefused: error.message };
        throw error;
      }
    },
  };
}

function chainRefusal(ticket: TicketRecord): string {
  if (ticket.claimedRunId)
    return `the ticket belongs to the workflow run ${ticket.claimedRunId} (this is another chain of runs)`;
  return ticket.cancelledBeforeStartAt
    ? `the order was cancelled through the API at ${ticket.cancelledBeforeStartAt}, before any worker started it`
    : 'the ticket has not been claimed by a first run';
}
