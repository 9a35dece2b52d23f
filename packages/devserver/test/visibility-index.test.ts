/**
 * Visibility's kept rows and indexes (src/visibility/namespace-rows.ts) answer exactly what the plain way
 * does — decode every execution, filter, sort — for many queries over a few hundred executions with random
 * attributes, before and after runs change, close, are forgotten or start, and page after page.
 */
import assert from 'node:assert/strict';
import test from 'ava';
import fc from 'fast-check';
import { HistoryCache } from '../src/event-history.js';
import type { Execution } from '../src/execution.js';
import { RpcError } from '../src/errors.js';
import { ExecutionStatus } from '../src/proto.js';
import type { Payload } from '../src/proto.js';
import { InMemoryStore } from '../src/store.js';
import type { NamespaceRecord } from '../src/store.js';
import { packSearchAttributes } from '../src/packed-message.js';
import { NamespaceRows } from '../src/visibility/namespace-rows.js';
import {
  compileVisibilityQuery,
  toVisibilityRow,
  Visibility,
  WRITABLE_SYSTEM_ATTRIBUTES,
} from '../src/visibility/index.js';
import type { SearchAttributeType } from '../src/visibility/index.js';

const NAMESPACE = 'default';
const REGISTERED: Record<string, SearchAttributeType> = {
  OrderStatus: 'Keyword',
  Environment: 'Keyword',
  TicketId: 'Keyword',
  Tags: 'KeywordList',
  MonthlyRate: 'Double',
  Paid: 'Bool',
  Notes: 'Text',
};

const ORDER_STATUSES = ['AwaitingApproval', 'Approved', 'Rejected'];
const ENVIRONMENTS = ['production', 'staging'];
const TAGS = ['a', 'b', 'c'];
const TYPES = ['OrderWorkflow', 'RefundWorkflow'];
const QUEUES = ['orders', 'refunds'];
const STATUSES = [
  ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
  ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
  ExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
  ExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED,
  ExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED,
];
const T0 = Date.parse('2026-01-01T00:00:00Z');
const MINUTE = 60_000;

const payload = (value: unknown, type: string): Payload => ({
  metadata: { encoding: Buffer.from('json/plain'), type: Buffer.from(type) },
  data: Buffer.from(JSON.stringify(value)),
});

type Attributes = Partial<{
  OrderStatus: string;
  Environment: string;
  TicketId: string;
  Tags: string[];
  MonthlyRate: number;
  Paid: boolean;
  Notes: string;
}>;

function searchAttributes(attributes: Attributes): Execution['searchAttributes'] {
  const indexedFields: Record<string, Payload> = {};
  for (const [name, value] of Object.entries(attributes))
    if (value !== undefined) indexedFields[name] = payload(value, REGISTERED[name]!);
  return packSearchAttributes({ indexedFields });
}

interface RunSpec {
  workflowType: string;
  taskQueue: string;
  status: number;
  /** Minutes after T0: few distinct values, so that order ties on times and falls to the run id. */
  startMinute: number;
  closeMinute: number;
  attributes: Attributes;
}

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
const attributesArb: fc.Arbitrary<Attributes> = fc.record({
  OrderStatus: maybe(fc.constantFrom(...ORDER_STATUSES)),
  Environment: maybe(fc.constantFrom(...ENVIRONMENTS)),
  TicketId: maybe(fc.constantFrom('T-1', 'T-2', 'T-3')),
  Tags: maybe(fc.subarray(TAGS, { minLength: 1 })),
  MonthlyRate: maybe(fc.constantFrom(5, 10, 20)),
  Paid: maybe(fc.boolean()),
  Notes: maybe(fc.constantFrom('red', 'red blue', 'green')),
});
const runArb: fc.Arbitrary<RunSpec> = fc.record({
  workflowType: fc.constantFrom(...TYPES),
  taskQueue: fc.constantFrom(...QUEUES),
  status: fc.constantFrom(...STATUSES),
  startMinute: fc.integer({ min: 0, max: 20 }),
  closeMinute: fc.integer({ min: 20, max: 30 }),
  attributes: attributesArb,
});

/** What visibility reads of an execution (its other state plays no part here). */
type Visible = Pick<
  Execution,
  | 'namespace'
  | 'workflowId'
  | 'runId'
  | 'firstRunId'
  | 'workflowType'
  | 'taskQueue'
  | 'status'
  | 'startTime'
  | 'executionTime'
  | 'closeTime'
  | 'memo'
  | 'searchAttributes'
  | 'history'
>;

const histories = new HistoryCache(0);
let runCounter = 0;
function execution(spec: RunSpec): Execution {
  const id = ++runCounter;
  const running = spec.status === ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING;
  const visible: Visible = {
    namespace: NAMESPACE,
    workflowId: `wf-${id % 250}`,
    runId: `run-${String(id).padStart(5, '0')}`,
    firstRunId: `run-${id}`,
    workflowType: spec.workflowType,
    taskQueue: spec.taskQueue,
    status: spec.status,
    startTime: T0 + spec.startMinute * MINUTE,
    executionTime: T0 + spec.startMinute * MINUTE,
    closeTime: running ? undefined : T0 + spec.closeMinute * MINUTE,
    memo: null,
    searchAttributes: searchAttributes(spec.attributes),
    history: histories.create(),
  };
  return visible as Execution;
}

interface World {
  store: InMemoryStore;
  namespace: NamespaceRecord;
  visibility: Visibility;
  /** Adds a run and reports it, as the engine does when it starts one. */
  start(spec: RunSpec): Execution;
}

function world(specs: RunSpec[]): World {
  const store = new InMemoryStore();
  const namespace = store.addNamespace(NAMESPACE, 0);
  for (const [name, type] of Object.entries(REGISTERED)) namespace.searchAttributes.set(name, type);
  const visibility = new Visibility(store);
  const start = (spec: RunSpec) => {
    const run = execution(spec);
    store.insertRun(run);
    visibility.changed(run);
    return run;
  };
  for (const spec of specs) start(spec);
  return { store, namespace, visibility, start };
}

/** The plain answer: every execution decoded, filtered and sorted. */
function plainList({ store, namespace }: World, query: string): string[] {
  const compiled = compileVisibilityQuery(query, {
    ...WRITABLE_SYSTEM_ATTRIBUTES,
    ...Object.fromEntries(namespace.searchAttributes),
  });
  return [...store.runsInNamespace(NAMESPACE)]
    .map((run) => toVisibilityRow(run, namespace))
    .filter((row) => compiled.matches(row))
    .sort((a, b) => compiled.compare(a, b))
    .map((row) => row.runId);
}

type Listed = { executions: object[]; nextPageToken: Buffer };
const runIdsOf = (page: Listed) =>
  page.executions.map((info) => (info as { execution: { runId: string } }).execution.runId);

/** Every page, following the tokens. */
function listAll({ visibility, namespace }: World, query: string, pageSize: number): string[] {
  const listed: string[] = [];
  let token: Buffer | undefined;
  do {
    const page = visibility.list(namespace, query, pageSize, token);
    listed.push(...runIdsOf(page));
    token = page.nextPageToken.length ? page.nextPageToken : undefined;
    // a token is given only when another page has rows
    if (token) assert.ok(page.executions.length > 0);
  } while (token);
  return listed;
}

// ---------------------------------------------------------------- queries

const quote = (text: string) => `'${text}'`;
const list = (values: string[]) => `(${values.map(quote).join(', ')})`;

/** Conditions an index can answer (= and IN on Keyword, KeywordList, ExecutionStatus), and others it cannot. */
const indexableArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...ORDER_STATUSES).map((v) => `OrderStatus = ${quote(v)}`),
  fc.subarray([...ORDER_STATUSES, 'Unknown'], { minLength: 1 }).map((vs) => `OrderStatus IN ${list(vs)}`),
  fc.constantFrom(...ENVIRONMENTS).map((v) => `Environment = "${v}"`),
  fc.constantFrom('T-1', 'T-2', 'T-9').map((v) => `TicketId = ${quote(v)}`),
  fc.constantFrom(...TAGS).map((v) => `Tags = ${quote(v)}`),
  fc.subarray(TAGS, { minLength: 1 }).map((vs) => `Tags IN ${list(vs)}`),
  fc
    .constantFrom("'Running'", "'Completed'", "'WORKFLOW_EXECUTION_STATUS_FAILED'", '5')
    .map((v) => `ExecutionStatus = ${v}`),
  fc
    .subarray(["'Running'", "'Terminated'", "'Completed'"], { minLength: 1 })
    .map((vs) => `ExecutionStatus IN (${vs.join(', ')})`),
  fc.constantFrom(...TYPES).map((v) => `WorkflowType = ${quote(v)}`),
  fc.constantFrom(...QUEUES).map((v) => `TaskQueue = ${quote(v)}`),
  fc.integer({ min: 0, max: 260 }).map((n) => `WorkflowId = 'wf-${n}'`),
  fc.integer({ min: 1, max: 400 }).map((n) => `RunId = 'run-${String(n).padStart(5, '0')}'`),
);
const otherArb: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...ORDER_STATUSES).map((v) => `OrderStatus != ${quote(v)}`),
  fc.constantFrom(...ORDER_STATUSES).map((v) => `OrderStatus NOT IN ${list([v])}`),
  fc.constant("OrderStatus STARTS_WITH 'A'"),
  fc.constantFrom('OrderStatus IS NULL', 'Tags IS NOT NULL', 'CloseTime IS NULL'),
  fc.constantFrom(5, 10, 20).map((v) => `MonthlyRate >= ${v}`),
  fc.constant('Paid = true'),
  fc.constantFrom('red', 'blue').map((v) => `Notes = ${quote(v)}`),
  fc.integer({ min: 0, max: 30 }).map((m) => `StartTime > '${new Date(T0 + m * MINUTE).toISOString()}'`),
);

const queryArb: fc.Arbitrary<string> = fc.letrec<{ query: string }>((tie) => ({
  query: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    indexableArb,
    otherArb,
    fc
      .tuple(tie('query'), fc.constantFrom('AND', 'OR', 'and'), tie('query'))
      .map(([a, op, b]) => `(${a}) ${op} (${b})`),
    fc.tuple(indexableArb, tie('query')).map(([a, b]) => `${a} AND (${b})`),
    tie('query').map((q) => `NOT (${q})`),
  ),
})).query;

const pageSizeArb = fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constant(0));

/** Every generated query, listed page by page and counted, gives the plain answer. */
function assertSameAsPlain(t: { pass(): void }, w: World, numRuns: number): void {
  fc.assert(
    fc.property(queryArb, pageSizeArb, (query, pageSize) => {
      const expected = plainList(w, query);
      assert.deepEqual(listAll(w, query, pageSize), expected, query);
      assert.equal(w.visibility.count(w.namespace, query), expected.length, query);
    }),
    { numRuns, seed: 20261123 },
  );
  t.pass();
}

const initialRuns = (count: number, seed: number) => fc.sample(runArb, { numRuns: count, seed });

// ---------------------------------------------------------------- tests

test('lists and counts exactly as the plain filter and sort, for any query and page size', (t) => {
  assertSameAsPlain(t, world(initialRuns(300, 1)), 400);
});

test('after runs change, close, are forgotten and start, the kept rows and indexes still answer as the plain way', (t) => {
  const w = world(initialRuns(300, 2));
  assertSameAsPlain(t, w, 100); // builds the indexes the queries ask for, which the changes must then keep up
  const runs = [...w.store.runsInNamespace(NAMESPACE)];
  const changes = fc.sample(fc.tuple(fc.nat(), fc.constantFrom('upsert', 'close', 'forget'), attributesArb), {
    numRuns: 150,
    seed: 3,
  });
  for (const [n, change, attributes] of changes) {
    const run = runs[n % runs.length]!;
    if (change === 'upsert') {
      run.searchAttributes = searchAttributes(attributes); // an upsert replaces the object
    } else if (change === 'close' && run.status === ExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      run.status = ExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED;
      run.closeTime = T0 + (25 + (n % 10)) * MINUTE;
    } else if (change === 'forget') {
      w.store.deleteRun(run.runId);
    }
    w.visibility.changed(run);
  }
  for (const spec of initialRuns(50, 4)) w.start(spec);
  assertSameAsPlain(t, w, 300);
});

test('registering a search attribute rebuilds the rows: values stored before count from then on', (t) => {
  const w = world([]);
  w.namespace.searchAttributes.delete('OrderStatus');
  const run = w.start({
    workflowType: 'OrderWorkflow',
    taskQueue: 'orders',
    status: STATUSES[0]!,
    startMinute: 0,
    closeMinute: 0,
    attributes: { OrderStatus: 'Approved' },
  });
  t.is(w.visibility.count(w.namespace, 'Tags IS NULL'), 1);
  w.namespace.searchAttributes.set('OrderStatus', 'Keyword');
  t.deepEqual(runIdsOf(w.visibility.list(w.namespace, "OrderStatus = 'Approved'", 10, undefined)), [run.runId]);
  assertSameAsPlain(t, world(initialRuns(100, 5)), 50);
});

test('a page token continues after the last row shown, even when runs start or close in between', (t) => {
  const w = world(initialRuns(200, 6));
  const query = "ExecutionStatus = 'Running' OR OrderStatus = 'AwaitingApproval'";
  const first = w.visibility.list(w.namespace, query, 20, undefined);
  const shown = runIdsOf(first);
  t.deepEqual(shown, plainList(w, query).slice(0, 20));
  // a new run sorts first, and a run further down closes: neither shifts the next page
  w.start({
    workflowType: 'OrderWorkflow',
    taskQueue: 'orders',
    status: STATUSES[0]!,
    startMinute: 40,
    closeMinute: 0,
    attributes: { OrderStatus: 'AwaitingApproval' },
  });
  const later = [...w.store.runsInNamespace(NAMESPACE)].find((run) => run.runId === plainList(w, query)[30])!;
  later.status = ExecutionStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED;
  later.closeTime = T0 + 29 * MINUTE;
  w.visibility.changed(later);
  const second = runIdsOf(w.visibility.list(w.namespace, query, 20, first.nextPageToken));
  const lastShown = plainList(w, query).indexOf(shown.at(-1)!);
  t.deepEqual(second, plainList(w, query).slice(lastShown + 1, lastShown + 21));
  t.false(second.some((runId) => shown.includes(runId)));
});

test('a page token this server did not issue is refused', (t) => {
  const w = world(initialRuns(5, 7));
  for (const token of ['12', 'not json', '[1,2]', '["x", 1, "run"]', '[null, "1", "run"]']) {
    const error = t.throws(() => w.visibility.list(w.namespace, '', 10, Buffer.from(token)), { instanceOf: RpcError });
    t.is(error?.message, 'nextPageToken is not one this server issued');
  }
});

test('an indexed query reads only the rows that have its values; others read every row', (t) => {
  const w = world(initialRuns(300, 8));
  const rows = new NamespaceRows(w.namespace, w.store.runsInNamespace(NAMESPACE), () => true);
  const attributes = { ...WRITABLE_SYSTEM_ATTRIBUTES, ...Object.fromEntries(w.namespace.searchAttributes) };
  const candidates = (query: string) => [...rows.candidates(compileVisibilityQuery(query, attributes).lookup)].length;
  const matching = (query: string) => plainList(w, query).length;

  t.is(candidates("OrderStatus = 'Approved'"), matching("OrderStatus = 'Approved'"));
  t.is(candidates("OrderStatus IN ('Approved', 'Rejected')"), matching("OrderStatus IN ('Approved', 'Rejected')"));
  t.is(candidates("Tags = 'a' OR ExecutionStatus = 'Failed'"), matching("Tags = 'a' OR ExecutionStatus = 'Failed'"));
  // AND: the narrower of the two
  const narrow = "TicketId = 'T-1' AND ExecutionStatus = 'Running'";
  t.is(candidates(narrow), Math.min(matching("TicketId = 'T-1'"), matching("ExecutionStatus = 'Running'")));
  t.is(candidates("WorkflowId = 'wf-7'"), matching("WorkflowId = 'wf-7'"));
  t.is(candidates("OrderStatus = 'NoSuchStatus'"), 0);
  for (const query of [
    '',
    "OrderStatus != 'Approved'",
    "NOT OrderStatus = 'Approved'",
    "OrderStatus = 'Approved' OR Paid = true",
  ])
    t.is(candidates(query), 300, query);
});
