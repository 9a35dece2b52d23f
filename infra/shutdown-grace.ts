import { z } from 'zod';
import { parseEnv } from '../config/env.js';
import { durationSchema } from '../domain/lifecycle/index.js';

export const SHUTDOWN_GRACE_VARIABLE = 'MVE_SHUTDOWN_GRACE';
/** Under the 30 s an orchestrator commonly waits after SIGTERM before it kills (Kubernetes' default). */
export const DEFAULT_SHUTDOWN_GRACE_MS = 25_000;

/** MVE_SHUTDOWN_GRACE's schema, for a schema of more variables that is checked against it. */
export const shutdownGraceSchema = () => durationSchema().default(DEFAULT_SHUTDOWN_GRACE_MS);

/**
 * How long a process that was told to stop (SIGTERM, SIGINT) gives the work it has in flight — the HTTP API its
 * requests, a worker its tasks — before it stops anyway, says so and exits 1 (MVE_SHUTDOWN_GRACE, default 25 s).
 */
export function shutdownGraceFromEnv(env: NodeJS.ProcessEnv): number {
  return parseEnv(z.object({ [SHUTDOWN_GRACE_VARIABLE]: shutdownGraceSchema() }), env)[SHUTDOWN_GRACE_VARIABLE];
}
