import { z } from 'zod';
import { SIM_FAILED_STATUSES } from './provisioning.js';

export const SIM_ENDPOINTS = ['token', 'locations', 'images', 'variants', 'validate', 'buy', 'product'] as const;
export type SimEndpoint = (typeof SIM_ENDPOINTS)[number];

const times = z.union([z.number().int().min(1), z.literal('always')]).default(1);
const endpoint = z.enum(SIM_ENDPOINTS);

/** Strict: an `endpoint`, or a `status` for a product that only gets stuck, would be a misunderstanding. */
function provisioningFault<Outcome extends string, Shape extends z.ZodRawShape>(outcome: Outcome, shape: Shape) {
  return z.strictObject(
    { kind: z.literal('provisioning'), outcome: z.literal(outcome), times, ...shape },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? `${issue.keys.join(', ')}: not a field of a provisioning fault with outcome "${outcome}"`
          : undefined,
    },
  );
}

/**
 * A fault to inject into the next `times` calls of an endpoint (or every call, with 'always'):
 * - latency: answer normally after `ms`;
 * - error: answer `status` (5xx) without doing anything;
 * - rate-limit: answer 429 with `Retry-After: retryAfterSeconds`;
 * - expire-token: the token presented expires just before it is checked;
 * - drop: destroy the connection without doing anything or answering;
 * - apply-then-drop: do the work (a buy creates its product), then destroy the connection without answering;
 * - echo: refuse a validate or buy with 400, quoting the value of the order's vendorConfig `field` in the message and
 *   the issue, as APIs that quote the value they object to do (the simulator's own checks never quote a value).
 * And one for the next `times` products bought, whatever the endpoint (a buy of two orders takes two):
 * - provisioning: the product is `stuck` in CONFIGURED for ever, or `fail`s, ending in `status` where it would
 *   have gone LIVE.
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
  z.object({ kind: z.literal('echo'), endpoint: z.enum(['validate', 'buy']), times, field: z.string().min(1) }),
  z.discriminatedUnion('outcome', [
    provisioningFault('stuck', {}),
    provisioningFault('fail', { status: z.enum(SIM_FAILED_STATUSES).default('DECOMMISSIONED') }),
  ]),
]);

export type FaultInput = z.input<typeof faultSchema>;
export type Fault = z.output<typeof faultSchema>;
export type ProvisioningFault = Extract<Fault, { kind: 'provisioning' }>;
type EndpointFault = Exclude<Fault, ProvisioningFault>;

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
  take(target: SimEndpoint): EndpointFault | undefined {
    return this.#takeFirst(
      (fault): fault is EndpointFault => fault.kind !== 'provisioning' && fault.endpoint === target,
    );
  }

  /** The provisioning fault for a product being bought, if any, used up by one. */
  takeProvisioning(): ProvisioningFault | undefined {
    return this.#takeFirst((fault): fault is ProvisioningFault => fault.kind === 'provisioning');
  }

  #takeFirst<T extends Fault>(matches: (fault: Fault) => fault is T): T | undefined {
    const index = this.#armed.findIndex(matches);
    if (index < 0) return undefined;
    const fault = this.#armed[index] as T;
    if (fault.times !== 'always') {
      if (fault.times <= 1) this.#armed.splice(index, 1);
      else this.#armed[index] = { ...fault, times: fault.times - 1 };
    }
    return { ...fault };
  }
}
