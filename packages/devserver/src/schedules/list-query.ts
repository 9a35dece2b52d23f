/**
 * ListSchedules' and CountSchedules' query, as the real server takes it: the visibility query language over a
 * schedule's own search attributes, `TemporalSchedulePaused` and `ScheduleId`; every other system or Temporal*
 * attribute is refused ("invalid query filter for schedules: cannot filter on …").
 */
import { invalidArgument } from '../errors.js';
import type { NamespaceRecord } from '../store.js';
import { compileVisibilityQuery, VisibilityQueryError } from '../visibility/query.js';
import type { SearchAttributeType, VisibilityRow } from '../visibility/query.js';
import { parseQuery } from '../visibility/query-parser.js';
import type { Expression } from '../visibility/query-parser.js';
import {
  decodeSearchAttribute,
  lookupAttributeType,
  SYSTEM_SEARCH_ATTRIBUTES,
} from '../visibility/search-attributes.js';
import type { SearchAttributeValue } from '../visibility/search-attributes.js';
import type { Scheduler } from './scheduler.js';

const PAUSED = 'TemporalSchedulePaused';
const SCHEDULE_ID = 'ScheduleId';

function attributeNames(expression: Expression | undefined, into: Set<string>): Set<string> {
  if (!expression) return into;
  if ('operands' in expression) for (const operand of expression.operands) attributeNames(operand, into);
  else if ('operand' in expression) attributeNames(expression.operand, into);
  else into.add(expression.attribute.name);
  return into;
}

const isReserved = (name: string) => name in SYSTEM_SEARCH_ATTRIBUTES || name.startsWith('Temporal');

/** A predicate over a namespace's schedules; INVALID_ARGUMENT for a query the real server refuses. */
export function scheduleFilter(query: string, namespace: NamespaceRecord): (scheduler: Scheduler) => boolean {
  if (!query.trim()) return () => true;
  const attributes: Record<string, SearchAttributeType> = {
    [SCHEDULE_ID]: 'Keyword',
    ...Object.fromEntries(namespace.searchAttributes),
    [PAUSED]: 'Bool',
  };
  let compiled;
  try {
    for (const name of attributeNames(parseQuery(query).filter, new Set()))
      if (isReserved(name) && name !== PAUSED)
        throw invalidArgument(`invalid query filter for schedules: cannot filter on "${name}"`);
    compiled = compileVisibilityQuery(query, attributes);
  } catch (error) {
    if (error instanceof VisibilityQueryError) throw invalidArgument(`invalid query: ${error.message}`);
    throw error;
  }
  return (scheduler) => compiled.matches(scheduleRow(scheduler, namespace));
}

function scheduleRow(scheduler: Scheduler, namespace: NamespaceRecord): VisibilityRow {
  const state = scheduler.data;
  const searchAttributes: Record<string, SearchAttributeValue> = { [SCHEDULE_ID]: state.scheduleId };
  for (const [name, payload] of Object.entries(state.searchAttributes?.indexedFields ?? {})) {
    const type = lookupAttributeType(name, namespace.searchAttributes);
    if (type) searchAttributes[name] = decodeSearchAttribute(name, type, payload);
  }
  searchAttributes[PAUSED] = state.controls.paused;
  return {
    workflowId: state.scheduleId,
    runId: state.scheduleId,
    workflowType: '',
    taskQueue: '',
    executionStatus: 'Running',
    startTime: state.createTime,
    searchAttributes,
  };
}
