import { CancellationScope } from '@temporalio/workflow';
import type { ResolvedProductCheck } from './activity-types.js';
import { resolutionChecks } from './activities.js';
import { summarise } from './failures.js';
import type { ResolveBuyInput } from './messages.js';
import { ENGINE } from './recorder.js';
import type { OrderRun } from './run.js';

type CreatedResolution = Extract<ResolveBuyInput, { outcome: 'created' }>;

/** Why a 'created' resolution was not accepted: the refusal's code and what ops should check. */
export type ProductRefusal = { code: string; reason: string };

/**
 * Reads the product a 'created' resolution names at the provider, through the workers (the API holds no key of the
 * ordering API). A product the provider does not have, one named after another order, or one that could not be read
 * is refused: the refusal is noted on the order, which stays BUY_UNCERTAIN. Accepted, the resolution carries the
 * product's status as the provider reports it, unless ops gave one.
 */
export async function checkResolution(
  run: OrderRun,
  resolution: CreatedResolution,
): Promise<CreatedResolution | ProductRefusal> {
  const uid = resolution.technicalServiceUid;
  const checked = await readNamedProduct(run, uid);
  if (checked.accepted)
    return { ...resolution, provisioningStatus: resolution.provisioningStatus ?? checked.provisioningStatus };
  const { recorder } = run;
  recorder.note(
    ENGINE,
    `refused ${resolution.actor}'s resolution of buy attempt ${resolution.attempt} as created with product ${uid}: ${checked.reason}`,
    { refused: 'resolve-buy', technicalServiceUid: uid, code: checked.code },
  );
  recorder.checkpoint();
  return { code: checked.code, reason: checked.reason };
}

/** The check, whatever Temporal's own cancellation requests (the order ignores them); a read that failed is refused. */
async function readNamedProduct(
  run: OrderRun,
  technicalServiceUid: string,
): Promise<ResolvedProductCheck | { accepted: false; code: 'PRODUCT_NOT_CHECKED'; reason: string }> {
  const { environment } = run.recorder.input.request;
  try {
    return await CancellationScope.nonCancellable(() =>
      resolutionChecks.checkResolvedProduct({ environment, technicalServiceUid }),
    );
  } catch (error) {
    const { message } = summarise(error, 'the read failed');
    return {
      accepted: false,
      code: 'PRODUCT_NOT_CHECKED',
      reason: `product ${technicalServiceUid} could not be read at the provider (${message}); nothing was settled: try again in a few minutes`,
    };
  }
}
