import test from 'ava';
import fc from 'fast-check';
import {
  compileVisibilityQuery,
  VisibilityQueryError,
  type ExecutionStatusName,
  type SearchAttributeType,
  type VisibilityRow,
} from '../src/visibility/query.js';

const ATTRIBUTES: Record<string, SearchAttributeType> = {
  CustomerId: 'Keyword',
  Notes: 'Text',
  MonthlyRate: 'Int',
  Price: 'Double',
  Paid: 'Bool',
  DueAt: 'Datetime',
  Tags: 'KeywordList',
  Order: 'Keyword',
};

const T = (iso: string) => Date.parse(iso);

let nextRun = 0;
function row(overrides: Partial<VisibilityRow> = {}): VisibilityRow {
  nextRun++;
  return {
    workflowId: `wf-${nextRun}`,
    runId: `run-${String(nextRun).padStart(4, '0')}`,
    workflowType: 'OrderWorkflow',
    taskQueue: 'orders',
    executionStatus: 'Running',
    startTime: T('2026-01-01T00:00:00Z'),
    searchAttributes: {},
    ...overrides,
  };
}

function compile(query: string) {
  return compileVisibilityQuery(query, ATTRIBUTES);
}

/** The workflow ids a list call would answer, in list order. */
function list(query: string, rows: VisibilityRow[]): string[] {
  const compiled = compile(query);
  return rows
    .filter((r) => compiled.matches(r))
    .sort((a, b) => compiled.compare(a, b))
    .map((r) => r.workflowId);
}

/** The workflow ids matched, sorted by id, for tests about filtering only. */
function matched(query: string, rows: VisibilityRow[]): string[] {
  const compiled = compile(query);
  return rows
    .filter((r) => compiled.matches(r))
    .map((r) => r.workflowId)
    .sort();
}

function errorOf(query: string): string {
  const error = (() => {
    try {
      compile(query);
    } catch (caught) {
      return caught;
    }
    return undefined;
  })();
  if (!(error instanceof VisibilityQueryError))
    throw new Error(`expected a VisibilityQueryError for ${query}, got ${String(error)}`);
  return error.message;
}

// ---------------------------------------------------------------- basics and syntax

test('an empty or blank query matches every row', (t) => {
  const rows = [row({ workflowId: 'a' }), row({ workflowId: 'b', executionStatus: 'Failed' })];
  t.deepEqual(matched('', rows), ['a', 'b']);
  t.deepEqual(matched('  \n\t ', rows), ['a', 'b']);
});

test('keywords are case-insensitive but attribute names are case-sensitive', (t) => {
  const rows = [row({ workflowId: 'a', workflowType: 'X' }), row({ workflowId: 'b', workflowType: 'Y' })];
  t.deepEqual(matched("WorkflowType = 'X' or WorkflowType in ('Y') and not WorkflowId iS NuLl", rows), ['a', 'b']);
  t.deepEqual(matched("wOrKfLoWtYpE = 'X'".replace('wOrKfLoWtYpE', 'WorkflowType'), rows), ['a']);
  t.is(errorOf("workflowtype = 'X'"), "unknown search attribute 'workflowtype' at position 1");
});

test('strings take single or double quotes, doubled quotes and backslash escapes', (t) => {
  const ids = ["it's", 'say "hi"', 'back\\slash', 'line\nbreak', 'tab\there'];
  const rows = ids.map((workflowId) => row({ workflowId }));
  t.deepEqual(matched("WorkflowId = 'it''s'", rows), ["it's"]);
  t.deepEqual(matched("WorkflowId = 'it\\'s'", rows), ["it's"]);
  t.deepEqual(matched('WorkflowId = "it\'s"', rows), ["it's"]);
  t.deepEqual(matched('WorkflowId = "say ""hi"""', rows), ['say "hi"']);
  t.deepEqual(matched('WorkflowId = \'say \\"hi\\"\'', rows), ['say "hi"']);
  t.deepEqual(matched("WorkflowId = 'back\\\\slash'", rows), ['back\\slash']);
  t.deepEqual(matched("WorkflowId = 'line\\nbreak'", rows), ['line\nbreak']);
  t.deepEqual(matched("WorkflowId = 'tab\\there'", rows), ['tab\there']);
});

test('backticks quote attribute names, including reserved words', (t) => {
  const rows = [row({ workflowId: 'a', searchAttributes: { Order: 'o-1' } }), row({ workflowId: 'b' })];
  t.deepEqual(matched("`Order` = 'o-1'", rows), ['a']);
  t.deepEqual(matched("`WorkflowId` = 'b'", rows), ['b']);
  t.is(
    errorOf("Order = 'o-1'"),
    "unexpected token 'Order' at position 1; expected a search attribute name, NOT or '('; ORDER is a reserved word; quote an attribute of that name as `Order`",
  );
});

test('<> is the same as !=', (t) => {
  const rows = [row({ workflowId: 'a' }), row({ workflowId: 'b' })];
  t.deepEqual(matched("WorkflowId <> 'a'", rows), ['b']);
  t.deepEqual(matched("WorkflowId != 'a'", rows), ['b']);
});

// ---------------------------------------------------------------- precedence and logic

const logicRows = () => [
  row({ workflowId: 'a1', workflowType: 'A', taskQueue: 'one' }),
  row({ workflowId: 'a2', workflowType: 'A', taskQueue: 'two' }),
  row({ workflowId: 'b1', workflowType: 'B', taskQueue: 'one' }),
  row({ workflowId: 'b2', workflowType: 'B', taskQueue: 'two' }),
];

test('AND binds tighter than OR, and brackets override it', (t) => {
  const rows = logicRows();
  t.deepEqual(matched("WorkflowType = 'A' OR WorkflowType = 'B' AND TaskQueue = 'one'", rows), ['a1', 'a2', 'b1']);
  t.deepEqual(matched("WorkflowType = 'B' AND TaskQueue = 'one' OR WorkflowType = 'A'", rows), ['a1', 'a2', 'b1']);
  t.deepEqual(matched("(WorkflowType = 'A' OR WorkflowType = 'B') AND TaskQueue = 'one'", rows), ['a1', 'b1']);
  t.deepEqual(matched("((WorkflowType = 'A')) AND ((TaskQueue = 'two' OR (WorkflowId = 'a1')))", rows), ['a1', 'a2']);
});

test('NOT binds tighter than AND and applies to a bracketed group', (t) => {
  const rows = logicRows();
  t.deepEqual(matched("NOT WorkflowType = 'A' AND TaskQueue = 'one'", rows), ['b1']);
  t.deepEqual(matched("NOT (WorkflowType = 'A' AND TaskQueue = 'one')", rows), ['a2', 'b1', 'b2']);
  t.deepEqual(matched("NOT NOT WorkflowType = 'A'", rows), ['a1', 'a2']);
});

test('a missing attribute satisfies no comparison, not even != or NOT; only IS NULL finds it', (t) => {
  const rows = [
    row({ workflowId: 'five', searchAttributes: { MonthlyRate: 5 } }),
    row({ workflowId: 'six', searchAttributes: { MonthlyRate: 6 } }),
    row({ workflowId: 'none' }),
    row({ workflowId: 'null', searchAttributes: { MonthlyRate: null } }),
  ];
  t.deepEqual(matched('MonthlyRate != 5', rows), ['six']);
  t.deepEqual(matched('NOT MonthlyRate = 5', rows), ['six']);
  t.deepEqual(matched('MonthlyRate NOT IN (5)', rows), ['six']);
  t.deepEqual(matched('NOT MonthlyRate BETWEEN 0 AND 5', rows), ['six']);
  t.deepEqual(matched('MonthlyRate IS NULL', rows), ['none', 'null']);
  t.deepEqual(matched('NOT MonthlyRate IS NOT NULL', rows), ['none', 'null']);
  t.deepEqual(matched('MonthlyRate IS NOT NULL', rows), ['five', 'six']);
  // An unknown operand does not block an OR whose other side is true.
  t.deepEqual(matched("MonthlyRate = 5 OR WorkflowId = 'none'", rows), ['five', 'none']);
  t.deepEqual(matched("NOT (MonthlyRate = 5 AND WorkflowId = 'nothing')", rows), ['five', 'none', 'null', 'six']);
});

test('a stored value of the wrong type is treated as missing', (t) => {
  const rows = [
    row({ workflowId: 'text', searchAttributes: { MonthlyRate: '5', Tags: 'a', Paid: 'true' } }),
    row({ workflowId: 'empty-list', searchAttributes: { Tags: [] } }),
  ];
  t.deepEqual(matched('MonthlyRate = 5 OR MonthlyRate != 5', rows), []);
  t.deepEqual(matched("Tags = 'a' OR Tags != 'a'", rows), []);
  t.deepEqual(matched('Paid = true OR Paid = false', rows), []);
  t.deepEqual(matched('Tags IS NULL', rows), ['empty-list', 'text']);
});

// ---------------------------------------------------------------- operators by type

test('Keyword: every comparison, IN, BETWEEN, STARTS_WITH and IS NULL', (t) => {
  const rows = ['apple', 'banana', 'cherry', 'apricot'].map((c) =>
    row({ workflowId: c, searchAttributes: { CustomerId: c } }),
  );
  rows.push(row({ workflowId: 'none' }));
  const m = (q: string) => matched(q, rows);
  t.deepEqual(m("CustomerId = 'banana'"), ['banana']);
  t.deepEqual(m("CustomerId != 'banana'"), ['apple', 'apricot', 'cherry']);
  t.deepEqual(m("CustomerId < 'banana'"), ['apple', 'apricot']);
  t.deepEqual(m("CustomerId <= 'banana'"), ['apple', 'apricot', 'banana']);
  t.deepEqual(m("CustomerId > 'banana'"), ['cherry']);
  t.deepEqual(m("CustomerId >= 'banana'"), ['banana', 'cherry']);
  t.deepEqual(m("CustomerId IN ('apple', 'cherry', 'kiwi')"), ['apple', 'cherry']);
  t.deepEqual(m("CustomerId NOT IN ('apple', 'cherry')"), ['apricot', 'banana']);
  t.deepEqual(m("CustomerId BETWEEN 'apricot' AND 'banana'"), ['apricot', 'banana']);
  t.deepEqual(m("CustomerId NOT BETWEEN 'apricot' AND 'banana'"), ['apple', 'cherry']);
  t.deepEqual(m("CustomerId STARTS_WITH 'ap'"), ['apple', 'apricot']);
  t.deepEqual(m("CustomerId NOT STARTS_WITH 'ap'"), ['banana', 'cherry']);
  t.deepEqual(m('CustomerId IS NULL'), ['none']);
  t.deepEqual(m('CustomerId IS NOT NULL'), ['apple', 'apricot', 'banana', 'cherry']);
});

test('system Keyword attributes: WorkflowId, RunId, WorkflowType, TaskQueue', (t) => {
  const a = row({ workflowId: 'order-1', workflowType: 'Provision', taskQueue: 'q-fast' });
  const b = row({ workflowId: 'order-2', workflowType: 'Decommission', taskQueue: 'q-slow' });
  t.deepEqual(matched("WorkflowId STARTS_WITH 'order-'", [a, b]), ['order-1', 'order-2']);
  t.deepEqual(matched(`RunId = '${b.runId}'`, [a, b]), ['order-2']);
  t.deepEqual(matched("WorkflowType IN ('Provision')", [a, b]), ['order-1']);
  t.deepEqual(matched("TaskQueue > 'q-g'", [a, b]), ['order-2']);
});

test('Int: comparisons, IN, BETWEEN, signs, decimals and exponents', (t) => {
  const rows = [-3, 0, 5, 10, 1000].map((n) => row({ workflowId: `n${n}`, searchAttributes: { MonthlyRate: n } }));
  const m = (q: string) => matched(q, rows);
  t.deepEqual(m('MonthlyRate = 5'), ['n5']);
  t.deepEqual(m('MonthlyRate != 5'), ['n-3', 'n0', 'n10', 'n1000']);
  t.deepEqual(m('MonthlyRate < 0'), ['n-3']);
  t.deepEqual(m('MonthlyRate <= 0'), ['n-3', 'n0']);
  t.deepEqual(m('MonthlyRate > 5'), ['n10', 'n1000']);
  t.deepEqual(m('MonthlyRate >= 5'), ['n10', 'n1000', 'n5']);
  t.deepEqual(m('MonthlyRate = -3'), ['n-3']);
  t.deepEqual(m('MonthlyRate > - 4 AND MonthlyRate < +1'), ['n-3', 'n0']);
  t.deepEqual(m('MonthlyRate > 4.5 AND MonthlyRate < 1e1'), ['n5']);
  t.deepEqual(m('MonthlyRate = 1E3'), ['n1000']);
  t.deepEqual(m('MonthlyRate IN (0, 10, 11)'), ['n0', 'n10']);
  t.deepEqual(m('MonthlyRate NOT IN (0, 10)'), ['n-3', 'n1000', 'n5']);
  t.deepEqual(m('MonthlyRate BETWEEN 0 AND 10'), ['n0', 'n10', 'n5']);
  t.deepEqual(m('MonthlyRate NOT BETWEEN 0 AND 10'), ['n-3', 'n1000']);
  t.deepEqual(m('MonthlyRate BETWEEN 10 AND 0'), [], 'an empty range matches nothing');
});

test('Double: fractional comparisons', (t) => {
  const rows = [0.5, 1.25, 2].map((n) => row({ workflowId: `p${n}`, searchAttributes: { Price: n } }));
  t.deepEqual(matched('Price = 1.25', rows), ['p1.25']);
  t.deepEqual(matched('Price > .5', rows), ['p1.25', 'p2']);
  t.deepEqual(matched('Price < 2', rows), ['p0.5', 'p1.25']);
  t.deepEqual(matched('Price BETWEEN 0.5 AND 1.3', rows), ['p0.5', 'p1.25']);
  t.deepEqual(matched('Price IN (2, 0.5)', rows), ['p0.5', 'p2']);
});

test('Bool: =, !=, IN with true and false in any case', (t) => {
  const rows = [
    row({ workflowId: 'yes', searchAttributes: { Paid: true } }),
    row({ workflowId: 'no', searchAttributes: { Paid: false } }),
  ];
  t.deepEqual(matched('Paid = true', rows), ['yes']);
  t.deepEqual(matched('Paid = FALSE', rows), ['no']);
  t.deepEqual(matched('Paid != True', rows), ['no']);
  t.deepEqual(matched('Paid IN (true, false)', rows), ['no', 'yes']);
  t.deepEqual(matched('Paid NOT IN (true)', rows), ['no']);
});

test('ExecutionStatus by name, by enum constant and by number', (t) => {
  const statuses: ExecutionStatusName[] = [
    'Running',
    'Completed',
    'Failed',
    'Canceled',
    'Terminated',
    'ContinuedAsNew',
    'TimedOut',
  ];
  const rows = statuses.map((executionStatus) => row({ workflowId: executionStatus, executionStatus }));
  t.deepEqual(matched("ExecutionStatus = 'Running'", rows), ['Running']);
  t.deepEqual(matched("ExecutionStatus = 'WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW'", rows), ['ContinuedAsNew']);
  t.deepEqual(matched('ExecutionStatus = 7', rows), ['TimedOut']);
  t.deepEqual(matched("ExecutionStatus IN ('Completed', 3)", rows), ['Completed', 'Failed']);
  t.deepEqual(matched("ExecutionStatus NOT IN ('Running', 'Completed', 'Failed', 'Canceled', 'Terminated')", rows), [
    'ContinuedAsNew',
    'TimedOut',
  ]);
  t.deepEqual(matched("ExecutionStatus != 'Running'", rows).length, 6);
  t.deepEqual(
    matched("ExecutionStatus = 'Unspecified'", rows),
    [],
    'the real server accepts Unspecified; no execution has it',
  );
});

test('Datetime: RFC 3339 instants with offsets and fractions, compared as instants', (t) => {
  const rows = [
    row({ workflowId: 'jan1', startTime: T('2026-01-01T00:00:00Z') }),
    row({ workflowId: 'jan1+1ms', startTime: T('2026-01-01T00:00:00.001Z') }),
    row({ workflowId: 'jan2', startTime: T('2026-01-02T00:00:00Z') }),
  ];
  const m = (q: string) => matched(q, rows);
  t.deepEqual(m("StartTime = '2026-01-01T00:00:00Z'"), ['jan1']);
  t.deepEqual(m("StartTime = '2026-01-01T01:00:00+01:00'"), ['jan1'], 'same instant in another zone');
  t.deepEqual(m("StartTime = '2025-12-31T19:00:00.001-05:00'"), ['jan1+1ms']);
  t.deepEqual(m("StartTime > '2026-01-01T00:00:00Z'"), ['jan1+1ms', 'jan2']);
  t.deepEqual(m("StartTime > '2026-01-01T00:00:00.0005Z'"), ['jan1+1ms', 'jan2'], 'sub-millisecond bounds count');
  t.deepEqual(m("StartTime < '2026-01-01T00:00:00.000999999Z'"), ['jan1']);
  t.deepEqual(m("StartTime >= '2026-01-01T00:00:00.001Z'"), ['jan1+1ms', 'jan2']);
  t.deepEqual(m("StartTime <= '2026-01-01T00:00:00.001Z'"), ['jan1', 'jan1+1ms']);
  t.deepEqual(m("StartTime != '2026-01-02T00:00:00Z'"), ['jan1', 'jan1+1ms']);
  t.deepEqual(m("StartTime BETWEEN '2026-01-01T00:00:00.001Z' AND '2026-01-02T00:00:00Z'"), ['jan1+1ms', 'jan2']);
  t.deepEqual(m("StartTime NOT BETWEEN '2026-01-01T00:00:00.001Z' AND '2026-01-02T00:00:00Z'"), ['jan1']);
  t.deepEqual(m("StartTime IN ('2026-01-02T00:00:00Z', '2026-01-01T00:00:00Z')"), ['jan1', 'jan2']);
  t.deepEqual(m("StartTime > '2026-01-01t00:00:00z'"), ['jan1+1ms', 'jan2'], 'RFC 3339 allows lower-case t and z');
});

test('Datetime: integer nanoseconds since the epoch, as the real server accepts', (t) => {
  const jan1 = T('2026-01-01T00:00:00Z');
  const rows = [row({ workflowId: 'jan1', startTime: jan1 }), row({ workflowId: 'later', startTime: jan1 + 1 })];
  const nanos = `${BigInt(jan1) * 1_000_000n}`;
  t.deepEqual(matched(`StartTime = ${nanos}`, rows), ['jan1']);
  t.deepEqual(matched(`StartTime > ${nanos}`, rows), ['later']);
  t.deepEqual(matched(`StartTime BETWEEN ${nanos} AND '2026-01-01T00:00:00.001Z'`, rows), ['jan1', 'later']);
  t.deepEqual(matched('StartTime > -1000000', rows), ['jan1', 'later'], 'before the epoch');
});

test('Datetime: CloseTime and ExecutionTime are missing until set, custom Datetime is epoch ms', (t) => {
  const rows = [
    row({ workflowId: 'open', executionTime: T('2026-01-01T00:00:00Z') }),
    row({
      workflowId: 'closed',
      executionStatus: 'Completed',
      closeTime: T('2026-01-03T00:00:00Z'),
      searchAttributes: { DueAt: T('2026-02-01T00:00:00Z') },
    }),
  ];
  t.deepEqual(matched("CloseTime > '2026-01-01T00:00:00Z'", rows), ['closed']);
  t.deepEqual(matched("CloseTime < '2100-01-01T00:00:00Z'", rows), ['closed'], 'an open execution has no close time');
  t.deepEqual(matched('CloseTime IS NULL', rows), ['open']);
  t.deepEqual(matched('ExecutionTime IS NOT NULL', rows), ['open']);
  t.deepEqual(matched("DueAt >= '2026-02-01T00:00:00Z'", rows), ['closed']);
});

test('KeywordList: = means contains, IN means contains any, != and NOT IN their negations', (t) => {
  const rows = [
    row({ workflowId: 'ab', searchAttributes: { Tags: ['a', 'b'] } }),
    row({ workflowId: 'c', searchAttributes: { Tags: ['c'] } }),
    row({ workflowId: 'none' }),
  ];
  t.deepEqual(matched("Tags = 'a'", rows), ['ab']);
  t.deepEqual(matched("Tags = 'b' AND Tags = 'a'", rows), ['ab']);
  t.deepEqual(matched("Tags != 'a'", rows), ['c']);
  t.deepEqual(matched("Tags IN ('b', 'c')", rows), ['ab', 'c']);
  t.deepEqual(matched("Tags IN ('x', 'y')", rows), []);
  t.deepEqual(matched("Tags NOT IN ('b', 'x')", rows), ['c']);
  t.deepEqual(matched('Tags IS NULL', rows), ['none']);
});

test('Text: = matches whole words in any case; any word of the query is enough', (t) => {
  const rows = [
    row({ workflowId: 'dashes', searchAttributes: { Notes: 'my-business-id-foobar' } }),
    row({ workflowId: 'spaces', searchAttributes: { Notes: 'My Business ID FooBar' } }),
    row({ workflowId: 'other', searchAttributes: { Notes: 'urgent: router in Zürich' } }),
  ];
  t.deepEqual(matched("Notes = 'foobar'", rows), ['dashes', 'spaces']);
  t.deepEqual(matched("Notes = 'FOOBAR'", rows), ['dashes', 'spaces']);
  t.deepEqual(matched("Notes = 'foo'", rows), [], 'part of a word does not match');
  t.deepEqual(matched("Notes = 'zürich'", rows), ['other']);
  t.deepEqual(matched("Notes = 'router, nothing'", rows), ['other']);
  t.deepEqual(matched("Notes != 'business'", rows), ['other']);
});

// ---------------------------------------------------------------- ordering

test('default order: open executions first, then by close time and start time, newest first; run id breaks ties', (t) => {
  const rows = [
    row({ workflowId: 'closed-early', closeTime: T('2026-01-05T00:00:00Z'), startTime: T('2026-01-04T00:00:00Z') }),
    row({ workflowId: 'open-old', startTime: T('2026-01-01T00:00:00Z') }),
    row({ workflowId: 'closed-late', closeTime: T('2026-01-06T00:00:00Z'), startTime: T('2026-01-01T00:00:00Z') }),
    row({ workflowId: 'open-new', startTime: T('2026-01-03T00:00:00Z') }),
    row({ workflowId: 'tie-2', runId: 'zz', startTime: T('2026-01-02T00:00:00Z') }),
    row({ workflowId: 'tie-1', runId: 'aa', startTime: T('2026-01-02T00:00:00Z') }),
  ];
  t.deepEqual(list('', rows), ['open-new', 'tie-1', 'tie-2', 'open-old', 'closed-late', 'closed-early']);
});

test("ORDER BY is refused, as the real server's SQL visibility refuses it", (t) => {
  for (const query of [
    'ORDER BY StartTime',
    "WorkflowId != 'b' ORDER BY StartTime DESC, `WorkflowId`",
    'ORDER BY Notes',
  ])
    t.is(errorOf(query), "operation is not supported: 'ORDER BY' clause", query);
});

// ---------------------------------------------------------------- errors

const errors: Array<[string, string]> = [
  ["OrderStatuss = 'x'", "unknown search attribute 'OrderStatuss' at position 1"],
  ["MonthlyRate = 'abc'", "value 'abc' is not a valid Int for 'MonthlyRate' at position 15"],
  ['Price > "cheap"', 'value "cheap" is not a valid Double for \'Price\' at position 9'],
  ['MonthlyRate = 1e999', "value 1e999 is not a valid Int for 'MonthlyRate' at position 15"],
  ['CustomerId = 42', "value 42 is not a valid Keyword for 'CustomerId' at position 14"],
  ['Tags IN (1)', "value 1 is not a valid KeywordList for 'Tags' at position 10"],
  ["Paid = 'yes'", "value 'yes' is not a valid Bool for 'Paid' at position 8; expected true or false"],
  [
    "StartTime > '2026-02-30T00:00:00Z'",
    "value '2026-02-30T00:00:00Z' is not a valid Datetime for 'StartTime' at position 13; expected an RFC 3339 time such as '2026-01-01T00:00:00Z' or integer nanoseconds since the epoch",
  ],
  [
    "CloseTime < '2026-01-01'",
    "value '2026-01-01' is not a valid Datetime for 'CloseTime' at position 13; expected an RFC 3339 time such as '2026-01-01T00:00:00Z' or integer nanoseconds since the epoch",
  ],
  [
    'DueAt > 1.5',
    "value 1.5 is not a valid Datetime for 'DueAt' at position 9; expected an RFC 3339 time such as '2026-01-01T00:00:00Z' or integer nanoseconds since the epoch",
  ],
  [
    "ExecutionStatus = 'Runing'",
    "value 'Runing' is not a valid ExecutionStatus at position 19; expected one of Running, Completed, Failed, Canceled, Terminated, ContinuedAsNew, TimedOut",
  ],
  [
    'ExecutionStatus = 9',
    'value 9 is not a valid ExecutionStatus at position 19; expected one of Running, Completed, Failed, Canceled, Terminated, ContinuedAsNew, TimedOut',
  ],
  ["Notes = ' -- '", "value ' -- ' for Text attribute 'Notes' has no words to match at position 9"],
  [
    "MonthlyRate STARTS_WITH '1'",
    "operator STARTS_WITH is not supported on Int attribute 'MonthlyRate' at position 13",
  ],
  ["Tags STARTS_WITH 'a'", "operator STARTS_WITH is not supported on KeywordList attribute 'Tags' at position 6"],
  ["Tags > 'a'", "operator > is not supported on KeywordList attribute 'Tags' at position 6"],
  ["Tags BETWEEN 'a' AND 'b'", "operator BETWEEN is not supported on KeywordList attribute 'Tags' at position 6"],
  ["Notes IN ('a')", "operator IN is not supported on Text attribute 'Notes' at position 7"],
  ["Notes < 'a'", "operator < is not supported on Text attribute 'Notes' at position 7"],
  ['Paid < true', "operator < is not supported on Bool attribute 'Paid' at position 6"],
  ["ExecutionStatus >= 'Running'", 'operator >= is not supported on ExecutionStatus at position 17'],
  [
    "ExecutionStatus NOT STARTS_WITH 'R'",
    'operator NOT STARTS_WITH is not supported on ExecutionStatus at position 17',
  ],
  [
    "StartTime STARTS_WITH '2026'",
    "operator STARTS_WITH is not supported on Datetime attribute 'StartTime' at position 11",
  ],
  ["WorkflowId = 'a' AND AND", "unexpected token 'AND' at position 22; expected a search attribute name, NOT or '('"],
  ["WorkflowId = 'a' OR", "unexpected end of query at position 20; expected a search attribute name, NOT or '('"],
  [
    "WorkflowId = 'a' WorkflowType = 'b'",
    "unexpected token 'WorkflowType' at position 18; expected AND, OR, ORDER BY or the end of the query",
  ],
  [
    "WorkflowId = 'a' LIMIT 10",
    "unexpected token 'LIMIT' at position 18; expected AND, OR, ORDER BY or the end of the query",
  ],
  [
    "ORDER BY StartTime WorkflowId = 'a'",
    "unexpected token 'WorkflowId' at position 20; expected the end of the query",
  ],
  ["WorkflowId = 'a' ORDER StartTime", "unexpected token 'StartTime' at position 24; expected BY after ORDER"],
  ["(WorkflowId = 'a'", "unexpected end of query at position 18; expected ')'"],
  ["WorkflowId = 'a')", "unexpected token ')' at position 17; expected AND, OR, ORDER BY or the end of the query"],
  ['WorkflowId = abc', "unexpected token 'abc' at position 14; expected a value; quote text values, e.g. 'abc'"],
  [
    'WorkflowId = NULL',
    "unexpected token 'NULL' at position 14; expected a value; use IS NULL or IS NOT NULL to test for a missing attribute",
  ],
  ["'abc' = WorkflowId", "unexpected string 'abc' at position 1; expected a search attribute name, NOT or '('"],
  [
    'WorkflowId',
    'unexpected end of query at position 11; expected an operator (=, !=, <, <=, >, >=, IN, NOT IN, BETWEEN, NOT BETWEEN, STARTS_WITH, NOT STARTS_WITH, IS NULL, IS NOT NULL)',
  ],
  ["WorkflowId == 'a'", "unexpected token '=' at position 13; expected a value"],
  ["WorkflowId LIKE 'a%'", 'operator LIKE is not supported at position 12; use STARTS_WITH for a prefix match'],
  ["WorkflowId NOT 'a'", "unexpected string 'a' at position 16; expected IN, BETWEEN or STARTS_WITH after NOT"],
  ['WorkflowId IS 5', "unexpected token '5' at position 15; expected NULL or NOT NULL"],
  ['WorkflowId IN ()', "unexpected token ')' at position 16; expected a value"],
  ["WorkflowId IN 'a'", "unexpected string 'a' at position 15; expected '(' to open the list of values"],
  ["WorkflowId IN ('a' 'b')", "unexpected string 'b' at position 20; expected ',' or ')'"],
  [
    'MonthlyRate BETWEEN 1 OR 2',
    "unexpected token 'OR' at position 23; expected AND between the two bounds of BETWEEN",
  ],
  ["WorkflowId = 'abc", 'unterminated string starting at position 14'],
  ['`WorkflowId = 1', 'unterminated quoted attribute name starting at position 1'],
  ['`` = 1', 'empty quoted attribute name at position 1'],
  ["WorkflowId = 'a' # comment", "unexpected character '#' at position 18"],
  ['MonthlyRate > 12abc', "invalid number '12abc' at position 15"],
];

for (const [query, message] of errors) {
  test(`error: ${query}`, (t) => {
    t.is(errorOf(query), message);
  });
}

test('a system attribute cannot be shadowed by a custom one of the same name', (t) => {
  const compiled = compileVisibilityQuery("StartTime > '2026-01-01T00:00:00Z'", { StartTime: 'Keyword' });
  t.true(compiled.matches(row({ startTime: T('2026-01-02T00:00:00Z') })));
});

test('an attribute named like a prototype property is unknown unless registered', (t) => {
  t.is(errorOf("toString = 'x'"), "unknown search attribute 'toString' at position 1");
  t.is(errorOf("constructor = 'x'"), "unknown search attribute 'constructor' at position 1");
});

// ---------------------------------------------------------------- properties

type Style = (keyword: string) => string;
const STYLES: Style[] = [(k) => k, (k) => k.toLowerCase(), (k) => k[0] + k.slice(1).toLowerCase()];

const KEYWORDS = ['a', 'b', 'ab', "o'k"];
const INTS = [-2, 0, 1, 3];
const DOUBLES = [-1.5, 0, 2.25];
const INSTANTS = ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.001Z', '2026-06-01T12:00:00Z'].map(T);
const WORDS = ['red', 'green', 'blue'];
const STATUSES: ExecutionStatusName[] = ['Running', 'Completed', 'Failed'];

const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
const nanos = (ms: number) => `${BigInt(ms) * 1_000_000n}`;

/** A literal of one attribute's domain, rendered in any form the language accepts for it. */
interface Domain {
  name: string;
  literal: fc.Arbitrary<string>;
  comparisons: string[];
  ranges: boolean;
  prefixes: boolean;
  lists: boolean;
}

const DOMAINS: Domain[] = [
  {
    name: 'CustomerId',
    literal: fc.constantFrom(...KEYWORDS).map(quote),
    comparisons: ['=', '!=', '<', '<=', '>', '>='],
    ranges: true,
    prefixes: true,
    lists: true,
  },
  {
    name: 'WorkflowType',
    literal: fc.constantFrom(...KEYWORDS).map((k) => `"${k}"`),
    comparisons: ['=', '<>', '>'],
    ranges: true,
    prefixes: true,
    lists: true,
  },
  {
    name: 'MonthlyRate',
    literal: fc.constantFrom(...INTS).map(String),
    comparisons: ['=', '!=', '<', '<=', '>', '>='],
    ranges: true,
    prefixes: false,
    lists: true,
  },
  {
    name: 'Price',
    literal: fc.constantFrom(...DOUBLES).map(String),
    comparisons: ['=', '!=', '<', '>='],
    ranges: true,
    prefixes: false,
    lists: true,
  },
  {
    name: 'Paid',
    literal: fc.constantFrom('true', 'FALSE'),
    comparisons: ['=', '!='],
    ranges: false,
    prefixes: false,
    lists: true,
  },
  {
    name: 'DueAt',
    literal: fc.oneof(
      fc.constantFrom(...INSTANTS).map((ms) => quote(new Date(ms).toISOString())),
      fc.constantFrom(...INSTANTS).map(nanos),
    ),
    comparisons: ['=', '!=', '<', '<=', '>', '>='],
    ranges: true,
    prefixes: false,
    lists: true,
  },
  {
    name: 'CloseTime',
    literal: fc.constantFrom(...INSTANTS).map(nanos),
    comparisons: ['<', '>='],
    ranges: true,
    prefixes: false,
    lists: false,
  },
  {
    name: 'ExecutionStatus',
    literal: fc.constantFrom("'Running'", "'WORKFLOW_EXECUTION_STATUS_COMPLETED'", '3'),
    comparisons: ['=', '!='],
    ranges: false,
    prefixes: false,
    lists: true,
  },
  {
    name: 'Tags',
    literal: fc.constantFrom(...KEYWORDS).map(quote),
    comparisons: ['=', '!='],
    ranges: false,
    prefixes: false,
    lists: true,
  },
  {
    name: 'Notes',
    literal: fc.constantFrom(...WORDS, 'red blue', 'GREEN').map(quote),
    comparisons: ['=', '!='],
    ranges: false,
    prefixes: false,
    lists: false,
  },
];

type Node =
  | { kind: 'condition'; render: (style: Style) => string }
  | { kind: 'and' | 'or'; left: Node; right: Node }
  | { kind: 'not'; operand: Node };

/** Conditions over the domains above; `nullTests` adds IS [NOT] NULL, the only test that looks at absence itself. */
const conditionArb = (nullTests: boolean): fc.Arbitrary<Node> =>
  fc.constantFrom(...DOMAINS).chain((domain) => {
    const { name, literal } = domain;
    const options: fc.Arbitrary<(style: Style) => string>[] = [
      fc.tuple(fc.constantFrom(...domain.comparisons), literal).map(
        ([op, value]) =>
          () =>
            `${name} ${op} ${value}`,
      ),
    ];
    if (nullTests) {
      options.push(
        fc.boolean().map((negated) => (s: Style) => `${name} ${s('IS')} ${negated ? `${s('NOT')} ` : ''}${s('NULL')}`),
      );
    }
    if (domain.lists) {
      options.push(
        fc.tuple(fc.boolean(), fc.array(literal, { minLength: 1, maxLength: 3 })).map(
          ([negated, values]) =>
            (s: Style) =>
              `${name} ${negated ? `${s('NOT')} ` : ''}${s('IN')} (${values.join(', ')})`,
        ),
      );
    }
    if (domain.ranges) {
      options.push(
        fc.tuple(fc.boolean(), literal, literal).map(
          ([negated, low, high]) =>
            (s: Style) =>
              `${name} ${negated ? `${s('NOT')} ` : ''}${s('BETWEEN')} ${low} ${s('AND')} ${high}`,
        ),
      );
    }
    if (domain.prefixes) {
      options.push(
        fc.tuple(fc.boolean(), fc.constantFrom('', 'a', "o'")).map(
          ([negated, prefix]) =>
            (s: Style) =>
              `${name} ${negated ? `${s('NOT')} ` : ''}${s('STARTS_WITH')} ${quote(prefix)}`,
        ),
      );
    }
    return fc.oneof(...options).map((render): Node => ({ kind: 'condition', render }));
  });

const treeArb = (nullTests: boolean): fc.Arbitrary<Node> =>
  fc.letrec<{ node: Node }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      conditionArb(nullTests),
      fc
        .tuple(fc.constantFrom('and' as const, 'or' as const), tie('node'), tie('node'))
        .map(([kind, left, right]) => ({ kind, left, right })),
      tie('node').map((operand) => ({ kind: 'not' as const, operand })),
    ),
  })).node;
const nodeArb = treeArb(true);

/** Renders with full brackets, so the text means exactly the tree. */
function render(node: Node, style: Style): string {
  switch (node.kind) {
    case 'condition':
      return node.render(style);
    case 'not':
      return `${style('NOT')} (${render(node.operand, style)})`;
    default:
      return `(${render(node.left, style)}) ${style(node.kind.toUpperCase())} (${render(node.right, style)})`;
  }
}

const styleArb = fc.constantFrom(...STYLES);

function rowArb(complete: boolean): fc.Arbitrary<VisibilityRow> {
  const maybe = <T>(arb: fc.Arbitrary<T>) => (complete ? arb : fc.option(arb, { nil: undefined }));
  return fc
    .record({
      workflowType: fc.constantFrom(...KEYWORDS),
      executionStatus: fc.constantFrom(...STATUSES),
      startTime: fc.constantFrom(...INSTANTS),
      closeTime: maybe(fc.constantFrom(...INSTANTS)),
      CustomerId: maybe(fc.constantFrom(...KEYWORDS)),
      MonthlyRate: maybe(fc.constantFrom(...INTS)),
      Price: maybe(fc.constantFrom(...DOUBLES)),
      Paid: maybe(fc.boolean()),
      DueAt: maybe(fc.constantFrom(...INSTANTS)),
      Tags: maybe(fc.subarray(KEYWORDS, { minLength: 1 })),
      Notes: maybe(fc.subarray(WORDS, { minLength: 1 }).map((words) => words.join(' '))),
      runId: fc.uuid(),
    })
    .map(({ workflowType, executionStatus, startTime, closeTime, runId, ...custom }) => {
      const searchAttributes: VisibilityRow['searchAttributes'] = {};
      for (const [key, value] of Object.entries(custom)) if (value !== undefined) searchAttributes[key] = value;
      return row({
        workflowType,
        executionStatus,
        startTime,
        runId,
        searchAttributes,
        ...(closeTime === undefined ? {} : { closeTime }),
      });
    });
}

const RUNS = { numRuns: 300 };

test('property: generated queries compile, and matches answers a boolean for any row', (t) => {
  fc.assert(
    fc.property(nodeArb, styleArb, fc.array(rowArb(false), { maxLength: 5 }), (node, style, rows) => {
      const compiled = compile(render(node, style));
      for (const r of rows) if (typeof compiled.matches(r) !== 'boolean') return false;
      return true;
    }),
    RUNS,
  );
  t.pass();
});

test('property: with every attribute present, a row matches exactly one of a filter and its NOT', (t) => {
  fc.assert(
    fc.property(nodeArb, styleArb, rowArb(true), (node, style, r) => {
      const text = render(node, style);
      return compile(`NOT (${text})`).matches(r) === !compile(text).matches(r);
    }),
    RUNS,
  );
  t.pass();
});

test('property: without IS NULL, a row lacking attributes matches a filter or its NOT only if every way of filling them in does', (t) => {
  fc.assert(
    fc.property(treeArb(false), styleArb, rowArb(false), rowArb(true), (node, style, partial, filler) => {
      const completed: VisibilityRow = {
        ...filler,
        ...partial,
        closeTime: partial.closeTime ?? filler.closeTime!,
        searchAttributes: { ...filler.searchAttributes, ...partial.searchAttributes },
      };
      const text = render(node, style);
      return [text, `NOT (${text})`].every((query) => {
        const compiled = compile(query);
        return !compiled.matches(partial) || compiled.matches(completed);
      });
    }),
    RUNS,
  );
  t.pass();
});

test("property: De Morgan's and distributive laws hold, also for rows lacking attributes", (t) => {
  fc.assert(
    fc.property(nodeArb, nodeArb, nodeArb, styleArb, rowArb(false), (a, b, c, style, r) => {
      const [x, y, z] = [a, b, c].map((node) => `(${render(node, style)})`);
      const same = (p: string, q: string) => compile(p).matches(r) === compile(q).matches(r);
      return (
        same(`NOT (${x} AND ${y})`, `NOT ${x} OR NOT ${y}`) &&
        same(`NOT (${x} OR ${y})`, `NOT ${x} AND NOT ${y}`) &&
        same(`${x} AND (${y} OR ${z})`, `${x} AND ${y} OR ${x} AND ${z}`) &&
        same(`${x} OR ${y} AND ${z}`, `${x} OR (${y} AND ${z})`)
      );
    }),
    RUNS,
  );
  t.pass();
});

test('property: IN, NOT IN, BETWEEN and != mean their spelled-out forms', (t) => {
  const listDomains = DOMAINS.filter((d) => d.lists);
  fc.assert(
    fc.property(
      fc
        .constantFrom(...listDomains)
        .chain((d) => fc.tuple(fc.constant(d.name), fc.array(d.literal, { minLength: 1, maxLength: 3 }))),
      rowArb(false),
      ([name, values], r) => {
        const same = (p: string, q: string) => compile(p).matches(r) === compile(q).matches(r);
        const anyEqual = values.map((v) => `${name} = ${v}`).join(' OR ');
        return (
          same(`${name} IN (${values.join(', ')})`, anyEqual) &&
          same(`${name} NOT IN (${values.join(', ')})`, `NOT (${anyEqual})`) &&
          same(`${name} != ${values[0]}`, `NOT ${name} = ${values[0]}`)
        );
      },
    ),
    RUNS,
  );
  const rangeDomains = DOMAINS.filter((d) => d.ranges);
  fc.assert(
    fc.property(
      fc.constantFrom(...rangeDomains).chain((d) => fc.tuple(fc.constant(d.name), d.literal, d.literal)),
      rowArb(false),
      ([name, low, high], r) => {
        const same = (p: string, q: string) => compile(p).matches(r) === compile(q).matches(r);
        return (
          same(`${name} BETWEEN ${low} AND ${high}`, `${name} >= ${low} AND ${name} <= ${high}`) &&
          same(`${name} NOT BETWEEN ${low} AND ${high}`, `NOT (${name} >= ${low} AND ${name} <= ${high})`)
        );
      },
    ),
    RUNS,
  );
  t.pass();
});

test('property: keyword case and spacing do not change the answer', (t) => {
  fc.assert(
    fc.property(nodeArb, rowArb(false), fc.constantFrom(' ', '  ', '\n', '\t '), (node, r, gap) => {
      const plain = render(node, STYLES[0]!);
      const lower = render(node, STYLES[1]!);
      const spaced = render(node, STYLES[2]!).replace(/ /g, gap);
      const expected = compile(plain).matches(r);
      return compile(lower).matches(r) === expected && compile(spaced).matches(r) === expected;
    }),
    RUNS,
  );
  t.pass();
});

test('property: any string survives quoting, in either quote style', (t) => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 12 }), (text) => {
      const target = row({ workflowId: text });
      const other = row({ workflowId: `${text}x` });
      const doubleQuoted = `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
      return [quote(text), doubleQuoted].every((literal) => {
        const compiled = compile(`WorkflowId = ${literal}`);
        return compiled.matches(target) && !compiled.matches(other);
      });
    }),
    RUNS,
  );
  t.pass();
});

test('property: an instant written as RFC 3339, with an offset, or as nanoseconds finds the same rows', (t) => {
  const instant = fc.integer({ min: 0, max: 4_102_444_800_000 });
  fc.assert(
    fc.property(instant, instant, fc.integer({ min: -14, max: 14 }), (rowTime, queryTime, offsetHours) => {
      const r = row({ startTime: rowTime });
      const shifted = new Date(queryTime + offsetHours * 3_600_000).toISOString().replace('Z', '');
      const sign = offsetHours < 0 ? '-' : '+';
      const withOffset = `${shifted}${sign}${String(Math.abs(offsetHours)).padStart(2, '0')}:00`;
      return ['<', '=', '>'].every((op) => {
        const expected = op === '<' ? rowTime < queryTime : op === '=' ? rowTime === queryTime : rowTime > queryTime;
        return [quote(new Date(queryTime).toISOString()), quote(withOffset), nanos(queryTime)].every(
          (literal) => compile(`StartTime ${op} ${literal}`).matches(r) === expected,
        );
      });
    }),
    RUNS,
  );
  t.pass();
});

test('property: compare is a total order that only ties a run with itself', (t) => {
  fc.assert(
    fc.property(fc.array(rowArb(false), { minLength: 1, maxLength: 8 }), (rows) => {
      const { compare } = compile('');
      const sorted = [...rows].sort(compare);
      for (let i = 1; i < sorted.length; i++) if (compare(sorted[i - 1]!, sorted[i]!) > 0) return false;
      for (const a of rows) {
        for (const b of rows) {
          if (Math.sign(compare(a, b)) !== -Math.sign(compare(b, a))) return false;
          if ((compare(a, b) === 0) !== (a.runId === b.runId)) return false;
        }
      }
      return true;
    }),
    RUNS,
  );
  t.pass();
});
