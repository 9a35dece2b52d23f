/**
 * Orders as the benches submit them: as the HTTP API does (the ticket registered, then the workflow started), as
 * `alice`, on the simulator's kind map, the README's K09 example with a ticket and a size of the bench's own.
 */
import { readFile } from 'node:fs/promises';
import type { Client } from '@temporalio/client';
import { z } from 'zod';
import { OrderClient, OrderIntake } from '../client/orders/index.js';
import type { Keyring } from '../codec/index.js';
import type { Repository } from '../infra/db/index.js';
import { SIM_KIND_MAP } from '../tooling/sim/index.js';

/** Sydney, 12 months, at the simulator's prices: under the default staging policy's auto-approval line. */
export const AUTO_APPROVED_SIZE = 'MVE 2/8';

export interface BenchIntake {
  orders: OrderClient;
  /** Submits the example order with this ticket and size; its order id. */
  submit(ticketId: string, size: string): Promise<string>;
  /** Submits an auto-approved order and waits for it to end BOUGHT (anything else is a defect: it throws). */
  buyAutoApproved(ticketId: string): Promise<string>;
}

export async function openBenchIntake(options: {
  client: Client;
  taskQueue: string;
  repository: Repository;
  /** The action keys: the request fingerprint is made with them. */
  actionKeys: Keyring;
}): Promise<BenchIntake> {
  const { client, taskQueue, repository, actionKeys } = options;
  const orders = new OrderClient({ client, taskQueue, kindMap: SIM_KIND_MAP, tickets: repository });
  const intake = new OrderIntake({ orders, repository, fingerprintKeys: actionKeys, kindMap: SIM_KIND_MAP });
  const example = await readExampleOrder();
  const submit = async (ticketId: string, size: string) =>
    (await intake.submit({ ...example, ticketId, size }, 'alice')).orderId;
  return {
    orders,
    submit,
    async buyAutoApproved(ticketId) {
      const orderId = await submit(ticketId, AUTO_APPROVED_SIZE);
      const outcome = await orders.result(orderId);
      if (outcome.state !== 'BOUGHT') throw new Error(`${ticketId} ended ${outcome.state}: ${outcome.reason}`);
      return orderId;
    },
  };
}

/** examples/k09-license-file-firewall.json: an order request every bench submits, with a ticket of its own. */
export async function readExampleOrder(): Promise<Record<string, unknown>> {
  const text = await readFile(new URL('../examples/k09-license-file-firewall.json', import.meta.url), 'utf8');
  return z.record(z.string(), z.unknown()).parse(JSON.parse(text));
}
