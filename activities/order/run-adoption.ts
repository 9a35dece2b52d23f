import { hasEnded, type OrderState } from '../../domain/lifecycle/index.js';
import type { EvidenceRepository, TicketsRepository } from '../../infra/db/index.js';
import type { OrderRequestReader, RunReference } from './order-requests.js';

/**
 * The two runs the workers admit outside the admission (run-guard.ts), each from what the server says of the run:
 *
 * - **A recovery's run.** The API records ops' recovery (which run it reset, to which event) before it resets; the run's
 *   own history must name that reset of that run at that event. It takes the recovered run's place.
 * - **A run that continued as new before runs were admitted here** (migration 0018): the order's line of runs was not
 *   kept then, so its current run is taken in as the one run after its predecessor, when the server says it was
 *   started before the migration, in the ticket's chain, and the records do not say the order ended. A run started
 *   since (a reset's copy among them) is never taken in this way.
 */
export interface RunAdoptionDeps {
  repository: Pick<
    EvidenceRepository,
    'pendingRecovery' | 'adoptRecoveredRun' | 'admissionsSince' | 'admitRun' | 'orderState'
  > &
    Pick<TicketsRepository, 'getTicketByWorkflow'>;
  /** Reads a run's start and reset marker from the server; without it, no run is adopted. */
  runs: Pick<OrderRequestReader, 'resetOf' | 'startOf'>;
}

export async function adoptedRun(run: RunReference, deps: RunAdoptionDeps): Promise<boolean> {
  return (await recovered(run, deps)) || (await continuedBeforeAdmissions(run, deps));
}

async function recovered(run: RunReference, deps: RunAdoptionDeps): Promise<boolean> {
  const recovery = deps.runs.resetOf ? await deps.repository.pendingRecovery(run.workflowId) : null;
  if (!recovery) return false;
  const reset = await deps.runs.resetOf!(run);
  if (reset?.baseRunId !== recovery.fromRunId || reset.eventId !== recovery.resetEventId) return false;
  return deps.repository.adoptRecoveredRun({ ...run, fromRunId: recovery.fromRunId, toRunId: run.runId });
}

async function continuedBeforeAdmissions(run: RunReference, deps: RunAdoptionDeps): Promise<boolean> {
  const since = deps.runs.startOf ? await deps.repository.admissionsSince() : null;
  if (!since) return false;
  const start = await deps.runs.startOf!(run);
  if (!start.continuedFromRunId || start.startedAt >= since) return false;
  const ticket = await deps.repository.getTicketByWorkflow(run.workflowId);
  if (!ticket || ticket.claimedRunId !== start.firstRunId) return false;
  const state = await deps.repository.orderState(run.workflowId);
  if (state !== null && hasEnded(state as OrderState)) return false;
  const admitted = await deps.repository.admitRun({
    ...run,
    firstRunId: start.firstRunId,
    continuedFromRunId: start.continuedFromRunId,
  });
  return admitted.admitted;
}
