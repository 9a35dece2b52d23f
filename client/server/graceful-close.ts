import type { Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseEnv } from '../../config/env.js';
import { DURATION_RULE, durationSchema } from '../../domain/lifecycle/index.js';
import { DEFAULT_SHUTDOWN_GRACE_MS, SHUTDOWN_GRACE_VARIABLE, shutdownGraceSchema } from '../../infra/shutdown-grace.js';

export const SHUTDOWN_DRAIN_VARIABLE = 'MVE_SHUTDOWN_DRAIN';
export const DEFAULT_SHUTDOWN_DRAIN_MS = 5_000;

/** How a stopping server takes its leave: how long it drains before it closes its listener, and its whole grace. */
export interface ShutdownTiming {
  /** From the signal to the listener's close: /readyz answers 503 `draining` and requests are still served. */
  drainMs: number;
  /** From the signal to the end: what is still open then is cut. */
  graceMs: number;
}

/** `mve-orders dev`'s: no load balancer to tell, so the listener closes at once. */
export const NO_DRAIN: ShutdownTiming = { drainMs: 0, graceMs: DEFAULT_SHUTDOWN_GRACE_MS };

const schema = z
  .object({
    [SHUTDOWN_GRACE_VARIABLE]: shutdownGraceSchema(),
    [SHUTDOWN_DRAIN_VARIABLE]: z
      .string()
      .transform((text, context) => {
        if (text.trim() === '0') return 0;
        const parsed = durationSchema().safeParse(text);
        if (parsed.success) return parsed.data;
        context.addIssue({ code: 'custom', message: `must be 0 (no drain) or ${DURATION_RULE}` });
        return z.NEVER;
      })
      .default(DEFAULT_SHUTDOWN_DRAIN_MS),
  })
  .superRefine((vars, context) => {
    if (vars[SHUTDOWN_DRAIN_VARIABLE] >= vars[SHUTDOWN_GRACE_VARIABLE])
      context.addIssue({
        code: 'custom',
        path: [SHUTDOWN_DRAIN_VARIABLE],
        message: `must be shorter than ${SHUTDOWN_GRACE_VARIABLE}, which it is part of`,
      });
  });

/** MVE_SHUTDOWN_DRAIN (default 5 s) and MVE_SHUTDOWN_GRACE (default 25 s), checked together. */
export function shutdownTimingFromEnv(env: NodeJS.ProcessEnv): ShutdownTiming {
  const vars = parseEnv(schema, env);
  return { drainMs: vars[SHUTDOWN_DRAIN_VARIABLE], graceMs: vars[SHUTDOWN_GRACE_VARIABLE] };
}

/**
 * Stops the HTTP side of a server that is draining already (its /readyz says so, and each answer closes its
 * connection): after `drainMs` it closes its listener, so new connections are refused, and waits for the requests in
 * flight until `graceMs` from the start; what is still open then is cut. True when every request was answered.
 */
export async function closeGracefully(
  app: FastifyInstance,
  { drainMs, graceMs }: ShutdownTiming,
  log: (line: string) => void,
): Promise<boolean> {
  const deadline = Date.now() + graceMs;
  if (drainMs > 0) {
    log(`draining: /readyz answers 503; the listener closes in ${seconds(drainMs)} (${SHUTDOWN_DRAIN_VARIABLE})`);
    // Connections idle between requests would otherwise be reused until the listener closes, and then cut.
    app.server.closeIdleConnections();
    await sleep(drainMs);
  }
  const closing = app.close();
  while (app.server.listening) await sleep(5);
  const open = await openConnections(app.server);
  // Without a drain and with nothing in flight (dev's Ctrl-C) there is nothing to tell: dev reports its parts itself.
  const quiet = drainMs === 0 && open === 0;
  if (!quiet)
    log(
      `listener closed; ${open} connection${open === 1 ? '' : 's'} with requests in flight, given until ${seconds(deadline - Date.now())} from now (${SHUTDOWN_GRACE_VARIABLE})`,
    );
  const closed = await Promise.race([
    closing.then(() => true),
    sleep(Math.max(0, deadline - Date.now()), false, { ref: false }),
  ]);
  if (closed) {
    if (!quiet) log('every request answered');
    return true;
  }
  const cut = await openConnections(app.server);
  app.server.closeAllConnections();
  await closing;
  log(
    `the grace period is over (${seconds(graceMs)}, ${SHUTDOWN_GRACE_VARIABLE}): ${cut} connection${cut === 1 ? '' : 's'} cut unanswered`,
  );
  return false;
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve) => server.getConnections((error, count) => resolve(error ? 0 : count)));
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
