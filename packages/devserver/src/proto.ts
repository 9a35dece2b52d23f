/**
 * The Temporal API protobuf root shipped with the SDK (@temporalio/proto), used by reflection: nothing is
 * code-generated. Also the small conversions between protobuf durations/timestamps/longs and milliseconds.
 */
import proto from '@temporalio/proto';

export { proto };
export const api = proto.temporal.api;

export const EventType = api.enums.v1.EventType;
export const CommandType = api.enums.v1.CommandType;
export const ExecutionStatus = api.enums.v1.WorkflowExecutionStatus;
export const RetryState = api.enums.v1.RetryState;
export const TimeoutType = api.enums.v1.TimeoutType;
export const TaskQueueKind = api.enums.v1.TaskQueueKind;
export const WorkflowTaskFailedCause = api.enums.v1.WorkflowTaskFailedCause;
export const IdReusePolicy = api.enums.v1.WorkflowIdReusePolicy;
export const IdConflictPolicy = api.enums.v1.WorkflowIdConflictPolicy;
export const UpdateStage = api.enums.v1.UpdateWorkflowExecutionLifecycleStage;
export const IndexedValueType = api.enums.v1.IndexedValueType;
export const PendingActivityState = api.enums.v1.PendingActivityState;
export const ContinueAsNewInitiator = api.enums.v1.ContinueAsNewInitiator;

/**
 * A history event as this server builds it: numbers where the generated types say Long (protobufjs
 * encodes either), and the one `...EventAttributes` field that matches the event type.
 */
export interface HistoryEvent {
  eventId: number;
  eventTime: Timestamp;
  eventType: number;
  version: number;
  taskId: number;
  [attributes: string]: unknown;
}
export type Payloads = proto.temporal.api.common.v1.IPayloads;
export type Payload = proto.temporal.api.common.v1.IPayload;
export type Failure = proto.temporal.api.failure.v1.IFailure;
export type RetryPolicy = proto.temporal.api.common.v1.IRetryPolicy;
export type Memo = proto.temporal.api.common.v1.IMemo;
export type SearchAttributes = proto.temporal.api.common.v1.ISearchAttributes;
export type Header = proto.temporal.api.common.v1.IHeader;
/** Durations and timestamps as read from requests (Long or number seconds) and as written (numbers). */
export interface Duration {
  seconds?: LongLike;
  nanos?: number | null;
}
export type Timestamp = Duration;

/** The part of the protobufjs reflection API we use (the SDK's root is a protobufjs Root). */
export interface ReflectedType {
  encode(message: object): { finish(): Uint8Array };
  decode(bytes: Uint8Array): object;
  fromObject(object: object): object;
  toObject(
    message: object,
    options?: { longs?: NumberConstructor | StringConstructor; defaults?: boolean },
  ): Record<string, unknown>;
}
interface ReflectedMethod {
  resolvedRequestType: ReflectedType | null;
  resolvedResponseType: ReflectedType | null;
}
export interface ReflectedService {
  resolveAll(): ReflectedService;
  methods: Record<string, ReflectedMethod>;
}
interface ReflectionRoot {
  lookupType(name: string): ReflectedType;
  lookupService(name: string): ReflectedService;
}
export const reflection = proto as unknown as ReflectionRoot;

export type LongLike = number | { toString(): string } | null | undefined;

export function toNumber(value: LongLike): number {
  if (value == null) return 0;
  return typeof value === 'number' ? value : Number(value.toString());
}

export function durationToMs(d: Duration | null | undefined): number {
  if (!d) return 0;
  return toNumber(d.seconds) * 1000 + Math.floor((d.nanos ?? 0) / 1e6);
}

/** What the real server finds wrong with a duration field: negative, or seconds and nanos of different signs. */
export function durationError(d: Duration | null | undefined): string | undefined {
  if (!d) return undefined;
  const seconds = toNumber(d.seconds);
  const nanos = d.nanos ?? 0;
  if ((seconds > 0 && nanos < 0) || (seconds < 0 && nanos > 0)) return 'has seconds and nanos of different signs';
  return durationToMs(d) < 0 ? 'must not be negative' : undefined;
}

export function msToDuration(ms: number): { seconds: number; nanos: number } {
  return { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1e6 };
}

export function timestampToMs(t: Timestamp | null | undefined): number {
  return durationToMs(t);
}

export function msToTimestamp(ms: number): { seconds: number; nanos: number } {
  return { seconds: Math.floor(ms / 1000), nanos: Math.round(ms % 1000) * 1e6 };
}

/** `Any`-typed protocol message bodies (update requests, acceptances, responses, rejections). */
export function packAny(typeName: string, message: object): { type_url: string; value: Uint8Array } {
  return {
    type_url: `type.googleapis.com/${typeName}`,
    value: reflection.lookupType(typeName).encode(message).finish(),
  };
}

export function unpackAny(any: { type_url?: string | null; value?: Uint8Array | null }): {
  typeName: string;
  body: object;
} {
  const typeName = (any.type_url ?? '').split('/').pop() ?? '';
  return { typeName, body: reflection.lookupType(typeName).decode(any.value ?? new Uint8Array()) };
}

/** EVENT_TYPE_WORKFLOW_TASK_STARTED -> workflowTaskStartedEventAttributes */
export function eventAttributesKey(type: number): string {
  const name = EventType[type];
  if (!name) throw new Error(`unknown event type ${type}`);
  const camel = name
    .replace('EVENT_TYPE_', '')
    .toLowerCase()
    .replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
  return `${camel}EventAttributes`;
}
