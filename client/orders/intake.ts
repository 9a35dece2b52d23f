import {
  ticketFingerprint,
  type ApproversRepository,
  type OrdersRepository,
  type TicketRecord,
  type TicketsRepository,
} from '../../infra/db/index.js';
import type { Keyring } from '../../codec/index.js';
import { ENVIRONMENTS, SERVED_ENVIRONMENTS_VARIABLE, type Environment } from '../../config/served-environments.js';
import {
  checkOrderRequest,
  redactOrderRequest,
  orderIdFor,
  orderIdOfWorkflow,
  orderWorkflowId,
  type Issue,
  type KindMap,
} from '../../domain/index.js';
import {
  defaultApprovalPolicies,
  orderTeam,
  sameIdentity,
  type ApprovalPolicies,
} from '../../domain/approval/index.js';
import type { OrderRequest } from '../../schemas/index.js';
import { DuplicateOrderError, OrderRequestError, type OrderClient } from './order-client.js';
import { UnknownTeam } from './refusals.js';

/**
 * The submitter sent one of its tickets again with a different request: one ticket is one order, forever. Ticket ids
 * are the submitter's own (`orderIdFor`), so this only ever tells a submitter about its own ticket.
 */
export class TicketConflictError extends Error {
  override readonly name = 'TicketConflictError';
  constructor(readonly ticket: TicketRecord) {
    super(
      `ticket ${ticket.ticketId} was submitted on ${ticket.registeredAt} with a different request; one ticket is one order (use a new ticket id for a new order)`,
    );
  }
}

/** The request is for an environment this deployment runs no workers for: nothing was registered or started. */
export class EnvironmentNotServedError extends Error {
  override readonly name = 'EnvironmentNotServedError';
  constructor(
    readonly environment: string,
    readonly served: readonly string[],
  ) {
    super(
      `this deployment takes orders for ${served.join(' and ')} only; no worker here would run a ${environment} order (${SERVED_ENVIRONMENTS_VARIABLE})`,
    );
  }
}

export interface IntakeResult {
  /** true: this submission started the order; false: the ticket already had it (same request), nothing started. */
  created: boolean;
  /** The order's id: the ticket id in its submitter's namespace (`orderIdFor`). */
  orderId: string;
  ticket: TicketRecord;
  warnings: Issue[];
}

export interface OrderIntakeOptions {
  orders: OrderClient;
  repository: TicketsRepository & OrdersRepository & Pick<ApproversRepository, 'listApprovers'>;
  /** Keys the request fingerprint is made with (the action keys; a derived key, never the key itself). */
  fingerprintKeys: Keyring;
  kindMap?: KindMap;
  /** The environments this deployment runs workers for (MVE_ENVIRONMENTS); default: both. */
  environments?: readonly Environment[];
  /**
   * The approval policies the workers enforce (the same MVE_APPROVAL_POLICY_FILE / MVE_APPROVAL_POLICY): their teams
   * decide whose money each order spends. Default: the shipped policies, which list no teams.
   */
  policies?: ApprovalPolicies;
}

/**
 * Where orders come in: a ticket is registered in Postgres before its workflow starts, so a re-sent ticket
 * finds its order even when Temporal has forgotten the workflow (retention, a restart). The same request
 * again is answered with the existing order; a different one is refused.
 */
export class OrderIntake {
  constructor(private readonly options: OrderIntakeOptions) {}

  /** `requestedBy` has been settled by the caller from the authenticated identity. */
  async submit(body: unknown, submittedBy: string): Promise<IntakeResult> {
    const check = checkOrderRequest(body, this.options.kindMap ? { kindMap: this.options.kindMap } : {});
    if (!check.ok || !check.request) throw new OrderRequestError(check.errors);
    const request = check.request;
    const served = this.options.environments ?? ENVIRONMENTS;
    if (!served.includes(request.environment)) throw new EnvironmentNotServedError(request.environment, served);
    // Before anything is registered: an order no team of its policy would pay for leaves no trace.
    const team = await this.teamOf(request);
    const { repository, fingerprintKeys } = this.options;
    const keyId = fingerprintKeys.currentKeyId;
    const { registered, ticket } = await repository.registerTicket({
      ticketId: request.ticketId,
      workflowId: orderWorkflowId(orderIdFor(submittedBy, request.ticketId)),
      environment: request.environment,
      requestedBy: request.requestedBy,
      submittedBy,
      fingerprint: ticketFingerprint(fingerprintKeys, keyId, request)!,
      fingerprintKeyId: keyId,
    });
    // The ticket's own order id: a ticket registered before namespaces keeps its old one.
    const orderId = orderIdOfWorkflow(ticket.workflowId);
    if (!registered) {
      if (ticketFingerprint(fingerprintKeys, ticket.fingerprintKeyId, request) !== ticket.fingerprint)
        throw new TicketConflictError(ticket);
      // Registered before, but the workflow may never have started (the process died in between): start it only if
      // no run ever claimed the ticket and it was not cancelled. A started order is never started again, whatever
      // Temporal remembers.
      if (ticket.claimedRunId || ticket.cancelledBeforeStartAt)
        return { created: false, orderId, ticket, warnings: check.warnings };
    }
    // Recorded at once, before any worker runs it: listed, counted and cancellable even while no worker serves it.
    await repository.recordOrderReceived({
      workflowId: ticket.workflowId,
      ticketId: ticket.ticketId,
      environment: ticket.environment,
      requestedBy: ticket.requestedBy,
      request: redactOrderRequest(request),
      team,
      at: new Date(ticket.registeredAt),
    });
    try {
      await this.options.orders.start(request, { submittedBy, orderId });
    } catch (error) {
      if (!(error instanceof DuplicateOrderError)) throw error;
      return { created: false, orderId, ticket, warnings: check.warnings };
    }
    // Started now, also when the ticket was registered before by a submission whose process died before starting it.
    return { created: true, orderId, ticket, warnings: check.warnings };
  }

  /**
   * The team the order is charged to (domain/approval/order-team.ts), or UnknownTeam. The directory is read only when
   * the policy lists teams and the request names none.
   */
  private async teamOf(request: OrderRequest): Promise<string | null> {
    const policy = (this.options.policies ?? defaultApprovalPolicies())[request.environment];
    let directoryTeam: string | null | undefined;
    if (policy.teams && request.costCentre === undefined) {
      const directory = await this.options.repository.listApprovers({ activeOnly: false });
      directoryTeam = directory.find((person) => sameIdentity(person.id, request.requestedBy))?.team;
    }
    const choice = orderTeam(policy, request, directoryTeam);
    if ('refused' in choice) throw new UnknownTeam(choice.refused);
    return choice.team;
  }

  /**
   * The requester an order is recorded under: the directory's spelling of `name` when the directory knows it
   * (case-insensitively), else `name` as given.
   */
  async canonicalRequester(name: string): Promise<string> {
    const directory = await this.options.repository.listApprovers({ activeOnly: false });
    return directory.find((person) => sameIdentity(person.id, name))?.id ?? name.trim();
  }
}
