/**
 * A schedule as a durable store keeps it: one JSON record, its protobuf parts (the schedule, memo, search
 * attributes, the last result or failure) base64-encoded in their wire form, everything else numbers and
 * strings. Also the plain form the schedule's protobuf parts are kept in while it runs (numbers for 64-bit
 * fields, copies of the request's objects), which is what a record decodes to.
 */
import { decodeBase64, decodeMessage, encodeBase64, encodeMessage, TYPES } from '../persistence/codec.js';
import type { Failure, Memo, Payloads, SearchAttributes } from '../proto.js';
import type { Schedule, ScheduleData } from './scheduler.js';

const SCHEDULE_TYPE = 'temporal.api.schedule.v1.Schedule';

/** A protobuf value as plain data: a copy, with numbers for 64-bit fields. */
export function plain<T extends object>(typeName: string, value: T): T {
  return decodeMessage<T>(typeName, encodeMessage(typeName, value));
}

export const plainSchedule = (schedule: Schedule): Schedule => plain(SCHEDULE_TYPE, schedule);
export const plainSearchAttributes = (value: SearchAttributes): SearchAttributes =>
  plain(TYPES.searchAttributes, value);
export const plainMemo = (value: Memo): Memo => plain(TYPES.memo, value);

type Encoded = string | undefined;

export interface ScheduleRecord extends Omit<
  ScheduleData,
  'schedule' | 'memo' | 'searchAttributes' | 'lastCompletionResult' | 'continuedFailure'
> {
  v: 1;
  schedule: string;
  memo?: Encoded;
  searchAttributes?: Encoded;
  lastCompletionResult?: Encoded;
  continuedFailure?: Encoded;
}

const encodeOptional = (typeName: string, value: object | null | undefined): Encoded =>
  value ? encodeBase64(typeName, value) : undefined;
const decodeOptional = <T>(typeName: string, text: Encoded): T | undefined =>
  text ? decodeBase64<T>(typeName, text) : undefined;

export function toRecord(data: ScheduleData): ScheduleRecord {
  return {
    ...data,
    v: 1,
    schedule: encodeBase64(SCHEDULE_TYPE, data.schedule),
    memo: encodeOptional(TYPES.memo, data.memo),
    searchAttributes: encodeOptional(TYPES.searchAttributes, data.searchAttributes),
    lastCompletionResult: encodeOptional(TYPES.payloads, data.lastCompletionResult),
    continuedFailure: encodeOptional(TYPES.failure, data.continuedFailure),
  };
}

export function fromRecord(record: ScheduleRecord): ScheduleData {
  const { v: _version, ...rest } = record;
  return {
    ...rest,
    schedule: decodeBase64<Schedule>(SCHEDULE_TYPE, record.schedule),
    memo: decodeOptional<Memo>(TYPES.memo, record.memo),
    searchAttributes: decodeOptional<SearchAttributes>(TYPES.searchAttributes, record.searchAttributes),
    lastCompletionResult: decodeOptional<Payloads>(TYPES.payloads, record.lastCompletionResult),
    continuedFailure: decodeOptional<Failure>(TYPES.failure, record.continuedFailure),
  };
}
