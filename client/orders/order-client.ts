import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  type Client,
  type WorkflowExecutionInfo,
} from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type { Keyring } from '../../codec/index.js';
import { checkOrderRequest, type Issue, type KindMap } from '../../domain/index.js';
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
import type { OrderState } from '../../domain/order-states.js';
import { ENVIRONMENT, ORDER_STATUS, TICKET_ID } from '../../workflows/order/search-attributes.js';
import type { OrderOutcome, orderWorkflow } from '../../workflows/order/workflow.js';
import { orderTaskQueue } from '../../config/temporal.js';

/** One ticket is one order: the workflow id is derived from the ticket id alone. */
export function orderWorkflowId(ticketId: string): string {
  return `mve-order-${ticketId}`;
}

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
  constructor(readonly ticketId: string) {
    super(`no order for ticket ${ticketId}`);
  }
}

export class DuplicateOrderError extends Error {
  override readonly name = 'DuplicateOrderError';
  constructor(readonly ticketId: string) {
    super(`ticket ${ticketId} already has an order; one ticket is one order (see \`mve-orders status ${ticketId}\`)`);
  }
}

export interface SubmittedOrder {
  workflowId: string;
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
}

export interface SubmitOptions {
  /** The authenticated submitter, recorded on the order. */
  submittedBy?: string;
}

/**
 * Everything the engine does with orders over the Temporal client (with the encrypting codec). The approval
 * policy is not the submitter's to give: the workers hold it and each order reads it when it starts.
 */
export class OrderClient {
  constructor(private readonly options: OrderClientOptions) {}

  /** Checks the request offline and starts its workflow; a refused request starts nothing. */
  async submit(input: unknown, options: SubmitOptions = {}): Promise<SubmittedOrder> {
    const check = checkOrderRequest(input, this.options.kindMap ? { kindMap: this.options.kindMap } : {});
    if (!check.ok || !check.request) throw new OrderRequestError(check.errors);
    const request = check.request;
    const workflowId = orderWorkflowId(request.ticketId);
    try {
      await this.options.client.workflow.start<typeof orderWorkflow>('orderWorkflow', {
        workflowId,
        taskQueue: orderTaskQueue(this.options.taskQueue, request.environment),
        args: [{ request, ...(options.submittedBy ? { submittedBy: options.submittedBy } : {}) }],
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
    return { workflowId, ticketId: request.ticketId, warnings: check.warnings };
  }

  async status(ticketId: string): Promise<OrderStatusView> {
    return this.call(ticketId, (handle) => handle.query(statusQuery));
  }

  /** Waits for the order to end and returns how it ended. */
  async result(ticketId: string): Promise<OrderOutcome> {
    return this.call(ticketId, (handle) => handle.result() as Promise<OrderOutcome>);
  }

  async approve(ticketId: string, vote: VoteInput): Promise<VoteResult> {
    const signed = this.sign(ticketId, 'approve', vote);
    return this.update(ticketId, (handle) => handle.executeUpdate(approveUpdate, { args: [signed] }));
  }

  async reject(ticketId: string, vote: VoteInput): Promise<VoteResult> {
    const signed = this.sign(ticketId, 'reject', vote);
    return this.update(ticketId, (handle) => handle.executeUpdate(rejectUpdate, { args: [signed] }));
  }

  async cancel(ticketId: string, cancel: CancelInput): Promise<OrderState> {
    const signed = this.sign(ticketId, 'cancel', cancel);
    return this.update(ticketId, (handle) => handle.executeUpdate(cancelUpdate, { args: [signed] }));
  }

  /** Settles the uncertain buy `resolution.attempt` names; without it, the order's latest attempt (read now). */
  async resolveBuy(
    ticketId: string,
    resolution: DistributiveOmit<ResolveBuyInput, 'attempt'> & { attempt?: number },
  ): Promise<OrderState> {
    const attempt = resolution.attempt ?? (await this.status(ticketId)).buyAttempts;
    const signed = this.sign(ticketId, 'resolve-buy', { ...resolution, attempt } as ResolveBuyInput);
    return this.update(ticketId, (handle) => handle.executeUpdate(resolveBuyUpdate, { args: [signed] }));
  }

  /** Orders matching a visibility query over OrderStatus, TicketId, Environment, MonthlyRate, StartTime… */
  async list(query?: string): Promise<WorkflowExecutionInfo[]> {
    const filter = `WorkflowType = 'orderWorkflow'${query ? ` AND (${query})` : ''}`;
    const found: WorkflowExecutionInfo[] = [];
    for await (const execution of this.options.client.workflow.list({ query: filter })) found.push(execution);
    return found;
  }

  private sign<F extends object>(ticketId: string, action: SignedActionName, fields: F): Signed<F> {
    const keys = this.options.actionKeys;
    if (!keys)
      throw new Error(
        'this order client holds no action key (MVE_ACTION_KEY): votes, cancels and resolutions go through the HTTP API',
      );
    const key = { id: keys.currentKeyId, key: keys.currentKey().toString('base64') };
    return signAction(
      key,
      orderWorkflowId(ticketId),
      action,
      fields,
      Date.now(),
      randomBytes(16).toString('base64url'),
    );
  }

  private handle(ticketId: string) {
    return this.options.client.workflow.getHandle(orderWorkflowId(ticketId));
  }

  private async call<T>(
    ticketId: string,
    action: (handle: ReturnType<OrderClient['handle']>) => Promise<T>,
  ): Promise<T> {
    try {
      return await action(this.handle(ticketId));
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw new OrderNotFoundError(ticketId);
      throw error;
    }
  }

  private async update<T>(
    ticketId: string,
    action: (handle: ReturnType<OrderClient['handle']>) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.call(ticketId, action);
    } catch (error) {
      if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
        throw new OrderRefusedError(error.cause.type ?? 'REFUSED', error.cause.message);
      }
      // Temporal answers "not found" to an update of a workflow that has closed: say that the order ended.
      if (error instanceof OrderNotFoundError) {
        const ended = await this.status(ticketId).catch(() => undefined);
        if (ended)
          throw new OrderRefusedError(
            'ORDER_CLOSED',
            `the order has ended (${ended.state}); it takes no more decisions`,
          );
      }
      throw error;
    }
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
