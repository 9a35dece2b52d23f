/**
 * The shape of an order's history, to read or compare what it did: each run of its chain (continue-as-new followed),
 * each event as its type and what it was about — the activity, marker or update name, and the causes of failures,
 * timeouts and retries. Ids, times and payloads differ from run to run and are left out.
 */
import type { Client } from '@temporalio/client';
import protoRoot from '@temporalio/proto';

const enums = protoRoot.temporal.api.enums.v1;
type HistoryEvent = protoRoot.temporal.api.history.v1.IHistoryEvent;
type Failure = protoRoot.temporal.api.failure.v1.IFailure;

const name = (values: Record<number, string>, value: number | null | undefined, prefix: string) =>
  value === null || value === undefined ? undefined : values[value]?.replace(prefix, '');

/** The failure's kind and cause: its application type, or the timeout it was, and what it wraps. */
function failureShape(failure: Failure | null | undefined): string | undefined {
  if (!failure) return undefined;
  const own =
    failure.applicationFailureInfo?.type ??
    name(enums.TimeoutType, failure.timeoutFailureInfo?.timeoutType, 'TIMEOUT_TYPE_') ??
    (failure.canceledFailureInfo ? 'cancelled' : failure.terminatedFailureInfo ? 'terminated' : undefined);
  const cause = failureShape(failure.cause);
  return [own ?? 'failure', cause].filter(Boolean).join(' < ');
}

export function eventShape(event: HistoryEvent): string {
  const type = name(enums.EventType, event.eventType, 'EVENT_TYPE_') ?? `unknown ${event.eventType}`;
  const details = [
    event.activityTaskScheduledEventAttributes?.activityType?.name,
    event.markerRecordedEventAttributes?.markerName,
    event.workflowExecutionSignaledEventAttributes?.signalName,
    event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name,
    event.workflowExecutionUpdateCompletedEventAttributes &&
      (event.workflowExecutionUpdateCompletedEventAttributes.outcome?.failure ? 'failed' : 'succeeded'),
    name(enums.TimeoutType, event.workflowTaskTimedOutEventAttributes?.timeoutType, 'TIMEOUT_TYPE_'),
    name(enums.WorkflowTaskFailedCause, event.workflowTaskFailedEventAttributes?.cause, 'WORKFLOW_TASK_FAILED_CAUSE_'),
    failureShape(
      event.activityTaskFailedEventAttributes?.failure ??
        event.activityTaskTimedOutEventAttributes?.failure ??
        event.workflowExecutionFailedEventAttributes?.failure,
    ),
    name(
      enums.RetryState,
      event.activityTaskFailedEventAttributes?.retryState ??
        event.activityTaskTimedOutEventAttributes?.retryState ??
        event.workflowExecutionFailedEventAttributes?.retryState,
      'RETRY_STATE_',
    ),
    name(
      enums.ContinueAsNewInitiator,
      event.workflowExecutionContinuedAsNewEventAttributes?.initiator,
      'CONTINUE_AS_NEW_INITIATOR_',
    ),
  ].filter((detail): detail is string => typeof detail === 'string' && detail !== '');
  return details.length ? `${type} ${details.join(' ')}` : type;
}

/** Every run of the chain `firstRunId` began, in order, each as its events' shapes. */
export async function historyShape(client: Client, workflowId: string, firstRunId: string): Promise<string[][]> {
  const runs: string[][] = [];
  for (let runId: string | undefined = firstRunId; runId;) {
    const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
    const events: HistoryEvent[] = history.events ?? [];
    runs.push(events.map(eventShape));
    runId = events.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return runs;
}
