import { randomUUID } from 'node:crypto';
import type { Connection } from '@temporalio/client';
import { msToTs, TypedSearchAttributes } from '@temporalio/common';
import proto from '@temporalio/proto';
import { ORDER_SEARCH_ATTRIBUTES } from '../../../workflows/order/search-attributes.js';

/** How long a closed order's history stays in the cluster: a week, for ops to look back on what happened. */
export const RETENTION = '7 days';

/**
 * The namespace and the order's four search attributes, registered when missing, as docs/deploy.md has an operator do
 * with `temporal operator`: a second call changes nothing.
 */
export async function registerNamespace(connection: Connection, namespace: string): Promise<void> {
  const known = await connection.workflowService
    .describeNamespace({ namespace })
    .then(() => true)
    .catch((error: { code?: number }) => {
      if (error.code === 5) return false; // NOT_FOUND
      throw error;
    });
  if (!known)
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: msToTs(RETENTION),
    });
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = ORDER_SEARCH_ATTRIBUTES.filter((key) => customAttributes?.[key.name] === undefined);
  if (missing.length > 0)
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((key) => [key.name, indexedValueType(key.type)])),
    });
}

const { IndexedValueType } = proto.temporal.api.enums.v1;

function indexedValueType(
  type: (typeof ORDER_SEARCH_ATTRIBUTES)[number]['type'],
): proto.temporal.api.enums.v1.IndexedValueType {
  const name = `INDEXED_VALUE_TYPE_${TypedSearchAttributes.toMetadataType(type).toUpperCase()}`;
  return IndexedValueType[name as keyof typeof IndexedValueType];
}

/** The type of the readiness probe's workflows: never run, ended at once; not an order's. */
export const READY_PROBE_TYPE = 'clusterReadyProbe';

/**
 * Whether the cluster takes an order's start: a workflow started with the four search attributes set (history must
 * own the shard, the frontend must know the attributes), then terminated. Nothing polls its task queue, so it never
 * runs. Throws while it does not.
 */
export async function acceptsAStart(connection: Connection, namespace: string): Promise<void> {
  const workflowId = `cluster-ready-probe-${randomUUID()}`;
  const payload = (value: string) => ({
    metadata: { encoding: new TextEncoder().encode('json/plain') },
    data: new TextEncoder().encode(value),
  });
  await connection.workflowService.startWorkflowExecution({
    namespace,
    workflowId,
    requestId: randomUUID(),
    workflowType: { name: READY_PROBE_TYPE },
    taskQueue: { name: 'cluster-ready-probe' },
    searchAttributes: {
      indexedFields: Object.fromEntries(
        ORDER_SEARCH_ATTRIBUTES.map((key) => [key.name, payload(key.type === 'DOUBLE' ? '0' : '"probe"')]),
      ),
    },
  });
  await connection.workflowService.terminateWorkflowExecution({
    namespace,
    workflowExecution: { workflowId },
    reason: 'the cluster answered its readiness probe',
  });
}
