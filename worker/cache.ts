import { z } from 'zod';
import { parseEnv } from '../config/env.js';

/**
 * How many order workflows a worker keeps in memory between their workflow tasks (the SDK's workflow cache).
 * A cached order answers its next task from memory; an evicted one is replayed from its history when it is
 * next needed (an approve days later). Unbounded, the SDK sizes the cache from the heap limit (about 2,300
 * on a 4 GiB heap), and parked orders then fill memory: bounded, the cost of an order waiting for approval
 * is its history on the server, not memory on the worker. The default fits a small machine (docs/scale.md).
 */
export const DEFAULT_WORKFLOW_CACHE_SIZE = 100;

const cacheEnvSchema = z.object({
  MVE_WORKFLOW_CACHE_SIZE: z.coerce
    .number()
    .int('must be a whole number')
    .refine((size) => size === 0 || size >= 2, 'must be 0 (no cache: every task replays) or at least 2')
    .default(DEFAULT_WORKFLOW_CACHE_SIZE),
});

export function workflowCacheSize(env: NodeJS.ProcessEnv): number {
  return parseEnv(cacheEnvSchema, env).MVE_WORKFLOW_CACHE_SIZE;
}
