/**
 * The HTTP bench's two ways of measuring a route: autocannon keeping connections busy for a while (GET), and a timed
 * loop of real calls one at a time (the approve, which can be sent once per order).
 */
import { z } from 'zod';
import { autocannon, type AutocannonOptions } from '../autocannon.js';
import { percentile } from '../stats.js';
import { approvalsOf, type Call } from './orders.js';
import type { HttpStack } from './stack.js';

export const CONNECTIONS = 10;

/** A route's figures, before they are set against /healthz's. */
export interface Measured {
  name: string;
  method: string;
  how: string;
  requests: number;
  /** Median latency, ms. */
  p50Ms: number;
  p99Ms: number;
  /** Requests per second over the run (autocannon: total / duration); null for the sequential approve loop. */
  requestsPerSecond: number | null;
  /** The median of the per-second request counts (autocannon only). */
  medianRequestsPerSecond: number | null;
  failures: number;
}

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * `requests` on `CONNECTIONS` connections for `durationSeconds`. Latencies are taken from autocannon's per-response
 * event (sub-millisecond; its own histogram counts whole milliseconds, which rounds /healthz to 0), 2xx responses
 * only, after a 2 s warm-up that is not counted.
 */
export async function loadRoute(
  target: { apiUrl: string; durationSeconds: number; log: (line: string) => void },
  name: string,
  requests: AutocannonOptions['requests'],
  headers: Record<string, string> = {},
): Promise<Measured> {
  const { apiUrl, durationSeconds, log } = target;
  log(`autocannon: ${name} (${CONNECTIONS} connections, ${durationSeconds} s after a 2 s warm-up)`);
  const latencies: number[] = [];
  const running = autocannon({
    url: apiUrl,
    connections: CONNECTIONS,
    duration: durationSeconds,
    warmup: { connections: CONNECTIONS, duration: 2 },
    headers,
    ...(requests ? { requests } : {}),
  });
  running.on('response', (_client, statusCode, _bytes, milliseconds) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(milliseconds);
  });
  const result = await running;
  latencies.sort((a, b) => a - b);
  return {
    name,
    method: 'GET',
    how: `autocannon in this process, ${CONNECTIONS} connections, ${durationSeconds} s (+2 s warm-up)`,
    requests: result.requests.total,
    p50Ms: round(percentile(latencies, 50), 3),
    p99Ms: round(percentile(latencies, 99), 3),
    requestsPerSecond: round(result.requests.total / result.duration, 0),
    medianRequestsPerSecond: result.requests.p50,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}

const approveAnswer = z.object({ approvedBy: z.array(z.unknown()) });

/** Approve: each of `tickets` still waiting, once, one call at a time; the quote is read beforehand. */
export async function measureApprovals(
  call: Call,
  tokens: HttpStack['tokens'],
  tickets: string[],
  log: (line: string) => void,
): Promise<Measured> {
  const toApprove = (await approvalsOf(call, tokens)).filter((item) => tickets.includes(item.ticketId));
  log(`approving ${toApprove.length} orders, one HTTP call at a time`);
  const approveMs: number[] = [];
  let failures = 0;
  for (const item of toApprove) {
    const t0 = performance.now();
    try {
      const { monthlyRate, currency } = item;
      const answer = approveAnswer.safeParse(
        await call('POST', `/api/v1/orders/${item.ticketId}/approve`, tokens.fiona, { monthlyRate, currency }),
      );
      if (!answer.success || !answer.data.approvedBy.includes('fiona')) failures++;
    } catch (error) {
      failures++;
      log(error instanceof Error ? error.message : String(error));
    }
    approveMs.push(performance.now() - t0);
  }
  approveMs.sort((a, b) => a - b);
  return {
    name: 'POST /api/v1/orders/{ticketId}/approve',
    method: 'POST',
    how: `timed loop of real HTTP calls, sequential, ${toApprove.length} orders once each`,
    requests: approveMs.length,
    p50Ms: round(percentile(approveMs, 50)),
    p99Ms: round(percentile(approveMs, 99)),
    requestsPerSecond: null,
    medianRequestsPerSecond: null,
    failures,
  };
}
