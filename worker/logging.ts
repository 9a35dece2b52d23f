import { Context, type Info as ActivityInfo } from '@temporalio/activity';
import { Runtime, type Logger as SdkLogger, type LogLevel as SdkLevel, type LogMetadata } from '@temporalio/worker';
import type { ApiLogEntry } from '../infra/ordering-api/index.js';
import type { LogFields, Logger, LogLevel } from '../infra/log.js';
import { orderIdOfWorkflow } from '../domain/index.js';

/**
 * The Temporal SDK's own lines (the worker's, the workflow and activity loggers', the core's) into `logger`, with the
 * order each is about. Must run before the process's first worker or connection.
 */
export function installRuntimeLogger(logger: Logger, level: LogLevel): void {
  Runtime.install({
    logger: sdkLogger(logger),
    // The core's lines too, which it would otherwise print to the console in its own format. Its INFO is chatter.
    telemetryOptions: {
      logging: { filter: { core: level === 'error' ? 'ERROR' : 'WARN', other: 'ERROR' }, forward: {} },
    },
  });
}

function sdkLogger(logger: Logger): SdkLogger {
  const log = (level: SdkLevel, message: string, meta?: LogMetadata) => {
    // TRACE is finer than MVE_LOG_LEVEL=debug goes.
    if (level !== 'TRACE') logger[LEVELS[level]](message, fieldsOfSdkMeta(meta));
  };
  return {
    log,
    trace: (message, meta) => log('TRACE', message, meta),
    debug: (message, meta) => log('DEBUG', message, meta),
    info: (message, meta) => log('INFO', message, meta),
    warn: (message, meta) => log('WARN', message, meta),
    error: (message, meta) => log('ERROR', message, meta),
  };
}

const LEVELS = { DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * The SDK's metadata as the log's fields: the order (from the workflow id), the run and the activity under the names
 * the API server uses too; a failure's type and message (and stack); other values as they are. Not the task token,
 * which completes the activity for whoever holds it.
 */
function fieldsOfSdkMeta(meta: LogMetadata = {}): LogFields {
  const { workflowId, runId, workflowRunId, activityType, durationMs, error, ...rest } = meta;
  const fields: Record<string, string | number | boolean | undefined> = {
    ...orderFields(workflowId, runId ?? workflowRunId, activityType),
    ms: typeof durationMs === 'number' ? durationMs : undefined,
  };
  if (error instanceof Error) {
    fields['error'] = `${error.name}: ${error.message}`;
    fields['stack'] = error.stack;
  }
  for (const [key, value] of Object.entries(rest)) {
    if (key === 'taskToken') continue;
    if (['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value as string | number | boolean;
  }
  return fields;
}

function orderFields(workflowId: unknown, runId: unknown, activity: unknown): LogFields {
  return {
    orderId: typeof workflowId === 'string' ? orderIdOfWorkflow(workflowId) : undefined,
    runId: typeof runId === 'string' ? runId : undefined,
    activity: typeof activity === 'string' ? activity : undefined,
  };
}

/**
 * One line per exchange with the ordering API, with the order whose activity made it and the API's trace id: at info
 * when it did not answer 2xx, at debug when it did.
 */
export function logApiCalls(logger: Logger): (entry: ApiLogEntry) => void {
  return (entry) => {
    const answered = entry.status !== undefined && entry.status >= 200 && entry.status <= 299;
    const outcome = entry.status ?? entry.error ?? 'no answer';
    logger[answered ? 'debug' : 'info'](`ordering API ${entry.call}: ${outcome}`, {
      ...currentActivity(),
      environment: entry.environment,
      request: entry.request,
      attempt: entry.attempt,
      status: entry.status,
      traceId: entry.traceId,
      ms: entry.durationMs,
      error: entry.error,
    });
  };
}

/** The order and activity of the activity running now; nothing outside one (the worker's own calls). */
function currentActivity(): LogFields {
  let info: ActivityInfo;
  try {
    info = Context.current().info;
  } catch {
    return {};
  }
  return fieldsOfActivity(info);
}

/** The order, the run and the activity an activity's lines are about. */
export function fieldsOfActivity(info: ActivityInfo): LogFields {
  return orderFields(info.workflowExecution?.workflowId, info.workflowExecution?.runId, info.activityType);
}
