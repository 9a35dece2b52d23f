import type { ActionKeyEntry } from './signed-action.js';

/**
 * The workers' action-signing keys (MVE_ACTION_KEY), put into the workflow bundle when the worker builds it
 * (worker/order-worker.ts defines this constant). They never travel in workflow history.
 */
declare const __MVE_ACTION_KEYS__: readonly ActionKeyEntry[] | undefined;

/** The keys the validators accept, current first; none when the bundle was built without keys (all actions refused). */
export function workerActionKeys(): readonly ActionKeyEntry[] {
  return typeof __MVE_ACTION_KEYS__ === 'undefined' ? [] : __MVE_ACTION_KEYS__;
}
