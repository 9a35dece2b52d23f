import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowExecutionInfo,
  type WorkflowHandle,
} from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { Keyring } from '../../codec/index.js';
import { orderWorkflowId, type Issue, type KindMap } from '../../domain/index.js';
import { CLOSED_IN_TEMPORAL, type ClosedInTemporal, type TicketsRepository } from '../../infra/db/index.js';
import type { OrderRequest } from '../../schemas/index.js';
import {
  approveUpdate,
  cancelUpdate,
  rejectUpdate,
  resolveBuyUpdate,
  statusQuery,
  type CancelInput,
  type OrderStatusView,
  type ResolveBuyInput,
  type VoteInput,
  type VoteResult,
} from '../../workflows/order/messages.js';
import { signAction, type Signed, type SignedActionName } from '../../workflows/order/signed-action.js';
import { FINAL_STATES, type OrderState } from '../../domain/lifecycle/index.js';
import { ENVIRONMENT, ORDER_STATUS, TICKET_ID } from '../../workflows/order/search-attributes.js';
import type { OrderOutcome, orderWorkflow } from '../../workflows/order/workflow.js';
import { orderTaskQueue } from '../../config/temporal.js';

/** How long a read or an action waits for a just-submitted order's first step to claim its ticket. */
const CLAIM_WAIT_MS = 5_000;

/** The request broke rules: nothing was started. */
export class OrderRequestError extends Error {
  override readonly name = 'OrderRequestError';
  constructor(readonly issues: Issue[]) {
    super(`the order request is invalid:\n${issues.map((issue) => `  ${issue.path}: ${issue.message}`).join('\n')}`);
  }
}

/** The order refused a message (a vote, a cancel, a resolution): `code` says why, and nothing changed. */
export class OrderRefusedError extends Error {
  override readonly name = 'OrderRefusedError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class OrderNotFoundError extends Error {
  override readonly name = 'OrderNotFoundError';
  constructor(readonly orderId: string) {
    super(`no order ${orderId}`);
  }
}

export class DuplicateOrderError extends Error {
  override readonly name = 'DuplicateOrderError';
  constructor(readonly ticketId: string) {
    super(`ticket ${ticketId} already has an order; one ticket is one order (see \`mve-orders status ${ticketId}\`)`);
  }
}

/**
 * An order by its id; or by its id with the run that claimed its ticket, when the caller has just read the ticket (the
 * order service, which looks the name up there first): the claim is then not read again.
 */
export type OrderRef = string | { orderId: string; firstRunId: string };

export interface SubmittedOrder {
  workflowId: string;
  orderId: string;
  ticketId: string;
  warnings: Issue[];
}

export interface OrderClientOptions {
  client: Client;
  /** The base task queue (TEMPORAL_TASK_QUEUE); each environment's orders run on their own queue. */
  taskQueue: string;
  kindMap?: KindMap;
  /**
   * MVE_ACTION_KEY: signs votes, cancels and resolutions so the workflow accepts them. Only the HTTP API
   * (and tests standing in for it) hold it; without it this client can submit and read, not act.
   */
  actionKeys?: Keyring;
  /**
   * The tickets the API registered: an order is the chain of runs that claimed its ticket, so actions are signed for
   * and sent to that chain, and a status is believed only from it.
   */
  tickets: Pick<TicketsRepository, 'getTicketByWorkflow' | 'markClosedInTemporal'>;
  /**
   * The time an action is signed at (epoch ms); the workflow refuses one much older than its own clock. Default: the
   * wall clock. Tests that skip the server's time ahead give the server's time.
   */
  clock?: () => number | Promise<number>;
}

export interface StartOptions {
  /** The authenticated submitter, recorded on the order. */
  submittedBy: string;
  /** The order id the intake registered the ticket under (`orderIdFor`, or a ticket id from before namespaces). */
  orderId: string;
}

/**
 * Everything the engine does with orders over the Temporal client (with the encrypting codec). The approval
 * policy is not the submitter's to give: the workers hold it and each order reads it when it starts.
 */
/** The failure type of Temporal's outcome of an update that no worker processed (nothing was decided). */
export const UNPROCESSED_UPDATE = 'UnprocessedUpdate';

export class OrderClient {
  constructor(private readonly options: OrderClientOptions) {}

  /**
   * Starts the workflow of a request the intake has checked and registered (OrderIntake.submit): the workflow's first
   * step refuses to go on for a ticket that was not registered with this very request and submitter.
   */
  async start(request: OrderRequest, { submittedBy, orderId }: StartOptions): Promise<SubmittedOrder> {
    const workflowId = orderWorkflowId(orderId);
    try {
      await this.options.client.workflow.start<typeof orderWorkflow>('orderWorkflow', {
        workflowId,
        taskQueue: orderTaskQueue(this.options.taskQueue, request.environment),
        args: [{ request, submittedBy }],
        // A ticket is one order forever, whatever became of it (a business FAILED ends the workflow COMPLETED, and a
        // terminated run must not be bought again): a failed order is ordered again under a new ticket.
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        workflowIdConflictPolicy: 'FAIL',
        // Listed by ticket, environment and status from its first moment; the workflow keeps the status current.
        typedSearchAttributes: [
          { key: TICKET_ID, value: request.ticketId },
          { key: ENVIRONMENT, value: request.environment },
          { key: ORDER_STATUS, value: 'RECEIVED' },
        ],
      });
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) throw new DuplicateOrderError(request.ticketId);
      throw error;
    }
    return { workflowId, orderId, ticketId: request.ticketId, warnings: [] };
  }

  /**
   * The order's status, from the chain of runs that claimed its ticket (any other run of its workflow id is not it).
   * An order whose first step has not run yet (no worker has taken it) is NOT_STARTED, without waiting on a query.
   */
  async status(order: OrderRef): Promise<OrderStatusView> {
    const { orderId, firstRunId } = await this.claimOf(order);
    const view = await this.call(orderId, (handle) => handle.query(statusQuery));
    if (view.firstRunId !== undefined && view.firstRunId !== firstRunId) throw new OrderNotFoundError(orderId);
    return view;
  }

  /** Waits for the order to end and returns how it ended. */
  async result(orderId: string): Promise<OrderOutcome> {
    return this.call(orderId, (handle) => handle.result() as Promise<OrderOutcome>);
  }

  /** Each action takes `sending`, called right before the update leaves: the API marks it sent (or stops it there). */
  async approve(order: OrderRef, vote: VoteInput, sending?: () => void): Promise<VoteResult> {
    return this.act(order, 'approve', vote, sending, (handle, signed) =>
      handle.executeUpdate(approveUpdate, { args: [signed] }),
    );
  }

  async reject(order: OrderRef, vote: VoteInput, sending?: () => void): Promise<VoteResult> {
    return this.act(order, 'reject', vote, sending, (handle, signed) =>
      handle.executeUpdate(rejectUpdate, { args: [signed] }),
    );
  }

  async cancel(orderId: string, cancel: CancelInput, sending?: () => void): Promise<OrderState> {
    return this.act(orderId, 'cancel', cancel, sending, (handle, signed) =>
      handle.executeUpdate(cancelUpdate, { args: [signed] }),
    );
  }

  /** Settles the uncertain buy `resolution.attempt` names; without it, the order's latest attempt (read now). */
  async resolveBuy(
    orderId: string,
    resolution: DistributiveOmit<ResolveBuyInput, 'attempt'> & { attempt?: number },
    sending?: () => void,
  ): Promise<OrderState> {
    const attempt = resolution.attempt ?? (await this.status(orderId)).buyAttempts;
    return this.act(orderId, 'resolve-buy', { ...resolution, attempt }, sending, (handle, signed) =>
      handle.executeUpdate(resolveBuyUpdate, { args: [signed] }),
    );
  }

  /** Orders matching a visibility query over OrderStatus, TicketId, Environment, MonthlyRate, StartTime… */
  async list(query?: string): Promise<WorkflowExecutionInfo[]> {
    const filter = `WorkflowType = 'orderWorkflow'${query ? ` AND (${query})` : ''}`;
    const found: WorkflowExecutionInfo[] = [];
    for await (const execution of this.options.client.workflow.list({ query: filter })) found.push(execution);
    return found;
  }

  /**
   * Signs an action for the chain of runs that claimed the ticket and sends it to that chain only (a run started
   * under the same workflow id some other way never receives it).
   */
  private async act<F extends object, T>(
    order: OrderRef,
    action: SignedActionName,
    fields: F,
    sending: (() => void) | undefined,
    send: (handle: WorkflowHandle, signed: Signed<F>) => Promise<T>,
  ): Promise<T> {
    const keys = this.options.actionKeys;
    if (!keys)
      throw new Error(
        'this order client holds no action key (MVE_ACTION_KEY): votes, cancels and resolutions go through the HTTP API',
      );
    const { orderId, firstRunId } = await this.claimOf(order);
    const key = { id: keys.currentKeyId, key: keys.currentKey().toString('base64') };
    const workflowId = orderWorkflowId(orderId);
    const issuedAt = this.options.clock ? await this.options.clock() : Date.now();
    const signed = signAction(
      key,
      { workflowId, firstRunId },
      action,
      fields,
      issuedAt,
      randomBytes(16).toString('base64url'),
    );
    const handle = this.options.client.workflow.getHandle(workflowId, undefined, { firstExecutionRunId: firstRunId });
    return this.update(orderId, () => {
      sending?.();
      return send(handle, signed);
    });
  }

  /**
   * An action reached an order whose workflow has closed. An order that ended by itself is in a final state; one
   * whose workflow Temporal ended (terminated, timed out) is marked so on its ticket, for ops, and says so.
   */
  private async closedRefusal(orderId: string, state: OrderState): Promise<OrderRefusedError> {
    const ended = `the order has ended (${state}); it takes no more decisions`;
    if (FINAL_STATES.has(state)) return new OrderRefusedError('ORDER_CLOSED', ended);
    const how = (await this.handle(orderId).describe()).status.name;
    if (!(CLOSED_IN_TEMPORAL as readonly string[]).includes(how)) return new OrderRefusedError('ORDER_CLOSED', ended);
    await this.options.tickets.markClosedInTemporal({
      workflowId: orderWorkflowId(orderId),
      how: how as ClosedInTemporal,
    });
    return new OrderRefusedError(
      'ORDER_CLOSED',
      `the order's workflow was ${how.toLowerCase().replace('_', ' ')} in Temporal while the order was ${state}; it takes no more decisions (order again under a new ticket)`,
    );
  }

  /**
   * The run that claimed the ticket. An order submitted a moment ago is claimed by its first step within
   * milliseconds when a worker runs: it is waited for up to `CLAIM_WAIT_MS`; after that the order is NOT_STARTED (no
   * worker has taken it) and takes no action yet.
   */
  private async firstRunOf(orderId: string): Promise<string> {
    const deadline = Date.now() + CLAIM_WAIT_MS;
    for (;;) {
      const ticket = await this.options.tickets.getTicketByWorkflow(orderWorkflowId(orderId));
      if (!ticket) throw new OrderNotFoundError(orderId);
      if (ticket.claimedRunId) return ticket.claimedRunId;
      if (Date.now() >= deadline)
        throw new OrderRefusedError('NOT_STARTED', 'the order has not started yet; try again in a moment');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** The order's id and the run that claimed its ticket, read now unless the caller gave it. */
  private async claimOf(order: OrderRef): Promise<{ orderId: string; firstRunId: string }> {
    return typeof order === 'string' ? { orderId: order, firstRunId: await this.firstRunOf(order) } : order;
  }

  private handle(orderId: string): WorkflowHandle {
    return this.options.client.workflow.getHandle(orderWorkflowId(orderId));
  }

  private async call<T>(orderId: string, action: (handle: WorkflowHandle) => Promise<T>): Promise<T> {
    try {
      return await action(this.handle(orderId));
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw new OrderNotFoundError(orderId);
      throw error;
    }
  }

  private async update<T>(orderId: string, action: (handle: WorkflowHandle) => Promise<T>): Promise<T> {
    try {
      return await this.call(orderId, action);
    } catch (error) {
      // An update no worker processed was refused by nobody: it is left as Temporal's, for the caller to retry.
      if (
        error instanceof WorkflowUpdateFailedError &&
        error.cause instanceof ApplicationFailure &&
        error.cause.type !== UNPROCESSED_UPDATE
      ) {
        throw new OrderRefusedError(error.cause.type ?? 'REFUSED', error.cause.message);
      }
      // Temporal answers "not found" to an update of a workflow that has closed: say that the order ended, and how.
      if (error instanceof OrderNotFoundError) {
        const ended = await this.status(orderId).catch(() => undefined);
        if (ended) throw await this.closedRefusal(orderId, ended.state);
      }
      throw error;
    }
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
