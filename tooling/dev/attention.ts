import { orderIdOfWorkflow } from '../../domain/index.js';
import { openDatabase, type Sql } from '../../infra/db/index.js';
import {
  ATTENTION_STATES,
  describeAttention,
  opsUserOf,
  WAITING_STATES,
  type AttentionEvent,
  type AttentionPlaces,
  type AttentionState,
} from './attention-lines.js';
import type { DevDatabase } from './database.js';
import type { EarlierOrders } from './earlier-orders.js';
import { STOP_STEPS, type DevStops } from './stops.js';

export interface AttentionOptions {
  database: Pick<DevDatabase, 'url' | 'users'>;
  /** The HTTP API, whose console has each order's page. */
  api: { url: string };
  simulator: { url: string } | undefined;
  /** Orders the retired embedded server strands: the summary warns of them, and they wait for nobody here. */
  earlier: Pick<EarlierOrders, 'stranded'> | undefined;
  log: (line: string) => void;
  stops: DevStops;
  /** How often the records are read (default 1 s). */
  intervalMs?: number;
}

/**
 * Tells the dev terminal, one line each, the order events that need a person (attention-lines.ts), read from the
 * records: the journal of order events in PostgreSQL, which every worker writes, whichever worker ran the order.
 * First the orders that already wait for a person (left by an earlier start), then each new event as it is recorded.
 * Stops after the worker, telling what its last tasks recorded.
 */
export async function followAttention(options: AttentionOptions): Promise<void> {
  const sql = await openDatabase(options.database.url, { maxConnections: 1 });
  const places: AttentionPlaces = {
    consoleUrl: options.api.url,
    simulatorUrl: options.simulator?.url,
    users: options.database.users,
  };
  let follower: AttentionFollower;
  try {
    follower = new AttentionFollower(sql, places, options);
    await follower.begin(options.earlier?.stranded.map((order) => order.workflowId) ?? []);
  } catch (error) {
    await sql.end({ timeout: 1 });
    throw error;
  }
  options.stops.add(STOP_STEPS.attention, () => follower.stop());
}

/**
 * An event is stamped (`recorded_at`) when its statement begins and seen once it commits, a moment later: the events
 * of this last stretch are read again, and told only once (each journal write is a statement of its own).
 */
const LATE_COMMIT_MS = 5_000;
/** Events told one by one at each read; the rest of a burst (a bench parking thousands) as a count per state. */
const BURST_SHOWN = 5;
/** The orders already waiting at a start told one by one; beyond, a count and where to list them. */
const CARRIED_OVER_SHOWN = 20;

interface EventRow {
  workflow_id: string;
  sequence: number;
  to_status: AttentionState;
  reason: string | null;
  details: Record<string, unknown> | null;
  at: Date;
  recorded_at: Date;
  requested_by: string;
  quote_monthly_rate: number | null;
  quote_currency: string | null;
  product_technical_service_uid: string | null;
}

type WaitingRow = EventRow & { waiting: string };

class AttentionFollower {
  /** Events told (or found at the start), by `workflow id#sequence`, with when each was recorded. */
  private readonly told = new Map<string, number>();
  /** The newest `recorded_at` read so far (the database's clock). */
  private newest = 0;
  private carriedOver: WaitingRow[] = [];
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> = Promise.resolve();
  private failing = false;
  private stopped = false;

  constructor(
    private readonly sql: Sql,
    private readonly places: AttentionPlaces,
    private readonly options: Pick<AttentionOptions, 'log' | 'intervalMs'>,
  ) {}

  /**
   * Reads what waits already (but the `stranded` workflows) and marks the recent events as told; the first read, a
   * moment later (after the start-up summary), tells them.
   */
  async begin(stranded: readonly string[]): Promise<void> {
    const [{ now }] = await this.sql<Array<{ now: Date }>>`SELECT now() AS now`;
    this.newest = now.getTime();
    for (const row of await this.eventsSince(this.newest - LATE_COMMIT_MS)) this.told.set(keyOf(row), this.newest);
    this.carriedOver = await this.sql<WaitingRow[]>`
      SELECT e.*, o.requested_by, o.quote_monthly_rate::float8 AS quote_monthly_rate, o.quote_currency,
             o.product_technical_service_uid, count(*) OVER ()::text AS waiting
      FROM orders o JOIN order_events e ON e.workflow_id = o.workflow_id AND e.sequence = o.last_event_sequence
      WHERE o.status = ANY(${[...WAITING_STATES]}) AND e.to_status = o.status
        AND NOT o.workflow_id = ANY(${[...stranded]}::text[])
      ORDER BY e.at LIMIT ${CARRIED_OVER_SHOWN}`;
    this.schedule();
  }

  /** Tells what was recorded since the last read, then closes its connection. */
  async stop(): Promise<string | void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.reading;
    await this.read();
    await this.sql.end({ timeout: 2 });
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.reading = this.read().finally(() => this.schedule());
    }, this.options.intervalMs ?? 1_000);
  }

  private async read(): Promise<void> {
    try {
      this.tellCarriedOver();
      const rows = await this.eventsSince(this.newest - LATE_COMMIT_MS);
      const fresh = rows.filter((row) => !this.told.has(keyOf(row)));
      for (const row of rows) this.newest = Math.max(this.newest, row.recorded_at.getTime());
      for (const row of fresh) this.told.set(keyOf(row), row.recorded_at.getTime());
      for (const row of fresh.slice(0, BURST_SHOWN)) this.options.log(describeAttention(eventOf(row), this.places));
      if (fresh.length > BURST_SHOWN) this.options.log(describeBurst(fresh.slice(BURST_SHOWN), this.places));
      for (const [key, recorded] of this.told) if (recorded < this.newest - 2 * LATE_COMMIT_MS) this.told.delete(key);
      if (this.failing) this.options.log('[order] the order events can be read again');
      this.failing = false;
    } catch (error) {
      // PostgreSQL gone or restarting: said once; dev itself stops when its PostgreSQL ends.
      if (!this.failing) this.options.log(`[order] cannot read the order events: ${(error as Error).message}`);
      this.failing = true;
    }
  }

  private tellCarriedOver(): void {
    const waiting = this.carriedOver.splice(0);
    for (const row of waiting) {
      this.options.log(describeAttention({ ...eventOf(row), since: row.at.toISOString() }, this.places));
    }
    const total = Number(waiting[0]?.waiting ?? 0);
    if (total > waiting.length) {
      this.options.log(
        `[order] … and ${total - waiting.length} more orders waiting since an earlier start: \`npx mve-orders orders --status AWAITING_APPROVAL --as ${opsUserOf(this.places)}\` (or BUY_UNCERTAIN) lists them`,
      );
    }
  }

  private eventsSince(sinceMs: number): Promise<EventRow[]> {
    return this.sql<EventRow[]>`
      SELECT e.*, o.requested_by, o.quote_monthly_rate::float8 AS quote_monthly_rate, o.quote_currency,
             o.product_technical_service_uid
      FROM order_events e JOIN orders o ON o.workflow_id = e.workflow_id
      WHERE e.recorded_at > ${new Date(sinceMs)} AND e.to_status = ANY(${[...ATTENTION_STATES]})
      ORDER BY e.recorded_at, e.workflow_id, e.sequence`;
  }
}

/** `[order] … and 95 more events that need a person (AWAITING_APPROVAL 95): …` */
function describeBurst(rows: readonly EventRow[], places: AttentionPlaces): string {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.to_status, (counts.get(row.to_status) ?? 0) + 1);
  const states = [...counts.keys()];
  return (
    `[order] … and ${rows.length} more order events that need a person (${states.map((state) => `${state} ${counts.get(state)}`).join(', ')}): ` +
    `\`npx mve-orders orders --status ${states[0]} --as ${opsUserOf(places)}\` lists those in ${states[0]}`
  );
}

const keyOf = (row: EventRow) => `${row.workflow_id}#${row.sequence}`;

function eventOf(row: EventRow): AttentionEvent {
  return {
    orderId: orderIdOfWorkflow(row.workflow_id),
    state: row.to_status,
    reason: row.reason ?? '',
    details: row.details ?? {},
    requestedBy: row.requested_by,
    quote:
      row.quote_monthly_rate === null || row.quote_currency === null
        ? undefined
        : { monthlyRate: row.quote_monthly_rate, currency: row.quote_currency },
    productUid: row.product_technical_service_uid ?? undefined,
  };
}
