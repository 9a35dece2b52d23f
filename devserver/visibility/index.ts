/**
 * Visibility: what List/Count/Describe show of executions. Rows are built from the store's executions and
 * filtered and ordered by the visibility query language (./query.ts).
 */
import type { Execution } from '../execution.js';
import { invalidArgument } from '../errors.js';
import { ExecutionStatus, msToTimestamp } from '../proto.js';
import type { NamespaceRecord, ExecutionStore } from '../store.js';
import { compileVisibilityQuery, VisibilityQueryError } from './query.js';
import type { ExecutionStatusName, SearchAttributeType, VisibilityRow } from './query.js';
import { decodeSearchAttribute, lookupAttributeType, WRITABLE_SYSTEM_ATTRIBUTES } from './search-attributes.js';
import type { SearchAttributeValue } from './search-attributes.js';

export { compileVisibilityQuery, VisibilityQueryError };
export * from './search-attributes.js';

const STATUS_NAMES: Record<number, ExecutionStatusName> = {
  [ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING]: 'Running',
  [ExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED]: 'Completed',
  [ExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED]: 'Failed',
  [ExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED]: 'Canceled',
  [ExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED]: 'Terminated',
  [ExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW]: 'ContinuedAsNew',
  [ExecutionStatus.WORKFLOW_EXECUTION_STATUS_TIMED_OUT]: 'TimedOut',
};

function queryableAttributes(namespace: NamespaceRecord): Record<string, SearchAttributeType> {
  return { ...WRITABLE_SYSTEM_ATTRIBUTES, ...Object.fromEntries(namespace.searchAttributes) };
}

export function toVisibilityRow(execution: Execution, namespace: NamespaceRecord): VisibilityRow {
  const searchAttributes: Record<string, SearchAttributeValue> = {};
  for (const [name, payload] of Object.entries(execution.searchAttributes.indexedFields ?? {})) {
    const type = lookupAttributeType(name, namespace.searchAttributes);
    if (type) searchAttributes[name] = decodeSearchAttribute(name, type, payload);
  }
  return {
    workflowId: execution.workflowId,
    runId: execution.runId,
    workflowType: execution.workflowType,
    taskQueue: execution.taskQueue,
    executionStatus: STATUS_NAMES[execution.status] ?? 'Running',
    startTime: execution.startTime,
    closeTime: execution.closeTime,
    executionTime: execution.executionTime,
    searchAttributes,
  };
}

/** WorkflowExecutionInfo as List and Describe return it. */
export function executionInfo(execution: Execution): object {
  return {
    execution: { workflowId: execution.workflowId, runId: execution.runId },
    type: { name: execution.workflowType },
    startTime: msToTimestamp(execution.startTime),
    closeTime: execution.closeTime === undefined ? undefined : msToTimestamp(execution.closeTime),
    status: execution.status,
    historyLength: execution.history.length,
    executionTime: msToTimestamp(execution.executionTime),
    memo: execution.memo ?? { fields: {} },
    searchAttributes: execution.searchAttributes,
    taskQueue: execution.taskQueue,
    firstRunId: execution.firstRunId,
    historySizeBytes: 0,
  };
}

function compile(query: string, namespace: NamespaceRecord) {
  try {
    return compileVisibilityQuery(query, queryableAttributes(namespace));
  } catch (error) {
    if (error instanceof VisibilityQueryError) throw invalidArgument(`invalid query: ${error.message}`);
    throw error;
  }
}

function matchingRows(store: ExecutionStore, namespace: NamespaceRecord, query: string): { row: VisibilityRow; execution: Execution }[] {
  const compiled = compile(query, namespace);
  const rows = [];
  for (const execution of store.runsInNamespace(namespace.name)) {
    const row = toVisibilityRow(execution, namespace);
    if (compiled.matches(row)) rows.push({ row, execution });
  }
  return rows.sort((a, b) => compiled.compare(a.row, b.row));
}

const DEFAULT_PAGE_SIZE = 1000;

export function listExecutions(
  store: ExecutionStore,
  namespace: NamespaceRecord,
  query: string,
  pageSize: number,
  pageToken: Uint8Array | null | undefined,
): { executions: object[]; nextPageToken: Buffer } {
  const offset = pageToken?.length ? Number(Buffer.from(pageToken).toString('utf8')) : 0;
  if (!Number.isInteger(offset) || offset < 0) throw invalidArgument('nextPageToken is not one this server issued');
  const size = pageSize > 0 ? pageSize : DEFAULT_PAGE_SIZE;
  const rows = matchingRows(store, namespace, query);
  const page = rows.slice(offset, offset + size);
  const next = offset + page.length;
  return {
    executions: page.map(({ execution }) => executionInfo(execution)),
    nextPageToken: next < rows.length ? Buffer.from(String(next)) : Buffer.alloc(0),
  };
}

export function countExecutions(store: ExecutionStore, namespace: NamespaceRecord, query: string): number {
  return matchingRows(store, namespace, query).length;
}
