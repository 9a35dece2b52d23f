/**
 * What Temporal says of an order the campaign could not settle: its run's status, the activities it waits for (with
 * their attempts and last failure), and the last events of its history. Printed before the cluster stops, since a
 * campaign that fails is only worth rerunning once someone knows where the order stood.
 */
import { Connection, WorkflowClient } from '@temporalio/client';
import protoRoot from '@temporalio/proto';
import { TICKET_ID } from '../../workflows/order/search-attributes.js';

const { EventType, PendingActivityState } = protoRoot.temporal.api.enums.v1;
type HistoryEvent = protoRoot.temporal.api.history.v1.IHistoryEvent;

/** How many of the history's last events to print. */
const LAST_EVENTS = 25;

export async function describeUnsettled(
  target: { address: string; namespace: string },
  ticketIds: readonly string[],
  log: (line: string) => void,
): Promise<void> {
  const connection = await Connection.connect({ address: target.address, connectTimeout: 5_000 });
  try {
    const client = new WorkflowClient({ connection, namespace: target.namespace });
    for (const ticketId of ticketIds) {
      for await (const run of client.list({ query: `${TICKET_ID.name} = '${ticketId}'` })) {
        log(`${ticketId}: ${run.workflowId} run ${run.runId}, ${run.status.name}`);
        for (const line of await describeRun(client, run.workflowId, run.runId)) log(`  ${line}`);
      }
    }
  } catch (error) {
    log(`could not read Temporal: ${String(error).split('\n')[0]}`);
  } finally {
    await connection.close();
  }
}

async function describeRun(client: WorkflowClient, workflowId: string, runId: string): Promise<string[]> {
  const handle = client.getHandle(workflowId, runId);
  const { raw } = await handle.describe();
  const lines: string[] = [];
  for (const activity of raw.pendingActivities ?? []) {
    const state = PendingActivityState[activity.state ?? 0] ?? String(activity.state);
    const failure = activity.lastFailure?.message ? `, last failure: ${activity.lastFailure.message}` : '';
    lines.push(`pending ${activity.activityType?.name} (${state}, attempt ${activity.attempt}${failure})`);
  }
  if (raw.pendingWorkflowTask) lines.push(`pending workflow task, attempt ${raw.pendingWorkflowTask.attempt}`);
  const history = await handle.fetchHistory();
  const events = history.events ?? [];
  lines.push(`${events.length} events; the last ${Math.min(LAST_EVENTS, events.length)}:`);
  for (const event of events.slice(-LAST_EVENTS)) lines.push(`  ${eventLine(event)}`);
  return lines;
}

function eventLine(event: HistoryEvent): string {
  const type = (EventType[event.eventType ?? 0] ?? String(event.eventType)).replace(/^EVENT_TYPE_/, '');
  const time = event.eventTime?.seconds
    ? new Date(Number(event.eventTime.seconds) * 1000).toISOString().slice(11, 19)
    : '';
  const detail =
    event.activityTaskScheduledEventAttributes?.activityType?.name ??
    event.timerStartedEventAttributes?.timerId ??
    event.workflowTaskFailedEventAttributes?.failure?.message ??
    event.activityTaskFailedEventAttributes?.failure?.message ??
    event.markerRecordedEventAttributes?.markerName ??
    event.workflowExecutionSignaledEventAttributes?.signalName ??
    '';
  return `${String(event.eventId)} ${time} ${type}${detail ? ` ${detail}` : ''}`;
}
