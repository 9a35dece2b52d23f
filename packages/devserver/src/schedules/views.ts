/**
 * What DescribeSchedule and ListSchedules show of a schedule, in the real server's shapes: the schedule with its
 * ranges cleaned (an end before the start is the start, a step of 0 is 1) and search attributes typed, its info
 * (counts, running workflows, the last 10 actions, the next 10 action times), the conflict token as 8 big-endian
 * bytes; a list entry carries the list info (at most 10 of each spec list, the last 5 actions, the next 5 times).
 */
import { msToTimestamp } from '../proto.js';
import type { SearchAttributes } from '../proto.js';
import type { NamespaceRecord } from '../store.js';
import { lookupAttributeType } from '../visibility/search-attributes.js';
import { cleanRanges } from './calendar.js';
import type { StructuredCalendar } from './calendar.js';
import type { RecentAction, Scheduler } from './scheduler.js';
import type { ScheduleSpec } from './spec.js';

const DESCRIBED_FUTURE_TIMES = 10;
const LISTED_FUTURE_TIMES = 5;
const LISTED_RECENT_ACTIONS = 5;
/** How many calendars, intervals and skip calendars a list entry shows. */
const LISTED_SPEC_ITEMS = 10;

export function conflictTokenBytes(token: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64BE(BigInt(token));
  return bytes;
}

/** A conflict token as sent back (8 bytes), or undefined when none was sent. */
export function conflictTokenOf(bytes: Uint8Array | null | undefined): number | undefined {
  return bytes && bytes.length >= 8 ? Number(Buffer.from(bytes).readBigUInt64BE(0)) : undefined;
}

function cleanedSpec(spec: ScheduleSpec, limit = Infinity): ScheduleSpec {
  const copy = structuredClone(spec);
  const head = <T>(items: T[] | null | undefined) => (items ?? []).slice(0, limit);
  copy.structuredCalendar = head(copy.structuredCalendar);
  copy.excludeStructuredCalendar = head(copy.excludeStructuredCalendar);
  copy.interval = head(copy.interval);
  for (const calendar of [...copy.structuredCalendar, ...copy.excludeStructuredCalendar] as StructuredCalendar[])
    cleanRanges(calendar);
  return copy;
}

/** Search attributes with their registered types in the payloads' metadata, as the real server annotates them. */
export function typedSearchAttributes(
  searchAttributes: SearchAttributes | null | undefined,
  namespace: NamespaceRecord,
): SearchAttributes | undefined {
  const fields = searchAttributes?.indexedFields;
  if (!fields || !Object.keys(fields).length) return undefined;
  const typed: SearchAttributes = { indexedFields: {} };
  for (const [name, payload] of Object.entries(fields)) {
    const type = lookupAttributeType(name, namespace.searchAttributes);
    typed.indexedFields![name] =
      type && !payload.metadata?.type
        ? { ...payload, metadata: { ...payload.metadata, type: Buffer.from(type) } }
        : payload;
  }
  return typed;
}

const actionResult = (action: RecentAction) => ({
  scheduleTime: msToTimestamp(action.scheduleTime),
  actualTime: msToTimestamp(action.actualTime),
  startWorkflowResult: { workflowId: action.workflowId, runId: action.runId },
  startWorkflowStatus: action.status,
});

const memoOrUndefined = (scheduler: Scheduler) =>
  Object.keys(scheduler.data.memo?.fields ?? {}).length ? scheduler.data.memo : undefined;

export function describeSchedule(scheduler: Scheduler, namespace: NamespaceRecord): object {
  const state = scheduler.data;
  const { spec, action } = state.schedule;
  const workflow = action?.startWorkflow;
  return {
    schedule: {
      spec: cleanedSpec(spec ?? {}),
      action: workflow
        ? {
            startWorkflow: {
              ...workflow,
              searchAttributes: typedSearchAttributes(workflow.searchAttributes, namespace),
            },
          }
        : action,
      policies: scheduler.policies(),
      state: state.controls,
    },
    info: {
      actionCount: state.actionCount,
      missedCatchupWindow: state.missedCatchupWindow,
      overlapSkipped: state.overlapSkipped,
      bufferDropped: state.bufferDropped,
      bufferSize: state.bufferedStarts.length,
      runningWorkflows: scheduler.runningWorkflows(),
      recentActions: state.recentActions.map(actionResult),
      futureActionTimes: scheduler.futureActionTimes(DESCRIBED_FUTURE_TIMES).map(msToTimestamp),
      createTime: msToTimestamp(state.createTime),
      updateTime: state.updateTime === undefined ? undefined : msToTimestamp(state.updateTime),
    },
    memo: memoOrUndefined(scheduler),
    searchAttributes: typedSearchAttributes(state.searchAttributes, namespace),
    conflictToken: conflictTokenBytes(state.conflictToken),
  };
}

export function listEntry(scheduler: Scheduler, namespace: NamespaceRecord): object {
  const state = scheduler.data;
  return {
    scheduleId: state.scheduleId,
    memo: memoOrUndefined(scheduler),
    searchAttributes: typedSearchAttributes(state.searchAttributes, namespace),
    info: {
      spec: cleanedSpec(state.schedule.spec ?? {}, LISTED_SPEC_ITEMS),
      workflowType: state.schedule.action?.startWorkflow?.workflowType,
      notes: state.controls.notes,
      paused: state.controls.paused,
      recentActions: state.recentActions.slice(-LISTED_RECENT_ACTIONS).map(actionResult),
      futureActionTimes: scheduler.futureActionTimes(LISTED_FUTURE_TIMES).map(msToTimestamp),
    },
  };
}
