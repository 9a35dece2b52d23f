import type { OrderProgress } from './progress.js';
import { constantTimeEqual, macOf, sortKeys, type ActionKeyEntry } from './signed-action.js';

/**
 * What a run that continues as new vouches for: the order's whole progress, sealed with the workers' action key
 * (HMAC-SHA-256) for the one continuation it makes — this workflow, this chain (its first run) and the sealing run
 * (which the server names as the next run's `continuedFromExecutionRunId`). The next run's first step checks the seal
 * before it believes any of it, so a starter without the key cannot hand an order a progress of its own making.
 *
 * Pure and synchronous: the sealing run computes it inside the workflow sandbox.
 */
export interface CarriedSeal {
  keyId: string;
  /** base64url of the HMAC-SHA-256. */
  mac: string;
}

/** Where a carried progress may be believed: one continuation of one chain. */
export interface Continuation {
  workflowId: string;
  firstRunId: string;
  /** The run that continued as new (and sealed the progress). */
  fromRunId: string;
}

export function sealCarried(key: ActionKeyEntry, continuation: Continuation, carried: OrderProgress): CarriedSeal {
  return { keyId: key.id, mac: macOf(key, sealedMessage(continuation, carried)) };
}

/** Why the seal does not hold, or undefined when it does. */
export function sealRefusal(
  keys: readonly ActionKeyEntry[],
  continuation: Continuation,
  carried: unknown,
  seal: unknown,
): string | undefined {
  if (typeof seal !== 'object' || seal === null) return 'the carried state is not sealed by the run that continued';
  const { keyId, mac } = seal as Record<string, unknown>;
  if (typeof keyId !== 'string' || typeof mac !== 'string') return 'the carried state has a malformed seal';
  const key = keys.find((candidate) => candidate.id === keyId);
  if (!key) return `the carried state is sealed with key "${keyId}", which the workers do not hold`;
  const expected = macOf(key, sealedMessage(continuation, carried));
  if (!constantTimeEqual(expected, mac))
    return 'the carried state does not match its seal (altered, or sealed for another order or run)';
  return undefined;
}

function sealedMessage({ workflowId, firstRunId, fromRunId }: Continuation, carried: unknown): string {
  return JSON.stringify(['mve-orders/carried/v1', workflowId, firstRunId, fromRunId, sortKeys(carried)]);
}
