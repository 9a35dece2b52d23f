import { z } from 'zod';

export const SIM_ENDPOINTS = ['token', 'locations', 'images', 'variants', 'validate', 'buy'] as const;
export type SimEndpoint = (typeof SIM_ENDPOINTS)[number];

const times = z.union([z.number().int().min(1), z.literal('always')]).default(1);
const endpoint = z.enum(SIM_ENDPOINTS);

/**
 * A fault to inject into the next `times` calls of an endpoint (or every call, with 'always'):
 * - latency: answer normally after `ms`;
 * - error: answer `status` (5xx) without doing anything;
 * - rate-limit: answer 429 with `Retry-After: retryAfterSeconds`;
 * - expire-token: the token presented expires just before it is checked;
 * - drop: destroy the connection without doing anything or answering;
 * - apply-then-drop: do the work (a buy creates its product), then destroy the connection without answering.
 */
export const faultSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('latency'), endpoint, times, ms: z.number().int().min(0).max(600_000) }),
  z.object({ kind: z.literal('error'), endpoint, times, status: z.number().int().min(500).max(599).default(503) }),
  z.object({
    kind: z.literal('rate-limit'),
    endpoint,
    times,
    retryAfterSeconds: z.number().int().min(0).max(3600).default(1),
  }),
  z.object({ kind: z.literal('expire-token'), endpoint, times }),
  z.object({ kind: z.literal('drop'), endpoint, times }),
  z.object({ kind: z.literal('apply-then-drop'), endpoint, times }),
]);

export type FaultInput = z.input<typeof faultSchema>;
export type Fault = z.output<typeof faultSchema>;

/** The queue of armed faults; each call takes the first one armed for its endpoint. */
export class FaultBook {
  #armed: Fault[] = [];

  /** Validates and arms a fault; throws a zod error naming the bad field. */
  inject(input: FaultInput): Fault {
    const fault = faultSchema.parse(input);
    this.#armed.push(fault);
    return fault;
  }

  clear(): void {
    this.#armed = [];
  }

  list(): Fault[] {
    return this.#armed.map((fault) => ({ ...fault }));
  }

  /** The fault for this call, if any, used up by one. */
  take(target: SimEndpoint): Fault | undefined {
    const index = this.#armed.findIndex((fault) => fault.endpoint === target);
    if (index < 0) return undefined;
    const fault = this.#armed[index]!;
    if (fault.times !== 'always') {
      if (fault.times <= 1) this.#armed.splice(index, 1);
      else this.#armed[index] = { ...fault, times: fault.times - 1 };
    }
    return { ...fault };
  }
}
