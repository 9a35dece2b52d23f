import { ApplicationFailure, Context } from '@temporalio/activity';
import type { EvidenceRepository } from '../../infra/db/index.js';
import type { OrderActivities } from '../../workflows/order/activity-types.js';
import { currentRun, type RunReference } from './order-requests.js';
import { adoptedRun, type RunAdoptionDeps } from './run-adoption.js';

/**
 * Every activity is a public entry point of the worker: whoever reaches its task queue can schedule it, from a
 * workflow of their own, with any input (docs/security.md). So before any activity runs, the worker checks two
 * things it can verify itself, never its input:
 *
 * - **Who scheduled it.** The steps an order takes inside its own workflow task (the admission, the lookups, the
 *   validation, the buy, the product reads) run as local activities: only this worker's own workflow code can start
 *   one. Scheduled through the task queue, they are someone else's call, and refused.
 * - **For which run.** Each activity works for the run in its context (the workflow id and run id the server gives
 *   it): that run must be one the admission let in (`admitted_runs`). A run of another chain, or a run that a reset
 *   made, has none and does nothing.
 *
 * What was refused is kept in `refused_calls` (workflow id, run id, activity, why), and the call fails for good.
 *
 * Two runs the admission did not admit are let in, each on the server's own word about the run (run-adoption.ts): the
 * run ops' recovery made, and a run that continued as new before runs were admitted here.
 */

/** The steps that run only inside the order's own workflow task (workflows/order/activities.ts). */
const LOCAL_ONLY: ReadonlySet<string> = new Set<keyof OrderActivities>([
  'beginRun',
  'loadApprovers',
  'lookUpLocation',
  'lookUpImage',
  'validateOrder',
  'buyOrder',
  'readProduct',
  'checkResolvedProduct',
]);

/** The admission decides for itself whether its run may act; every other activity needs an admitted run. */
const ADMITS: keyof OrderActivities = 'beginRun';

export const ACTIVITY_REFUSED = 'ACTIVITY_REFUSED';

/**
 * The runs this worker knows are admitted: once admitted, a run stays so, so a run is read from PostgreSQL once per
 * worker process (the most recent `capacity` are kept).
 */
export class AdmittedRuns {
  private readonly known = new Set<string>();

  constructor(
    private readonly repository: Pick<EvidenceRepository, 'getAdmittedRun'>,
    private readonly capacity = 10_000,
  ) {}

  remember(run: RunReference): void {
    const key = keyOf(run);
    this.known.delete(key);
    this.known.add(key);
    if (this.known.size > this.capacity) this.known.delete(this.known.values().next().value!);
  }

  async isAdmitted(run: RunReference): Promise<boolean> {
    if (this.known.has(keyOf(run))) return true;
    const admitted = await this.repository.getAdmittedRun(run);
    if (admitted) this.remember(run);
    return admitted !== null;
  }
}

export interface RunGuardDeps extends RunAdoptionDeps {
  admittedRuns: AdmittedRuns;
  repository: RunAdoptionDeps['repository'] & Pick<EvidenceRepository, 'recordRefusedCall'>;
}

/** The activities, each run only after the checks above. */
export function guardActivities(activities: OrderActivities, deps: RunGuardDeps): OrderActivities {
  const guarded: Record<string, (input: never) => Promise<unknown>> = {};
  for (const [name, activity] of Object.entries(activities) as Array<[string, (input: never) => Promise<unknown>]>) {
    guarded[name] = async (input) => {
      const run = scheduledBy(name);
      const reason = await refusalOf(name, run, deps);
      if (reason) {
        await deps.repository.recordRefusedCall({ ...run, activity: name, reason });
        throw ApplicationFailure.nonRetryable(
          `${name} refused for run ${run.runId} of ${run.workflowId}: ${reason}`,
          ACTIVITY_REFUSED,
        );
      }
      return activity(input);
    };
  }
  return guarded as unknown as OrderActivities;
}

function scheduledBy(name: string): RunReference {
  try {
    return currentRun();
  } catch {
    throw ApplicationFailure.nonRetryable(`${name} runs only for an order's workflow run`, ACTIVITY_REFUSED);
  }
}

async function refusalOf(name: string, run: RunReference, deps: RunGuardDeps): Promise<string | undefined> {
  if (LOCAL_ONLY.has(name) && !Context.current().info.isLocal) {
    return 'it runs only inside an order\u2019s own workflow task on this worker, and was scheduled through the task queue';
  }
  if (name !== ADMITS && !(await deps.admittedRuns.isAdmitted(run)) && !(await adopted(run, deps))) {
    return 'the workers never admitted this run for the ticket (another chain of runs, or a run made by a reset): nothing done';
  }
  return undefined;
}

async function adopted(run: RunReference, deps: RunGuardDeps): Promise<boolean> {
  const adopted = await adoptedRun(run, deps);
  if (adopted) deps.admittedRuns.remember(run);
  return adopted;
}

function keyOf(run: RunReference): string {
  return `${run.workflowId}/${run.runId}`;
}
