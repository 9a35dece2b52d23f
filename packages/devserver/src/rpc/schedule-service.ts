/**
 * The WorkflowService's schedule methods (registered with the workflow service's handlers): create, describe,
 * update, patch (pause, unpause, trigger, backfill), list and count, delete, and the matching times of a range.
 * The state machine is ../schedules/scheduler.ts; this layer checks requests as the real frontend does.
 */
import { status } from '@grpc/grpc-js';
import type proto from '@temporalio/proto';
import { alreadyExists, invalidArgument, RpcError } from '../errors.js';
import type { EngineContext } from '../engine/context.js';
import { msToTimestamp, timestampToMs } from '../proto.js';
import { validateSearchAttributes } from '../visibility/search-attributes.js';
import { scheduleFilter } from '../schedules/list-query.js';
import { plainMemo, plainSearchAttributes } from '../schedules/record.js';
import type { Schedules } from '../schedules/registry.js';
import { checkedSchedule, checkNotes } from '../schedules/requests.js';
import { SpecSearchLimitError } from '../schedules/spec.js';
import { conflictTokenBytes, conflictTokenOf, describeSchedule, listEntry } from '../schedules/views.js';
import type { RequestOf, ServiceHandlers } from './grpc-server.js';

type V1 = typeof proto.temporal.api.workflowservice.v1;
type Req<K extends keyof V1> = RequestOf<V1[K]>;

const INITIAL_CONFLICT_TOKEN = 1;
const MAX_PAGE_SIZE = 1000;
const failedPrecondition = (message: string) => new RpcError(status.FAILED_PRECONDITION, message);

function requireScheduleId(scheduleId: string | null | undefined): string {
  if (!scheduleId) throw invalidArgument('ScheduleId is not set on request.');
  return scheduleId;
}

/** A page of `items` from an offset token this server issued. */
function page<T>(
  items: T[],
  pageSize: number | null | undefined,
  token: Uint8Array | null | undefined,
): { items: T[]; nextPageToken: Buffer } {
  const offset = token?.length ? Number(Buffer.from(token).toString('utf8')) : 0;
  if (!Number.isInteger(offset) || offset < 0) throw invalidArgument('nextPageToken is not one this server issued');
  const size = pageSize && pageSize > 0 ? Math.min(pageSize, MAX_PAGE_SIZE) : MAX_PAGE_SIZE;
  const next = Math.min(offset + size, items.length);
  return {
    items: items.slice(offset, next),
    nextPageToken: next < items.length ? Buffer.from(String(next)) : Buffer.alloc(0),
  };
}

export function scheduleServiceHandlers(ctx: EngineContext, schedules: Schedules): ServiceHandlers {
  const find = (namespace: string | null | undefined, scheduleId: string | null | undefined) => {
    const record = ctx.requireNamespace(namespace);
    return { namespace: record, scheduler: schedules.require(record.name, requireScheduleId(scheduleId)) };
  };
  const listed = (req: { namespace?: string | null; query?: string | null }) => {
    const namespace = ctx.requireNamespace(req.namespace);
    const matches = scheduleFilter(req.query ?? '', namespace);
    return { namespace, schedulers: schedules.inNamespace(namespace.name).filter(matches) };
  };

  return {
    CreateSchedule: (req: Req<'CreateScheduleRequest'>) => {
      const namespace = ctx.requireNamespace(req.namespace);
      const scheduleId = requireScheduleId(req.scheduleId);
      if (!req.requestId) throw invalidArgument('RequestId is not set on request.');
      const existing = schedules.get(namespace.name, scheduleId);
      // the same create again (a retry) finds its schedule
      if (existing?.data.requestId === req.requestId)
        return { conflictToken: conflictTokenBytes(INITIAL_CONFLICT_TOKEN) };
      if (existing) throw alreadyExists(`schedule ${JSON.stringify(scheduleId)} is already registered`);
      const { schedule, controls } = checkedSchedule(ctx, namespace, req.schedule);
      validateSearchAttributes(req.searchAttributes, namespace.searchAttributes, namespace.name);
      const now = ctx.clock.now();
      schedules.create(
        {
          namespace: namespace.name,
          namespaceId: namespace.id,
          scheduleId,
          requestId: req.requestId,
          schedule,
          controls,
          memo: req.memo ? plainMemo(req.memo) : undefined,
          searchAttributes: req.searchAttributes ? plainSearchAttributes(req.searchAttributes) : undefined,
          conflictToken: INITIAL_CONFLICT_TOKEN,
          createTime: now,
          lastProcessedTime: now,
          actionCount: 0,
          missedCatchupWindow: 0,
          overlapSkipped: 0,
          bufferDropped: 0,
          runningWorkflows: [],
          recentActions: [],
          bufferedStarts: [],
          backfills: [],
        },
        req.initialPatch ?? undefined,
      );
      return { conflictToken: conflictTokenBytes(INITIAL_CONFLICT_TOKEN) };
    },

    DescribeSchedule: (req: Req<'DescribeScheduleRequest'>) => {
      const { namespace, scheduler } = find(req.namespace, req.scheduleId);
      return describeSchedule(scheduler, namespace);
    },

    UpdateSchedule: (req: Req<'UpdateScheduleRequest'>) => {
      const { namespace, scheduler } = find(req.namespace, req.scheduleId);
      const { schedule, controls } = checkedSchedule(ctx, namespace, req.schedule);
      validateSearchAttributes(req.searchAttributes, namespace.searchAttributes, namespace.name);
      if (!schedule.action?.startWorkflow)
        throw invalidArgument('Only StartWorkflow action is supported for schedules');
      if (req.memo) throw failedPrecondition('memo updates are not supported on workflow-backed schedules');
      const token = conflictTokenOf(req.conflictToken);
      if (token && token !== scheduler.data.conflictToken) throw failedPrecondition('mismatched conflict token');
      scheduler.wake({
        update: {
          schedule,
          controls,
          searchAttributes: req.searchAttributes ? plainSearchAttributes(req.searchAttributes) : undefined,
        },
      });
      return {};
    },

    PatchSchedule: (req: Req<'PatchScheduleRequest'>) => {
      if (!req.patch) throw invalidArgument('Patch is not set on request.');
      checkNotes(req.patch);
      // a trigger without a time is for now (the scheduler reads it so)
      find(req.namespace, req.scheduleId).scheduler.wake({ patch: req.patch });
      return {};
    },

    DeleteSchedule: (req: Req<'DeleteScheduleRequest'>) => {
      schedules.delete(find(req.namespace, req.scheduleId).scheduler);
      return {};
    },

    ListSchedules: (req: Req<'ListSchedulesRequest'>) => {
      const { namespace, schedulers } = listed(req);
      const { items, nextPageToken } = page(schedulers, req.maximumPageSize, req.nextPageToken);
      return { schedules: items.map((scheduler) => listEntry(scheduler, namespace)), nextPageToken };
    },

    CountSchedules: (req: Req<'CountSchedulesRequest'>) => ({ count: listed(req).schedulers.length }),

    ListScheduleMatchingTimes: (req: Req<'ListScheduleMatchingTimesRequest'>) => {
      const { scheduler } = find(req.namespace, req.scheduleId);
      if (!req.startTime || !req.endTime) throw invalidArgument('missing or invalid query');
      try {
        return {
          startTime: scheduler
            .matchingTimes(timestampToMs(req.startTime), timestampToMs(req.endTime))
            .map(msToTimestamp),
        };
      } catch (error) {
        if (error instanceof SpecSearchLimitError) throw invalidArgument(error.message);
        throw error;
      }
    },
  };
}
