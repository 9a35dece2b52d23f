/**
 * Sleeping in server time (TestService Sleep / SleepUntil): the clock jumps deadline by deadline, and
 * between jumps the server waits for workers to finish what the last deadline started (a fired timer
 * gives the workflow a task; it must run before the next deadline is considered).
 */
import type { EngineContext } from './context.js';

const SETTLE_POLL_MS = 5;
const SETTLE_LIMIT_MS = 10_000;

async function settle(ctx: EngineContext): Promise<void> {
  const giveUpAt = Date.now() + SETTLE_LIMIT_MS;
  do await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  while (!ctx.isQuiescent() && Date.now() < giveUpAt);
}

export async function sleepUntil(ctx: EngineContext, targetMs: number): Promise<void> {
  for (;;) {
    await settle(ctx);
    const next = ctx.clock.nextDeadline();
    if (next === undefined || next > targetMs) break;
    ctx.clock.advanceTo(next);
  }
  ctx.clock.advanceTo(targetMs);
}
