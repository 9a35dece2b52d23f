/**
 * The real server's size limits, with its defaults (dynamic config `limit.blobSize.*`, `limit.memoSize.*`,
 * `limit.historyCount.*`, `limit.historySize.*`, `frontend.searchAttributesSizeOfValueLimit`,
 * `frontend.searchAttributesTotalSizeLimit`, `frontend.searchAttributesNumberOfKeysLimit`), and the size checks of
 * requests and workflow commands. Sizes are
 * protobuf-encoded sizes, as the real server measures them. Over a warn limit the server logs a warning; over
 * an error limit it refuses what the real server refuses, the way it does (see each check). The history
 * limits are enforced by ./history-limits.ts.
 */
import { invalidArgument } from '../errors.js';
import { encodeMessage, TYPES } from '../persistence/codec.js';
import { CommandType, WorkflowTaskFailedCause } from '../proto.js';
import type { Failure, Memo, Payload, Payloads, SearchAttributes } from '../proto.js';
import type proto from '@temporalio/proto';
import type { LogLevel } from '../log-level.js';
import { terminateRun } from './task-refusals.js';
import type { PackedSearchAttributes } from '../packed-message.js';

export interface Limits {
  /** One payload field of a request or a command (input, result, details, failure): 512 KiB / 2 MiB. */
  blobSizeWarn: number;
  blobSizeError: number;
  /** A run's memo: 2 KiB / 2 MiB. */
  memoSizeWarn: number;
  memoSizeError: number;
  /** One search attribute's value (2 KiB) and all of a run's search attributes (40 KiB). */
  searchAttributeValueSize: number;
  searchAttributesTotalSize: number;
  /** How many search attributes one request or command may set: 100. */
  searchAttributesCount: number;
  /** Events in a run's history: 10,240 / 51,200 (over the error limit the run is terminated). */
  historyCountWarn: number;
  historyCountError: number;
  /** Bytes of a run's history: 10 MiB / 50 MiB (over the error limit the run is terminated). */
  historySizeWarn: number;
  historySizeError: number;
  /** From this many events (4,096) or bytes (4 MiB) of history, a workflow task suggests continuing as new. */
  historyCountSuggestContinueAsNew: number;
  historySizeSuggestContinueAsNew: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;
export const DEFAULT_LIMITS: Limits = {
  blobSizeWarn: 512 * KiB,
  blobSizeError: 2 * MiB,
  memoSizeWarn: 2 * KiB,
  memoSizeError: 2 * MiB,
  searchAttributeValueSize: 2 * KiB,
  searchAttributesTotalSize: 40 * KiB,
  searchAttributesCount: 100,
  historyCountWarn: 10_240,
  historyCountError: 51_200,
  historySizeWarn: 10 * MiB,
  historySizeError: 50 * MiB,
  historyCountSuggestContinueAsNew: 4 * KiB,
  historySizeSuggestContinueAsNew: 4 * MiB,
};

type Log = (line: string, level?: LogLevel) => void;
type Command = proto.temporal.api.command.v1.ICommand;

const sizeOf = (typeName: string, value: object | null | undefined) =>
  value ? encodeMessage(typeName, value).length : 0;
export const payloadsSize = (payloads: Payloads | null | undefined) => sizeOf(TYPES.payloads, payloads);
const memoSize = (memo: Memo | null | undefined) => sizeOf(TYPES.memo, memo);
/** Upserted search attributes or memo fields as the real server sizes them for the blob limit: names and data. */
const payloadMapSize = (fields: Record<string, Payload> | null | undefined) =>
  Object.entries(fields ?? {}).reduce(
    (sum, [name, payload]) => sum + Buffer.byteLength(name) + (payload.data?.length ?? 0),
    0,
  );
const payloadsMapSize = (fields: Record<string, Payloads> | null | undefined) =>
  Object.values(fields ?? {}).reduce((sum, payloads) => sum + payloadsSize(payloads), 0);
const failureSize = (failure: Failure | null | undefined) => sizeOf(TYPES.failure, failure);

/** The real server's CheckEventBlobSizeLimit: a warning over `warn`, true (refuse) over `error`. */
function overLimit(size: number, warn: number, error: number, what: string, log: Log): boolean {
  if (size <= warn) return false;
  log(
    `${what}: ${size} bytes, over the warn limit of ${warn}${size > error ? ` and the error limit of ${error}` : ''}`,
    'warn',
  );
  return size > error;
}

export const blobOverLimit = (limits: Limits, size: number, what: string, log: Log) =>
  overLimit(size, limits.blobSizeWarn, limits.blobSizeError, what, log);
const memoOverLimit = (limits: Limits, memo: Memo | null | undefined, what: string, log: Log) =>
  overLimit(memoSize(memo), limits.memoSizeWarn, limits.memoSizeError, what, log);

/** The search-attribute validator's first check, before the types: the message, when a request or command sets too many. */
export function searchAttributesCountError(
  limits: Limits,
  searchAttributes: SearchAttributes | null | undefined,
): string | undefined {
  const count = Object.keys(searchAttributes?.indexedFields ?? {}).length;
  if (count > limits.searchAttributesCount)
    return `searchAttributes: ${count} attributes, more than the limit of ${limits.searchAttributesCount}`;
  return undefined;
}

/** A start (or signal-with-start) request's search attributes: too many are refused with INVALID_ARGUMENT. */
export function checkSearchAttributesCount(
  limits: Limits,
  searchAttributes: SearchAttributes | null | undefined,
): void {
  const countError = searchAttributesCountError(limits, searchAttributes);
  if (countError) throw invalidArgument(countError);
}

/** The search-attribute validator's size check: the message of the first limit broken, if any. */
function searchAttributesSizeError(
  limits: Limits,
  searchAttributes: SearchAttributes | null | undefined,
): string | undefined {
  for (const [name, payload] of Object.entries(searchAttributes?.indexedFields ?? {})) {
    const size = payload.data?.length ?? 0;
    if (size > limits.searchAttributeValueSize)
      return `search attribute ${name} value size ${size} exceeds size limit ${limits.searchAttributeValueSize}`;
  }
  const total = sizeOf(TYPES.searchAttributes, searchAttributes);
  if (total > limits.searchAttributesTotalSize)
    return `total size of search attributes ${total} exceeds size limit ${limits.searchAttributesTotalSize}`;
  return undefined;
}

/** A start (or signal-with-start) request: search attributes, then input, then memo, each refused with INVALID_ARGUMENT. */
export function checkStartSizes(
  limits: Limits,
  request: {
    workflowId?: string | null;
    input?: Payloads | null;
    memo?: Memo | null;
    searchAttributes?: SearchAttributes | null;
  },
  log: Log,
): void {
  const saError = searchAttributesSizeError(limits, request.searchAttributes);
  if (saError) throw invalidArgument(saError);
  if (blobOverLimit(limits, payloadsSize(request.input), `start of ${request.workflowId}: input`, log))
    throw invalidArgument('Blob data size exceeds limit.');
  if (memoOverLimit(limits, request.memo, `start of ${request.workflowId}: memo`, log))
    throw invalidArgument('Memo size exceeds limit.');
}

/** A signal's input (SignalWorkflowExecution, SignalWithStart): refused with INVALID_ARGUMENT. */
export function checkSignalInput(limits: Limits, input: Payloads | null | undefined, what: string, log: Log): void {
  if (blobOverLimit(limits, payloadsSize(input), what, log)) throw invalidArgument('Blob data size exceeds limit.');
}

/**
 * A command whose payload, memo or search attributes are over the error limits: the real server fails the
 * workflow task with the command's BAD_* cause and terminates the run (reason "<Cause>: <message>"). Checked
 * with the run's current memo and search attributes, merged as the command would leave them.
 */
export function checkCommandSizes(
  limits: Limits,
  command: Command,
  current: { memo?: Memo | null; searchAttributes: PackedSearchAttributes },
  log: Log,
): void {
  const C = CommandType;
  const F = WorkflowTaskFailedCause;
  const blob = (size: number, cause: number, message: string) => {
    if (blobOverLimit(limits, size, message, log)) throw terminateRun(cause, message);
  };
  switch (command.commandType) {
    case C.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK:
      return blob(
        payloadsSize(command.scheduleActivityTaskCommandAttributes?.input),
        F.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
        'ScheduleActivityTaskCommandAttributes.Input exceeds size limit.',
      );
    case C.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION:
      // the real server names this cause for a result over the limit
      return blob(
        payloadsSize(command.completeWorkflowExecutionCommandAttributes?.result),
        F.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
        'CompleteWorkflowExecutionCommandAttributes.Result exceeds size limit.',
      );
    case C.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION:
      return blob(
        failureSize(command.failWorkflowExecutionCommandAttributes?.failure),
        F.WORKFLOW_TASK_FAILED_CAUSE_BAD_FAIL_WORKFLOW_EXECUTION_ATTRIBUTES,
        'FailWorkflowExecutionCommandAttributes.Failure exceeds size limit.',
      );
    case C.COMMAND_TYPE_RECORD_MARKER:
      return blob(
        payloadsMapSize(command.recordMarkerCommandAttributes?.details),
        F.WORKFLOW_TASK_FAILED_CAUSE_BAD_RECORD_MARKER_ATTRIBUTES,
        'RecordMarkerCommandAttributes.Details exceeds size limit.',
      );
    case C.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION: {
      const attrs = command.continueAsNewWorkflowExecutionCommandAttributes;
      const cause = F.WORKFLOW_TASK_FAILED_CAUSE_BAD_CONTINUE_AS_NEW_ATTRIBUTES;
      blob(
        payloadsSize(attrs?.input),
        cause,
        'ContinueAsNewWorkflowExecutionCommandAttributes. Input exceeds size limit.',
      );
      if (memoOverLimit(limits, attrs?.memo, 'continue-as-new memo', log))
        throw terminateRun(cause, 'ContinueAsNewWorkflowExecutionCommandAttributes. Memo exceeds size limit.');
      const saError = searchAttributesSizeError(limits, attrs?.searchAttributes);
      if (saError) throw terminateRun(cause, saError);
      return;
    }
    case C.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
      const upsert = command.upsertWorkflowSearchAttributesCommandAttributes?.searchAttributes;
      const cause = F.WORKFLOW_TASK_FAILED_CAUSE_BAD_SEARCH_ATTRIBUTES;
      blob(
        payloadMapSize(upsert?.indexedFields),
        cause,
        'UpsertWorkflowSearchAttributesCommandAttributes exceeds size limit.',
      );
      const saError = searchAttributesSizeError(limits, {
        indexedFields: { ...current.searchAttributes.unpack().indexedFields, ...upsert?.indexedFields },
      });
      if (saError) throw terminateRun(cause, saError);
      return;
    }
    case C.COMMAND_TYPE_MODIFY_WORKFLOW_PROPERTIES: {
      const upserted = command.modifyWorkflowPropertiesCommandAttributes?.upsertedMemo;
      const cause = F.WORKFLOW_TASK_FAILED_CAUSE_BAD_MODIFY_WORKFLOW_PROPERTIES_ATTRIBUTES;
      blob(payloadMapSize(upserted?.fields), cause, 'ModifyWorkflowPropertiesCommandAttributes exceeds size limit.');
      if (memoOverLimit(limits, { fields: { ...current.memo?.fields, ...upserted?.fields } }, 'modified memo', log))
        throw terminateRun(cause, 'ModifyWorkflowPropertiesCommandAttributes. Memo exceeds size limit.');
      return;
    }
    case C.COMMAND_TYPE_START_CHILD_WORKFLOW_EXECUTION: {
      const attrs = command.startChildWorkflowExecutionCommandAttributes;
      const cause = F.WORKFLOW_TASK_FAILED_CAUSE_BAD_START_CHILD_EXECUTION_ATTRIBUTES;
      blob(
        payloadsSize(attrs?.input),
        cause,
        'StartChildWorkflowExecutionCommandAttributes. Input exceeds size limit.',
      );
      if (memoOverLimit(limits, attrs?.memo, 'child workflow memo', log))
        throw terminateRun(cause, 'StartChildWorkflowExecutionCommandAttributes.Memo exceeds size limit.');
      const saError = searchAttributesSizeError(limits, attrs?.searchAttributes);
      if (saError) throw terminateRun(cause, saError);
      return;
    }
    case C.COMMAND_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION:
      return blob(
        payloadsSize(command.signalExternalWorkflowExecutionCommandAttributes?.input),
        F.WORKFLOW_TASK_FAILED_CAUSE_BAD_SIGNAL_WORKFLOW_EXECUTION_ATTRIBUTES,
        'SignalExternalWorkflowExecutionCommandAttributes.Input exceeds size limit.',
      );
    default:
      return;
  }
}

/**
 * What an activity worker sends that is over the blob limit, as the real server's frontend treats it: a
 * result, cancel details or heartbeat details too big fail the attempt with a non-retryable server failure.
 */
export const oversizeActivityFailures = {
  completeResult: () => serverFailure('Complete result exceeds size limit.', true),
  cancelDetails: () => serverFailure('Cancel details exceed size limit.', true),
  heartbeatDetails: () => serverFailure('Heartbeat details exceed size limit.', true),
};

/**
 * A failure a worker reports (an activity's, a workflow task's): one over the blob limit is replaced, as the real
 * server does, by a non-retryable server failure that says so, with the original (truncated) as its cause.
 */
export function failureWithinLimit(limits: Limits, failure: Failure, what: string, log: Log): Failure {
  if (!blobOverLimit(limits, failureSize(failure), what, log)) return failure;
  return {
    ...serverFailure('Failure exceeds size limit.', true),
    cause: truncateFailure(failure, limits.blobSizeWarn),
  };
}

function serverFailure(message: string, nonRetryable: boolean): Failure {
  return { message, serverFailureInfo: { nonRetryable } };
}

/** The real server's failure truncation: message, source and stack within `maxBytes`, the failure type kept, causes as room allows. */
function truncateFailure(failure: Failure, maxBytes: number, depth = 20): Failure {
  let room = maxBytes;
  const cut = (text: string | null | undefined) => {
    const kept = Buffer.from(text ?? '', 'utf8')
      .subarray(0, Math.max(0, room))
      .toString('utf8')
      .replace(/\uFFFD$/, '');
    room -= Buffer.byteLength(kept) + (kept ? 4 : 0);
    return kept;
  };
  const info = failure.applicationFailureInfo
    ? {
        applicationFailureInfo: {
          nonRetryable: failure.applicationFailureInfo.nonRetryable,
          type: cut(failure.applicationFailureInfo.type),
        },
      }
    : failure.serverFailureInfo
      ? { serverFailureInfo: { nonRetryable: failure.serverFailureInfo.nonRetryable } }
      : {};
  const truncated: Failure = {
    ...info,
    source: cut(failure.source),
    message: cut(failure.message),
    stackTrace: cut(failure.stackTrace),
  };
  if (failure.cause && room > 4 && depth > 0) truncated.cause = truncateFailure(failure.cause, room - 4, depth - 1);
  return truncated;
}
