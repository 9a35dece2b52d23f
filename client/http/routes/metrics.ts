import type { FastifyInstance } from 'fastify';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ORDER_STATES } from '../../../domain/lifecycle/index.js';
import type { OrderStatistics } from '../../../infra/db/index.js';
import type { CommitmentFigure, OrderService } from '../../orders/index.js';

export interface ApiMetrics {
  registry: Registry;
  /** Counts and times every request by its route pattern (not its URL, so ticket ids do not explode the labels). */
  instrument(app: FastifyInstance): void;
}

/** Order figures as the gauges read them: one read of the records per scrape, shared by every gauge. */
type Statistics = () => Promise<OrderStatistics>;

/**
 * How long the commitments' figures are kept between scrapes: they sum every running order of every team, a heavier
 * read than the counts, and move only when an order is approved or bought.
 */
export const COMMITMENTS_METRICS_TTL_MS = 30_000;

/** Prometheus metrics (prom-client, one registry per server): the API's own traffic, and order figures read from Postgres at scrape time. */
export function createApiMetrics(service: OrderService): ApiMetrics {
  const registry = new Registry();
  const instrument = requestMetrics(registry);
  new Counter({
    name: 'mve_api_live_reads_passed_over_total',
    help: 'Reads of an order answered from the records because this server had MVE_LIVE_READS reads at Temporal already',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(service.readsPassedOver);
    },
  });
  let cached: { at: number; value: Promise<OrderStatistics> } | undefined;
  const statistics = () => {
    if (!cached || Date.now() - cached.at > 1_000) cached = { at: Date.now(), value: service.statistics() };
    return cached.value;
  };
  orderGauges(registry, statistics);
  provisioningGauges(registry, statistics);
  commitmentGauges(
    registry,
    keptFor(COMMITMENTS_METRICS_TTL_MS, () => service.commitmentFigures()),
  );
  return { registry, instrument };
}

/** The requests counter and latency histogram, and the hook that feeds them. */
function requestMetrics(registry: Registry): ApiMetrics['instrument'] {
  const requests = new Counter({
    name: 'mve_api_requests_total',
    help: 'HTTP API requests by route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'mve_api_request_duration_seconds',
    help: 'HTTP API latency by route',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  return (app) => {
    app.addHook('onResponse', async (request, reply) => {
      const route = request.routeOptions.url ?? 'unmatched';
      requests.inc({ method: request.method, route, status: String(reply.statusCode) });
      latency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    });
  };
}

/** Orders by state, the approvals waiting and the buy attempts by outcome. */
function orderGauges(registry: Registry, statistics: Statistics): void {
  new Gauge({
    name: 'mve_orders',
    help: 'Orders by state (from the records)',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      const { ordersByState } = await statistics();
      for (const state of ORDER_STATES) this.set({ state }, ordersByState[state] ?? 0);
    },
  });
  new Gauge({
    name: 'mve_approvals_pending',
    help: 'Orders awaiting approval',
    registers: [registry],
    async collect() {
      this.set((await statistics()).approvalsPending);
    },
  });
  new Gauge({
    name: 'mve_approvals_pending_oldest_seconds',
    help: 'Age of the oldest order awaiting approval since it last changed',
    registers: [registry],
    async collect() {
      this.set((await statistics()).oldestApprovalPendingSeconds);
    },
  });
  new Gauge({
    name: 'mve_buy_attempts',
    help: 'Buy attempts by outcome (in-flight: intent recorded, no outcome yet)',
    labelNames: ['outcome'],
    registers: [registry],
    async collect() {
      const { buyAttemptsByOutcome } = await statistics();
      for (const outcome of ['created', 'not-created', 'uncertain', 'in-flight'])
        this.set({ outcome }, buyAttemptsByOutcome[outcome] ?? 0);
    },
  });
}

/** The bought products by provisioning status, and how long provisioning takes. */
function provisioningGauges(registry: Registry, statistics: Statistics): void {
  new Gauge({
    name: 'mve_products',
    help: 'Bought products by the provisioning status last read (DEPLOYABLE, CONFIGURED, LIVE…)',
    labelNames: ['provisioning_status'],
    registers: [registry],
    async collect() {
      const { productsByProvisioningStatus } = await statistics();
      this.reset();
      for (const [status, count] of Object.entries(productsByProvisioningStatus))
        this.set({ provisioning_status: status }, count);
    },
  });
  new Gauge({
    name: 'mve_provisioning_oldest_seconds',
    help: 'Since the oldest order still in PROVISIONING was bought',
    registers: [registry],
    async collect() {
      this.set((await statistics()).oldestProvisioningSeconds);
    },
  });
  new Gauge({
    name: 'mve_provisioning_time_to_live_seconds',
    help: 'From the buy to LIVE, over the orders that went LIVE in the last 7 days (quantile 1: the longest)',
    labelNames: ['quantile'],
    registers: [registry],
    async collect() {
      const { timeToLiveSeconds } = await statistics();
      this.reset();
      const quantiles = { '0.5': timeToLiveSeconds.p50, '0.9': timeToLiveSeconds.p90, '1': timeToLiveSeconds.max };
      for (const [quantile, seconds] of Object.entries(quantiles))
        if (seconds !== null) this.set({ quantile }, seconds);
    },
  });
  new Gauge({
    name: 'mve_provisioning_live_orders_7d',
    help: 'Orders that went LIVE in the last 7 days (what the time-to-LIVE quantiles are taken over)',
    registers: [registry],
    async collect() {
      this.set((await statistics()).timeToLiveSeconds.count);
    },
  });
}

/** `read`'s answer, read again once `ms` have passed; a failed read is not kept, so the next scrape tries again. */
function keptFor<T>(ms: number, read: () => Promise<T>): () => Promise<T> {
  let kept: { at: number; value: Promise<T> } | undefined;
  return () => {
    if (!kept || Date.now() - kept.at > ms) {
      const value = read();
      const entry = { at: Date.now(), value };
      kept = entry;
      value.catch(() => {
        if (kept === entry) kept = undefined;
      });
    }
    return kept.value;
  };
}

/** Each environment's run-rate and approved-this-month per team and currency, this month (in the policy's time zone). */
function commitmentGauges(registry: Registry, figures: () => Promise<CommitmentFigure[]>): void {
  const gauges: Array<[name: string, help: string, amount: (figure: CommitmentFigure) => string]> = [
    [
      'mve_commitments_run_rate',
      'Monthly prices of each team\'s bought orders whose term runs now, in the currency (team="": no team)',
      (figure) => figure.runRate,
    ],
    [
      'mve_commitments_approved_this_month',
      'Monthly prices of each team\'s orders approved this month that still stand, in the currency (team="": no team)',
      (figure) => figure.approvedThisMonth,
    ],
  ];
  for (const [name, help, amount] of gauges) {
    new Gauge({
      name,
      help,
      labelNames: ['environment', 'team', 'currency'],
      registers: [registry],
      async collect() {
        const list = await figures();
        this.reset();
        for (const figure of list) {
          const labels = { environment: figure.environment, team: figure.team ?? '', currency: figure.currency };
          this.set(labels, Number(amount(figure)));
        }
      },
    });
  }
}

/** `/metrics`, Prometheus text. Open like /healthz: it carries counts, never an order's content. */
export function registerMetricsRoute(app: FastifyInstance, metrics: ApiMetrics): void {
  app.get(
    '/metrics',
    { schema: { summary: 'Prometheus metrics', tags: ['operations'], security: [] } },
    async (_request, reply) => {
      return reply.header('content-type', metrics.registry.contentType).send(await metrics.registry.metrics());
    },
  );
}
