/**
 * autocannon, loaded and typed for the benches: it ships no types (and @types/autocannon is not installed), so the
 * few options and fields the benches use are typed here.
 */
import { createRequire } from 'node:module';

interface Histogram {
  average: number;
  mean: number;
  p50: number;
  p99: number;
  total?: number;
}

/**
 * One request of a connection's sequence. `setupRequest` is called before each send with the connection's context
 * (a fresh copy each time the sequence starts again) and may answer null: the rest of the sequence is skipped and
 * the connection starts it again (the first request of a sequence may never answer null). `onResponse` is called
 * with each answer before the next request is set up.
 */
export interface AutocannonRequest<Context = Record<string, unknown>> {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest<Context>, context: Context) => AutocannonRequest<Context> | null;
  onResponse?: (status: number, body: string, context: Context) => void;
}

export interface AutocannonOptions<Context = Record<string, unknown>> {
  /** Several URLs: connection i goes to url[i % url.length]. */
  url: string | string[];
  connections: number;
  duration: number;
  /** Seconds before an unanswered request counts as a timeout (autocannon's default: 10). */
  timeout?: number;
  warmup?: { connections: number; duration: number };
  /** Requests a second each connection sends at most; left out: as fast as it is answered. */
  connectionRate?: number;
  headers?: Record<string, string>;
  requests?: Array<AutocannonRequest<Context>>;
}

export interface AutocannonResult {
  latency: Histogram;
  requests: Histogram & { total: number };
  /** Seconds. */
  duration: number;
  /** Requests that failed without an answer: connection errors and timeouts. */
  errors: number;
  timeouts: number;
  non2xx: number;
  '2xx': number;
  statusCodeStats: Record<string, { count: number }>;
}

/** The connection a response came on: its iterator's current request is the one answered. */
export interface AutocannonClient<Context = Record<string, unknown>> {
  requestIterator: { currentRequest: AutocannonRequest<Context> };
}

/** Without a callback autocannon answers a thenable event emitter: 'response' gives each response's time in ms (float). */
export type AutocannonRun<Context = Record<string, unknown>> = Promise<AutocannonResult> & {
  on(
    event: 'response',
    listener: (client: AutocannonClient<Context>, statusCode: number, bytes: number, milliseconds: number) => void,
  ): void;
};

export const autocannon = createRequire(import.meta.url)('autocannon') as <Context = Record<string, unknown>>(
  options: AutocannonOptions<Context>,
) => AutocannonRun<Context>;
