/**
 * Visibility: what List/Count/Describe show of executions. Each namespace's rows are kept from call to call
 * (./namespace-rows.ts), filtered by the visibility query language (./query.ts) and listed in the real server's
 * default order, a page at a time from a cursor (./page-token.ts).
 */
import type { Execution } from '../execution.js';
import { invalidArgument } from '../errors.js';
import { historySizeBytes } from '../engine/history-size.js';
import { msToTimestamp } from '../proto.js';
import type { NamespaceRecord, ExecutionStore } from '../store.js';
import { NamespaceRows } from './namespace-rows.js';
import type { IndexedRow } from './namespace-rows.js';
import { decodePageToken, encodePageToken } from './page-token.js';
import { compileVisibilityQuery, VisibilityQueryError } from './query.js';
import type { SearchAttributeType } from './query.js';
import { WRITABLE_SYSTEM_ATTRIBUTES } from './search-attributes.js';

export { compileVisibilityQuery, VisibilityQueryError };
export { toVisibilityRow } from './rows.js';
export * from './search-attributes.js';

function queryableAttributes(namespace: NamespaceRecord): Record<string, SearchAttributeType> {
  return { ...WRITABLE_SYSTEM_ATTRIBUTES, ...Object.fromEntries(namespace.searchAttributes) };
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
    searchAttributes: execution.searchAttributes.unpack(),
    taskQueue: execution.taskQueue,
    firstRunId: execution.firstRunId,
    historySizeBytes: historySizeBytes(execution),
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

const DEFAULT_PAGE_SIZE = 1000;

export class Visibility {
  private readonly namespaces = new Map<string, { registrations: string; rows: NamespaceRows }>();

  constructor(private readonly store: ExecutionStore) {}

  /** A run was created, changed or forgotten (the engine reports each): its row is updated before the next read. */
  changed(execution: Execution): void {
    this.namespaces.get(execution.namespace)?.rows.markChanged(execution);
  }

  list(
    namespace: NamespaceRecord,
    query: string,
    pageSize: number,
    pageToken: Uint8Array | null | undefined,
  ): { executions: object[]; nextPageToken: Buffer } {
    const cursor = decodePageToken(pageToken);
    const compiled = compile(query, namespace);
    const size = pageSize > 0 ? pageSize : DEFAULT_PAGE_SIZE;
    const page: IndexedRow[] = [];
    let more = false;
    for (const candidate of this.rowsOf(namespace).candidates(compiled.lookup, cursor)) {
      if (!compiled.matches(candidate.row)) continue;
      if (page.length === size) {
        more = true;
        break;
      }
      page.push(candidate);
    }
    return {
      executions: page.map(({ execution }) => executionInfo(execution)),
      nextPageToken: more ? encodePageToken(page.at(-1)!.row) : Buffer.alloc(0),
    };
  }

  count(namespace: NamespaceRecord, query: string): number {
    const compiled = compile(query, namespace);
    let count = 0;
    for (const candidate of this.rowsOf(namespace).candidates(compiled.lookup))
      if (compiled.matches(candidate.row)) count++;
    return count;
  }

  /** A namespace's rows: built on first use, and again when its registered search attributes change (rows decode by them). */
  private rowsOf(namespace: NamespaceRecord): NamespaceRows {
    const registrations = JSON.stringify([...namespace.searchAttributes]);
    let kept = this.namespaces.get(namespace.name);
    if (kept?.registrations !== registrations) {
      const rows = new NamespaceRows(
        namespace,
        this.store.runsInNamespace(namespace.name),
        (execution) => this.store.getRun(execution.runId) === execution,
      );
      this.namespaces.set(namespace.name, (kept = { registrations, rows }));
    }
    return kept.rows;
  }
}
