/**
 * Reads an order run's request by reference: the request is in the run's own start input (the workflow's first
 * history event), so the activities that need it (the buy, the journal's "received" entry) read it from there
 * instead of carrying a second copy in their inputs. A run that continued as new was started with the same
 * request (continue-as-new.ts passes the whole input on), so every run's first event has it.
 *
 * The request holds secrets (vendorConfig): what this returns must never be logged, stored unredacted or put in
 * an error message, and the errors it throws never carry any of the payload.
 */
import { Context } from '@temporalio/activity';
import type { Client } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { decodeFromPayloadsAtIndex } from '@temporalio/common/lib/internal-non-workflow/index.js';
import { isRecord } from '../../domain/index.js';
import type { OrderRequest } from '../../schemas/index.js';

export interface RunReference {
  workflowId: string;
  runId: string;
}

/** One job: the request an order's run was started with, decoded (and decrypted) by the worker's data converter. */
export interface OrderRequestReader {
  requestOf(run: RunReference): Promise<OrderRequest>;
  /**
   * Which run this run was reset from, and at which event, as its own history says (the server's reset marker); null
   * when it was not made by a reset. A reader without it (a test's) never adopts a recovered run (run-guard.ts).
   */
  resetOf?(run: RunReference): Promise<RunReset | null>;
  /** How the server started the run: its chain's first run, the run it continued from, when. */
  startOf?(run: RunReference): Promise<RunStart>;
}

/** The run's start, as its first history event says. */
export interface RunStart {
  firstRunId: string;
  continuedFromRunId: string | null;
  startedAt: Date;
}

/** What the server recorded when a reset made a run: the run it copied, and the event the copy failed at. */
export interface RunReset {
  baseRunId: string;
  eventId: number;
}

/** The run the current activity works for, from its context (not from its input). */
export function currentRun(): RunReference {
  const execution = Context.current().info.workflowExecution;
  if (!execution) throw new Error('this activity was not scheduled by a workflow run');
  return { workflowId: execution.workflowId, runId: execution.runId };
}

/**
 * The requests this worker was just handed by orders' reads (their local activities get the request in their input),
 * kept by run for the buy that follows, usually moments later on the same worker: it then need not read its run's first
 * event from Temporal. A run's start input never changes, so a kept request is the one Temporal would answer. Only the
 * latest `capacity` are kept (they hold secrets: no longer than useful); any other is read through `reader`.
 */
export class RecentOrderRequests implements OrderRequestReader {
  private readonly kept = new Map<string, OrderRequest>();

  constructor(
    private readonly reader: OrderRequestReader,
    private readonly capacity = 256,
  ) {}

  keep(run: RunReference, request: OrderRequest): void {
    const key = `${run.workflowId}/${run.runId}`;
    this.kept.delete(key);
    this.kept.set(key, request);
    if (this.kept.size > this.capacity) this.kept.delete(this.kept.keys().next().value!);
  }

  requestOf(run: RunReference): Promise<OrderRequest> {
    const kept = this.kept.get(`${run.workflowId}/${run.runId}`);
    return kept ? Promise.resolve(kept) : this.reader.requestOf(run);
  }
}

/** The request could not be read (Temporal unreachable, the run unknown, a payload that does not decode). Retryable. */
export class OrderRequestUnavailable extends Error {
  override name = 'OrderRequestUnavailable';
}

/** How long one read may take: the buy reads before it sends, and must answer well within its workflow task's timeout. */
export const READ_TIMEOUT_MS = 10_000;

/**
 * The reader on a Temporal client whose data converter is the worker's (the encrypting codec): one
 * GetWorkflowExecutionHistory call for the run's first event only.
 */
export function temporalOrderRequests(
  client: Client,
  options: { timeoutMs?: number } = {},
): Required<OrderRequestReader> {
  const timeoutMs = options.timeoutMs ?? READ_TIMEOUT_MS;

  /** The run's first history event: its start. */
  async function firstEvent({ workflowId, runId }: RunReference) {
    const { history } = await client.withDeadline(Date.now() + timeoutMs, () =>
      client.workflowService.getWorkflowExecutionHistory({
        namespace: client.options.namespace,
        execution: { workflowId, runId },
        maximumPageSize: 1,
      }),
    );
    return history?.events?.[0];
  }

  return {
    async requestOf(run) {
      const where = `run ${run.runId} of ${run.workflowId}`;
      let payloads: Payload[] | null | undefined;
      try {
        payloads = (await firstEvent(run))?.workflowExecutionStartedEventAttributes?.input?.payloads;
      } catch (error) {
        // The server's own words (they never hold a payload).
        throw new OrderRequestUnavailable(
          `could not read the request of ${where} from Temporal: ${(error as Error).message}`,
        );
      }
      if (!payloads?.length)
        throw new OrderRequestUnavailable(`the first event of ${where} is not a start with an input`);
      let input: unknown;
      try {
        input = await decodeFromPayloadsAtIndex(client.options.loadedDataConverter, 0, payloads);
      } catch (error) {
        // Only the error's class: a decoder's message may quote what it was decoding.
        throw new OrderRequestUnavailable(
          `the start input of ${where} could not be decoded (${(error as Error).name})`,
        );
      }
      const request = isRecord(input) ? input['request'] : undefined;
      if (!isRecord(request) || typeof request['environment'] !== 'string' || typeof request['ticketId'] !== 'string') {
        throw new OrderRequestUnavailable(`the start input of ${where} holds no order request`);
      }
      return request as unknown as OrderRequest;
    },

    async startOf(run) {
      const first = await firstEvent(run);
      const started = first?.workflowExecutionStartedEventAttributes;
      if (!first || !started?.firstExecutionRunId)
        throw new OrderRequestUnavailable(`the first event of run ${run.runId} of ${run.workflowId} is not its start`);
      return {
        firstRunId: started.firstExecutionRunId,
        continuedFromRunId: started.continuedExecutionRunId || null,
        startedAt: new Date(
          Number(first.eventTime?.seconds ?? 0) * 1000 + Math.floor((first.eventTime?.nanos ?? 0) / 1e6),
        ),
      };
    },

    async resetOf({ workflowId, runId }) {
      // Newest first: a reset marks the copy at the point it was reset to, near the end of a run that did little since.
      const { history } = await client.withDeadline(Date.now() + timeoutMs, () =>
        client.workflowService.getWorkflowExecutionHistoryReverse({
          namespace: client.options.namespace,
          execution: { workflowId, runId },
          maximumPageSize: 200,
        }),
      );
      const marker = history?.events?.find(
        (event) =>
          event.workflowTaskFailedEventAttributes?.cause ===
          proto.temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW,
      );
      const reset = marker?.workflowTaskFailedEventAttributes;
      if (!marker || !reset?.baseRunId || reset.newRunId !== runId) return null;
      return { baseRunId: reset.baseRunId, eventId: Number(marker.eventId) };
    },
  };
}
