/**
 * Temporal's visibility list filter ("WorkflowType = 'Order' AND StartTime > '2026-01-01T00:00:00Z"), compiled once
 * into a row predicate, and into the equalities it requires (a Lookup, for visibility's indexes); rows are listed in
 * the real server's default order. ORDER BY is parsed and refused, as the real server's SQL visibility (what its dev
 * server runs) refuses it.
 *
 *   query     := [ or ] [ ORDER BY attr [ASC|DESC] { , attr [ASC|DESC] } ]
 *   or        := and { OR and }
 *   and       := not { AND not }
 *   not       := NOT not | ( or ) | condition
 *   condition := attr ( = | != | <> | < | <= | > | >= ) value
 *              | attr [NOT] IN ( value { , value } )
 *              | attr [NOT] BETWEEN value AND value
 *              | attr [NOT] STARTS_WITH value
 *              | attr IS [NOT] NULL
 *   attr      := Name | `any name`
 *   value     := 'text' | "text" | [+|-] number | TRUE | FALSE
 *
 * Evaluation follows SQL: a condition on an attribute a row lacks is unknown, NOT unknown is unknown, and a row is listed
 * only when the whole filter is true. So a missing attribute never satisfies a comparison, `!=` or NOT; only IS NULL
 * finds it.
 */
import { VisibilityQueryError, queryError } from './query-errors.js';
import { parseQuery, type Condition, type Expression, type Literal } from './query-parser.js';
import {
  EXECUTION_STATUS_CHOICES,
  anyWordMatcher,
  nanosecondsToMs,
  parseExecutionStatus,
  parseRfc3339,
  textWords,
} from './query-values.js';

export { VisibilityQueryError };

export type SearchAttributeType = 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';
export type ExecutionStatusName =
  'Running' | 'Completed' | 'Failed' | 'Canceled' | 'Terminated' | 'ContinuedAsNew' | 'TimedOut';

export interface VisibilityRow {
  workflowId: string;
  runId: string;
  workflowType: string;
  taskQueue: string;
  executionStatus: ExecutionStatusName;
  /** Epoch milliseconds, as are closeTime and executionTime. */
  startTime: number;
  closeTime?: number;
  executionTime?: number;
  /** Custom attributes, decoded; Datetime as epoch milliseconds. */
  searchAttributes: Record<string, string | number | boolean | string[] | null>;
}

/** What the list order looks at. */
export type ListOrderKey = Pick<VisibilityRow, 'runId' | 'startTime' | 'closeTime'>;

export interface CompiledVisibilityQuery {
  matches(row: VisibilityRow): boolean;
  /** Negative when `a` is listed before `b`; zero only for rows with the same run id. */
  compare(a: ListOrderKey, b: ListOrderKey): number;
  /** Equalities every matching row satisfies (undefined: any row may match); see Lookup. */
  lookup?: Lookup;
}

/** An attribute rows can be looked up by: Keyword, KeywordList and ExecutionStatus, the ones queried with = and IN. */
export interface IndexedAttribute {
  name: string;
  /** The values a row is found under: a Keyword's value, each item of a KeywordList, the status; none when absent. */
  keysOf(row: VisibilityRow): readonly string[];
}

/**
 * What a filter requires of indexed attributes, so that an index can hand over the only rows that may match
 * (they are still tested with `matches`): `equals`, the attribute has one of the values (= or IN); `all`, every
 * operand holds (AND: any one of them narrows); `any`, one of them holds (OR: the union of theirs).
 */
export type Lookup =
  { kind: 'equals'; attribute: IndexedAttribute; values: string[] } | { kind: 'all' | 'any'; operands: Lookup[] };

/** ExecutionStatus is a Keyword in the real server, but here takes status names only and no ordering operators. */
type AttributeKind = SearchAttributeType | 'ExecutionStatus';
type Scalar = string | number | boolean;
type AttributeValue = Scalar | string[];

interface Attribute {
  name: string;
  kind: AttributeKind;
  /** The row's value, or undefined when absent, null, an empty list or not of the attribute's type. */
  read(row: VisibilityRow): AttributeValue | undefined;
}

/** true, false, or null for unknown (the condition touched an attribute the row lacks). */
type Predicate = (row: VisibilityRow) => boolean | null;

const finiteOrUndefined = (value: number | undefined) => (Number.isFinite(value) ? value : undefined);

const SYSTEM_ATTRIBUTES: Attribute[] = [
  { name: 'WorkflowId', kind: 'Keyword', read: (row) => row.workflowId },
  { name: 'RunId', kind: 'Keyword', read: (row) => row.runId },
  { name: 'WorkflowType', kind: 'Keyword', read: (row) => row.workflowType },
  { name: 'TaskQueue', kind: 'Keyword', read: (row) => row.taskQueue },
  { name: 'ExecutionStatus', kind: 'ExecutionStatus', read: (row) => row.executionStatus },
  { name: 'StartTime', kind: 'Datetime', read: (row) => finiteOrUndefined(row.startTime) },
  { name: 'CloseTime', kind: 'Datetime', read: (row) => finiteOrUndefined(row.closeTime) },
  { name: 'ExecutionTime', kind: 'Datetime', read: (row) => finiteOrUndefined(row.executionTime) },
];
const SYSTEM_BY_NAME = new Map(SYSTEM_ATTRIBUTES.map((attribute) => [attribute.name, attribute]));

const VALUE_CHECKS: Record<SearchAttributeType, (value: unknown) => boolean> = {
  Keyword: (value) => typeof value === 'string',
  Text: (value) => typeof value === 'string',
  Int: (value) => Number.isFinite(value),
  Double: (value) => Number.isFinite(value),
  Datetime: (value) => Number.isFinite(value),
  Bool: (value) => typeof value === 'boolean',
  KeywordList: (value) => Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'string'),
};

function customAttribute(name: string, kind: SearchAttributeType): Attribute {
  const isValid = VALUE_CHECKS[kind];
  return {
    name,
    kind,
    read: (row) => {
      const value = row.searchAttributes[name];
      return isValid(value) ? (value as AttributeValue) : undefined;
    },
  };
}

export function compileVisibilityQuery(
  query: string,
  customAttributes: Record<string, SearchAttributeType>,
): CompiledVisibilityQuery {
  const parsed = parseQuery(query);
  if (parsed.orderBy) throw new VisibilityQueryError("operation is not supported: 'ORDER BY' clause");
  const resolve = (name: string, position: number): Attribute => {
    const system = SYSTEM_BY_NAME.get(name);
    if (system) return system;
    const kind = Object.hasOwn(customAttributes, name) ? customAttributes[name] : undefined;
    if (kind) return customAttribute(name, kind);
    throw queryError(`unknown search attribute '${name}'`, position);
  };
  const predicate = parsed.filter ? compileExpression(parsed.filter, resolve) : undefined;
  return {
    matches: predicate ? (row) => predicate(row) === true : () => true,
    compare: compareListOrder,
    lookup: parsed.filter && lookupOf(parsed.filter, resolve),
  };
}

type Resolver = (name: string, position: number) => Attribute;

function compileExpression(expression: Expression, resolve: Resolver): Predicate {
  switch (expression.kind) {
    case 'and':
      return allOf(expression.operands.map((operand) => compileExpression(operand, resolve)));
    case 'or':
      return anyOf(expression.operands.map((operand) => compileExpression(operand, resolve)));
    case 'not': {
      const operand = compileExpression(expression.operand, resolve);
      return (row) => {
        const result = operand(row);
        return result === null ? null : !result;
      };
    }
    default:
      return compileCondition(expression, resolve(expression.attribute.name, expression.attribute.position));
  }
}

function allOf(operands: Predicate[]): Predicate {
  return (row) => {
    let unknown = false;
    for (const operand of operands) {
      const result = operand(row);
      if (result === false) return false;
      if (result === null) unknown = true;
    }
    return unknown ? null : true;
  };
}

function anyOf(operands: Predicate[]): Predicate {
  return (row) => {
    let unknown = false;
    for (const operand of operands) {
      const result = operand(row);
      if (result === true) return true;
      if (result === null) unknown = true;
    }
    return unknown ? null : false;
  };
}

/** The Lookup a (compiled, so valid) filter implies; NOT and conditions other than = and IN imply none. */
function lookupOf(expression: Expression, resolve: Resolver): Lookup | undefined {
  switch (expression.kind) {
    case 'and': {
      const operands = expression.operands
        .map((operand) => lookupOf(operand, resolve))
        .filter((lookup) => lookup !== undefined);
      return operands.length > 1 ? { kind: 'all', operands } : operands[0];
    }
    case 'or': {
      const operands = expression.operands.map((operand) => lookupOf(operand, resolve));
      return operands.every((lookup) => lookup !== undefined) ? { kind: 'any', operands } : undefined;
    }
    case 'not':
      return undefined;
    default:
      return conditionLookup(expression, resolve(expression.attribute.name, expression.attribute.position));
  }
}

const INDEXED_KINDS = new Set<AttributeKind>(['Keyword', 'KeywordList', 'ExecutionStatus']);

function conditionLookup(condition: Condition, attribute: Attribute): Lookup | undefined {
  if (!INDEXED_KINDS.has(attribute.kind)) return undefined;
  const literals =
    condition.kind === 'compare' && condition.operator === '='
      ? [condition.value]
      : condition.kind === 'in' && !condition.negated
        ? condition.values
        : undefined;
  if (!literals) return undefined;
  return {
    kind: 'equals',
    attribute: indexedAttribute(attribute),
    values: literals.map((literal) => toScalar(literal, attribute) as string),
  };
}

function indexedAttribute(attribute: Attribute): IndexedAttribute {
  const { name, read } = attribute;
  return {
    name,
    keysOf: (row) => {
      // the same reading the predicates do: absent, null or of another type is no key
      const value = read(row);
      return value === undefined ? [] : Array.isArray(value) ? value : [value as string];
    },
  };
}

type ConditionKind = Condition['kind'];
type CompareCondition = Extract<Condition, { kind: 'compare' }>;
const ALL_COMPARISONS = new Set(['=', '!=', '<', '<=', '>', '>=']);
const EQUALITY_ONLY = new Set(['=', '!=']);

/** Which conditions each kind accepts, following the real server (Text and KeywordList take no ordering or ranges). */
const SUPPORTED: Record<AttributeKind, { comparisons: Set<string>; others: ConditionKind[] }> = {
  Keyword: { comparisons: ALL_COMPARISONS, others: ['in', 'between', 'startsWith', 'isNull'] },
  Int: { comparisons: ALL_COMPARISONS, others: ['in', 'between', 'isNull'] },
  Double: { comparisons: ALL_COMPARISONS, others: ['in', 'between', 'isNull'] },
  Datetime: { comparisons: ALL_COMPARISONS, others: ['in', 'between', 'isNull'] },
  Bool: { comparisons: EQUALITY_ONLY, others: ['in', 'isNull'] },
  ExecutionStatus: { comparisons: EQUALITY_ONLY, others: ['in', 'isNull'] },
  KeywordList: { comparisons: EQUALITY_ONLY, others: ['in', 'isNull'] },
  Text: { comparisons: EQUALITY_ONLY, others: ['isNull'] },
};

function describeAttribute(attribute: Attribute): string {
  return attribute.kind === 'ExecutionStatus' ? 'ExecutionStatus' : `${attribute.kind} attribute '${attribute.name}'`;
}

function compileCondition(condition: Condition, attribute: Attribute): Predicate {
  const supported = SUPPORTED[attribute.kind];
  const isSupported =
    condition.kind === 'compare'
      ? supported.comparisons.has(condition.operator)
      : supported.others.includes(condition.kind);
  if (!isSupported) {
    throw queryError(
      `operator ${condition.operatorName} is not supported on ${describeAttribute(attribute)}`,
      condition.operatorPosition,
    );
  }
  const { read } = attribute;
  if (condition.kind === 'isNull') {
    const wantPresent = condition.negated;
    return (row) => (read(row) !== undefined) === wantPresent;
  }
  if (attribute.kind === 'KeywordList') return compileKeywordListCondition(condition, attribute);
  // SUPPORTED leaves Text only = and !=.
  if (attribute.kind === 'Text') return compileTextCondition(condition as CompareCondition, attribute);

  const scalar = (literal: Literal) => toScalar(literal, attribute);
  const readScalar = read as (row: VisibilityRow) => Scalar | undefined;
  switch (condition.kind) {
    case 'compare':
      return compileComparison(condition.operator, readScalar, scalar(condition.value));
    case 'in': {
      const values = new Set(condition.values.map(scalar));
      const negated = condition.negated;
      return (row) => {
        const value = readScalar(row);
        return value === undefined ? null : values.has(value) !== negated;
      };
    }
    case 'between': {
      const low = scalar(condition.low);
      const high = scalar(condition.high);
      const negated = condition.negated;
      return (row) => {
        const value = readScalar(row);
        return value === undefined ? null : (value >= low && value <= high) !== negated;
      };
    }
    case 'startsWith': {
      const prefix = scalar(condition.value) as string;
      const negated = condition.negated;
      return (row) => {
        const value = readScalar(row) as string | undefined;
        return value === undefined ? null : value.startsWith(prefix) !== negated;
      };
    }
  }
}

function compileComparison(
  operator: string,
  read: (row: VisibilityRow) => Scalar | undefined,
  target: Scalar,
): Predicate {
  const test: (value: Scalar) => boolean =
    operator === '='
      ? (value) => value === target
      : operator === '!='
        ? (value) => value !== target
        : operator === '<'
          ? (value) => value < target
          : operator === '<='
            ? (value) => value <= target
            : operator === '>'
              ? (value) => value > target
              : (value) => value >= target;
  return (row) => {
    const value = read(row);
    return value === undefined ? null : test(value);
  };
}

/** KeywordList: `=` means the list contains the value, IN that it contains any of them; != and NOT IN negate those. */
function compileKeywordListCondition(condition: Condition, attribute: Attribute): Predicate {
  const wanted = condition.kind === 'compare' ? [condition.value] : condition.kind === 'in' ? condition.values : [];
  const values = new Set(wanted.map((literal) => toScalar(literal, attribute) as string));
  const negated =
    condition.kind === 'compare' ? condition.operator === '!=' : condition.kind === 'in' && condition.negated;
  return (row) => {
    const list = attribute.read(row) as string[] | undefined;
    return list === undefined ? null : list.some((item) => values.has(item)) !== negated;
  };
}

/** Text: `=` means the value shares at least one word with the query text (as the real server's full-text match). */
function compileTextCondition(condition: CompareCondition, attribute: Attribute): Predicate {
  const text = toScalar(condition.value, attribute) as string;
  const words = textWords(text);
  if (words.length === 0) {
    throw queryError(
      `value ${condition.value.raw} for ${describeAttribute(attribute)} has no words to match`,
      condition.value.position,
    );
  }
  const matcher = anyWordMatcher(words);
  const negated = condition.operator === '!=';
  return (row) => {
    const value = attribute.read(row) as string | undefined;
    return value === undefined ? null : matcher.test(value) !== negated;
  };
}

/** Converts a literal to the attribute's value domain (Datetime to epoch ms, statuses to names), or throws. */
function toScalar(literal: Literal, attribute: Attribute): Scalar {
  const converted = convertLiteral(literal, attribute.kind);
  if (converted !== undefined) return converted;
  const hint =
    attribute.kind === 'Datetime'
      ? "expected an RFC 3339 time such as '2026-01-01T00:00:00Z' or integer nanoseconds since the epoch"
      : attribute.kind === 'ExecutionStatus'
        ? `expected one of ${EXECUTION_STATUS_CHOICES}`
        : attribute.kind === 'Bool'
          ? 'expected true or false'
          : undefined;
  const what = attribute.kind === 'ExecutionStatus' ? 'ExecutionStatus' : `${attribute.kind} for '${attribute.name}'`;
  throw queryError(`value ${literal.raw} is not a valid ${what}`, literal.position, hint);
}

function convertLiteral(literal: Literal, kind: AttributeKind): Scalar | undefined {
  switch (kind) {
    case 'Keyword':
    case 'KeywordList':
    case 'Text':
      return literal.kind === 'string' ? literal.value : undefined;
    case 'Int':
    case 'Double': {
      if (literal.kind !== 'number') return undefined;
      return finiteOrUndefined(Number(literal.value));
    }
    case 'Bool':
      return literal.kind === 'bool' ? literal.value : undefined;
    case 'Datetime':
      if (literal.kind === 'string') return parseRfc3339(literal.value);
      return literal.kind === 'number' && /^-?\d+$/.test(literal.value) ? nanosecondsToMs(literal.value) : undefined;
    case 'ExecutionStatus':
      if (literal.kind === 'string') return parseExecutionStatus(literal.value);
      return literal.kind === 'number' && /^\d+$/.test(literal.value)
        ? parseExecutionStatus(Number(literal.value))
        : undefined;
  }
}

/** The real server's order: open executions first, then by close time, then start time, newest first; run id breaks ties. */
export function compareListOrder(a: ListOrderKey, b: ListOrderKey): number {
  const open = Infinity;
  return (
    newestFirst(finiteOrUndefined(a.closeTime) ?? open, finiteOrUndefined(b.closeTime) ?? open) ||
    newestFirst(finiteOrUndefined(a.startTime), finiteOrUndefined(b.startTime)) ||
    (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0)
  );
}

/** Descending; an absent value sorts last. */
function newestFirst(x: number | undefined, y: number | undefined): number {
  if (x === undefined || y === undefined) return x === y ? 0 : x === undefined ? 1 : -1;
  return x > y ? -1 : x < y ? 1 : 0;
}
