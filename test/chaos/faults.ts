/** The provider's faults both campaigns arm: what the next validate or buy call meets. */
import type { FaultInput, Simulator } from '../../tooling/sim/index.js';
import type { Dice } from './random.js';
import { countOne } from './report.js';

/** The longest a buy is held at the provider (the client gives up after 5 s); ops wait longer (bots.ts). */
const MAX_BUY_LATENCY_MS = 7_000;
/** How long the buy caught in flight is held while every worker is killed. */
const HELD_BUY_MS = 4_000;

/** Arms one random fault on validate or buy, counted in `faults` by endpoint and kind (`buy 5xx`). */
export function armProviderFault(sim: Simulator, dice: Dice, faults: Record<string, number>): void {
  const { pick, between } = dice;
  const endpoint = pick(['validate', 'buy'] as const);
  const kind = pick(['error', 'rate-limit', 'latency', 'apply-then-drop'] as const);
  let fault: FaultInput;
  if (kind === 'error') fault = { kind, endpoint, status: pick([500, 502, 503]) };
  else if (kind === 'rate-limit') fault = { kind, endpoint, retryAfterSeconds: 1 };
  else if (kind === 'latency')
    fault = { kind, endpoint, ms: between(300, endpoint === 'buy' ? MAX_BUY_LATENCY_MS : 4_000) };
  else fault = { kind, endpoint };
  sim.injectFault(fault);
  countOne(faults, `${endpoint} ${kind === 'error' ? '5xx' : kind === 'rate-limit' ? '429' : kind}`);
}

/**
 * A buy caught in flight: `arm()` holds the next buy at the provider; `sprung()` is true once, when that buy has
 * reached the provider and is held there: the moment to kill every worker.
 */
export function buyInFlight(sim: Simulator, faults: Record<string, number>): { arm(): void; sprung(): boolean } {
  let armed = false;
  let done = false;
  let buysAtArm = 0;
  return {
    arm() {
      armed = true;
      buysAtArm = sim.state().calls.buy;
      sim.injectFault({ kind: 'latency', endpoint: 'buy', ms: HELD_BUY_MS });
      countOne(faults, 'buy latency');
    },
    sprung() {
      const state = sim.state();
      if (
        !armed ||
        done ||
        state.calls.buy <= buysAtArm ||
        state.faults.some((fault) => fault.kind === 'latency' && fault.endpoint === 'buy' && fault.ms === HELD_BUY_MS)
      )
        return false;
      done = true;
      return true;
    },
  };
}
