/**
 * Orders on a running bench stack (./stack.ts), submitted as the HTTP API submits them (the ticket registered, then
 * the workflow started; no HTTP round trip measured) with dev's own keys: auto-approved orders timed from submit to
 * BOUGHT, orders parked for a finance approval, and what visibility counts and lists of them. Every order the bench
 * makes ends BOUGHT or waits; one that ended otherwise is a defect, and fails the bench rather than leaving it waiting
 * for ever.
 */
import { readFile } from 'node:fs/promises';
import { Client, Connection } from '@temporalio/client';
import { OrderClient, OrderIntake } from '../../client/orders/index.js';
import { resolveActionKeys } from '../../config/action-keys.js';
import { connectDatabase, createRepository } from '../../infra/db/index.js';
import { encryptingDataConverter, resolveKeyring } from '../../codec/index.js';
import { SIM_KIND_MAP } from '../../tooling/sim/index.js';
import { percentile, pool } from '../stats.js';
import type { ScaleStack } from './stack.js';

export const WAITING_QUERY = `OrderStatus = 'AWAITING_APPROVAL'`;
const PARK_CONCURRENCY = 50;
const REPORT_EVERY_MS = 10_000;

/** `log` hears how parking goes (every 10 s). */
export async function connectOrders(stack: ScaleStack, log: (line: string) => void) {
  const { state, dataDir } = stack.dev;
  const keyring = await resolveKeyring({ env: {}, devDataDir: dataDir });
  const connection = await Connection.connect({ address: state.temporal.address });
  const namespace = state.temporal.namespace;
  const client = new Client({ connection, namespace, dataConverter: encryptingDataConverter(keyring) });
  const sql = connectDatabase(state.databaseUrl);
  const repository = createRepository(sql);
  const actionKeys = await resolveActionKeys({ env: {}, devDataDir: dataDir });
  const orders = new OrderClient({
    client,
    taskQueue: state.temporal.taskQueue,
    kindMap: SIM_KIND_MAP,
    tickets: repository,
  });
  const intake = new OrderIntake({ orders, repository, fingerprintKeys: actionKeys, kindMap: SIM_KIND_MAP });
  const submit = (body: Record<string, unknown>) => intake.submit(body, 'alice');
  const example = JSON.parse(
    await readFile(new URL('../../examples/k09-license-file-firewall.json', import.meta.url), 'utf8'),
  );
  let ticket = 0;
  const newTicket = (kind: string) => `SCALE-${kind}-${process.pid}-${++ticket}`;
  /** Parked in order, oldest first: the oldest are the first the worker's cache evicts. */
  const parkedTickets: string[] = [];

  /** Auto-approved orders (Sydney MVE 2/8, under the auto-approval line), submitted to BOUGHT. */
  async function autoOrders(total: number, concurrency: number): Promise<{ perSecond: number; p50: number }> {
    const times: number[] = [];
    const started = performance.now();
    await pool(total, concurrency, async () => {
      const ticketId = newTicket('AUTO');
      const t0 = performance.now();
      const { orderId } = await submit({ ...example, ticketId, size: 'MVE 2/8' });
      const outcome = await orders.result(orderId);
      if (outcome.state !== 'BOUGHT') throw new Error(`${ticketId} ended ${outcome.state}: ${outcome.reason}`);
      times.push(performance.now() - t0);
    });
    times.sort((a, b) => a - b);
    return { perSecond: total / ((performance.now() - started) / 1000), p50: percentile(times, 50) };
  }

  /**
   * Orders that need one finance approver (MVE 16/64 is over the auto-approval line); resolves once all wait, with
   * the time from the first submit until then.
   */
  async function park(count: number): Promise<{ seconds: number }> {
    const waitingBefore = await countWaiting();
    const started = performance.now();
    let lastReport = started;
    const rate = (done: number) => (done / ((performance.now() - started) / 1000)).toFixed(1);
    await pool(count, PARK_CONCURRENCY, async () => {
      const ticketId = newTicket('PARK');
      await submit({ ...example, ticketId, size: 'MVE 16/64' });
      parkedTickets.push(ticketId);
      if (performance.now() - lastReport > REPORT_EVERY_MS) {
        lastReport = performance.now();
        log(`  submitted ${parkedTickets.length - waitingBefore}/${count} (${rate(parkedTickets.length)}/s)`);
      }
    });
    for (;;) {
      const waiting = (await countWaiting()) - waitingBefore;
      if (waiting >= count) break;
      if (performance.now() - lastReport > REPORT_EVERY_MS) {
        lastReport = performance.now();
        log(`  ${waiting}/${count} awaiting approval`);
        await failOnEndedOrders();
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    const seconds = (performance.now() - started) / 1000;
    log(`parked ${count} orders in ${seconds.toFixed(0)} s (${rate(count)}/s)`);
    return { seconds };
  }

  async function failOnEndedOrders(): Promise<void> {
    const ended: string[] = [];
    for await (const order of client.workflow.list({
      query: `ExecutionStatus != 'Running' AND OrderStatus != 'BOUGHT'`,
    }))
      ended.push(`${order.workflowId} (${order.searchAttributes.OrderStatus?.[0] ?? order.status.name})`);
    if (ended.length)
      throw new Error(`orders ended neither bought nor waiting for approval: ${ended.slice(0, 5).join(', ')}`);
  }

  async function countWaiting(): Promise<number> {
    const { count } = await client.workflowService.countWorkflowExecutions({ namespace, query: WAITING_QUERY });
    return Number(count);
  }

  async function listWaiting(pageSize: number, allPages: boolean): Promise<{ ms: number; listed: number }> {
    const t0 = performance.now();
    let listed = 0;
    let nextPageToken: Uint8Array | undefined;
    do {
      const page = await client.workflowService.listWorkflowExecutions({
        namespace,
        query: WAITING_QUERY,
        pageSize,
        nextPageToken,
      });
      listed += page.executions.length;
      nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
    } while (allPages && nextPageToken);
    return { ms: performance.now() - t0, listed };
  }

  const close = async () => {
    await connection.close();
    await sql.end({ timeout: 5 });
  };
  return { autoOrders, park, parkedTickets, listWaiting, close };
}
