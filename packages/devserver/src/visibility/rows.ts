/** An execution as visibility queries see it: a VisibilityRow, its search attributes decoded. */
import type { Execution } from '../execution.js';
import { ExecutionStatus } from '../proto.js';
import type { NamespaceRecord } from '../store.js';
import type { ExecutionStatusName, VisibilityRow } from './query.js';
import { decodeSearchAttribute, lookupAttributeType } from './search-attributes.js';
import type { SearchAttributeValue } from './search-attributes.js';

const STATUS_NAMES: Record<number, ExecutionStatusName> = {
  [ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING]: 'Running',
  [ExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED]: 'Completed',
  [ExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED]: 'Failed',
  [ExecutionStatus.WORKFLOW_EXECUTION_STATUS_CANCELED]: 'Canceled',
  [ExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED]: 'Terminated',
  [ExecutionStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW]: 'ContinuedAsNew',
  [ExecutionStatus.WORKFLOW_EXECUTION_STATUS_TIMED_OUT]: 'TimedOut',
};

export function toVisibilityRow(execution: Execution, namespace: NamespaceRecord): VisibilityRow {
  const searchAttributes: Record<string, SearchAttributeValue> = {};
  for (const [name, payload] of Object.entries(execution.searchAttributes.unpack().indexedFields ?? {})) {
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
