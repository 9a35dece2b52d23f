/**
 * Orders on a running bench stack (./stack.ts), submitted as the HTTP API submits them (the ticket registered, then
 * the workflow started; no HTTP round trip measured) with dev's own keys: auto-approved orders timed from submit to
 * BOUGHT, orders parked for a finance approval, and what visibility counts and lists of them (./visibility.ts). Every
 * order the bench makes ends BOUGHT or waits; one that ended otherwise is a defect, and fails the bench rather than
 * leaving it waiting for ever.
 */
import { Client, Connection } from '@temporalio/client';
import { resolveActionKeys } from '../../config/action-keys.js';
import { connectDatabase, createRepository } from '../../infra/db/index.js';
import { encryptingDataConverter, resolveKeyring } from '../../codec/index.js';
import { openBenchIntake, type BenchIntake } from '../intake.js';
import { percentile, pool } from '../stats.js';
import type { ScaleStack } from './stack.js';
import { countWaiting, failOnEndedOrders, listWaiting } from './visibility.js';

const PARK_CONCURRENCY = 50;
const REPORT_EVERY_MS = 10_000;
/** Over the auto-approval line: one finance approver decides. */
const PARKED_SIZE = 'MVE 16/64';

export class ScaleOrders {
  /** Parked in order, oldest first: the oldest are the first the worker's cache evicts. */
  readonly parkedTickets: string[] = [];
  /** The order of each parked ticket. */
  readonly #orderIds = new Map<string, string>();
  #ticket = 0;

  private constructor(
    private readonly client: Client,
    private readonly intake: BenchIntake,
    private readonly log: (line: string) => void,
    readonly close: () => Promise<void>,
  ) {}

  /** `log` hears how parking goes (every 10 s). */
  static async connect(stack: ScaleStack, log: (line: string) => void): Promise<ScaleOrders> {
    const { state, dataDir } = stack.dev;
    const keyring = await resolveKeyring({ env: {}, devDataDir: dataDir });
    const connection = await Connection.connect({ address: state.temporal.address });
    const client = new Client({
      connection,
      namespace: state.temporal.namespace,
      dataConverter: encryptingDataConverter(keyring),
    });
    const sql = connectDatabase(state.databaseUrl);
    const intake = await openBenchIntake({
      client,
      taskQueue: state.temporal.taskQueue,
      repository: createRepository(sql),
      actionKeys: await resolveActionKeys({ env: {}, devDataDir: dataDir }),
    });
    return new ScaleOrders(client, intake, log, async () => {
      await connection.close();
      await sql.end({ timeout: 5 });
    });
  }

  /** Auto-approved orders (Sydney MVE 2/8, under the auto-approval line), submitted to BOUGHT. */
  async autoOrders(total: number, concurrency: number): Promise<{ perSecond: number; p50: number }> {
    const times: number[] = [];
    const started = performance.now();
    await pool(total, concurrency, async () => {
      const ticketId = this.#newTicket('AUTO');
      const t0 = performance.now();
      await this.intake.buyAutoApproved(ticketId);
      times.push(performance.now() - t0);
    });
    times.sort((a, b) => a - b);
    return { perSecond: total / ((performance.now() - started) / 1000), p50: percentile(times, 50) };
  }

  /**
   * Orders that need one finance approver (MVE 16/64 is over the auto-approval line); resolves once all wait, with
   * the time from the first submit until then.
   */
  async park(count: number): Promise<{ seconds: number }> {
    const parkedBefore = this.parkedTickets.length;
    const started = performance.now();
    let lastReport = started;
    const rate = (done: number) => (done / ((performance.now() - started) / 1000)).toFixed(1);
    const submitted = () => this.parkedTickets.length - parkedBefore;
    const due = () => {
      if (performance.now() - lastReport <= REPORT_EVERY_MS) return false;
      lastReport = performance.now();
      return true;
    };
    await pool(count, PARK_CONCURRENCY, async () => {
      const ticketId = this.#newTicket('PARK');
      this.#orderIds.set(ticketId, await this.intake.submit(ticketId, PARKED_SIZE));
      this.parkedTickets.push(ticketId);
      if (due()) this.log(`  submitted ${submitted()}/${count} (${rate(submitted())}/s)`);
    });
    for (;;) {
      // Every order the bench parked and did not approve waits. Counted against those, not against the count before
      // parking: visibility may still count an order approved just before as waiting, and then never reach it.
      const waiting = (await countWaiting(this.client)) - parkedBefore;
      if (waiting >= count) break;
      if (due()) {
        this.log(`  ${waiting}/${count} awaiting approval`);
        await failOnEndedOrders(this.client);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const seconds = (performance.now() - started) / 1000;
    this.log(`parked ${count} orders in ${seconds.toFixed(0)} s (${rate(count)}/s)`);
    return { seconds };
  }

  /** Resolves once the parked order of `ticketId` has ended BOUGHT; throws if it ended otherwise. */
  async untilBought(ticketId: string): Promise<void> {
    const outcome = await this.intake.orders.result(this.#orderIds.get(ticketId)!);
    if (outcome.state !== 'BOUGHT') throw new Error(`${ticketId} ended ${outcome.state}: ${outcome.reason}`);
  }

  /** The waiting orders through visibility, a page of `pageSize` or every page; the time it took. */
  listWaiting(pageSize: number, allPages: boolean): Promise<{ ms: number; listed: number }> {
    return listWaiting(this.client, pageSize, allPages);
  }

  #newTicket(kind: string): string {
    return `SCALE-${kind}-${process.pid}-${++this.#ticket}`;
  }
}
