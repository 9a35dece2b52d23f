/**
 * Search attributes: the types a namespace can register, the system attributes every namespace has, and
 * the checking and decoding of the payloads workflows carry (start requests, upserts, continue-as-new).
 */
import { invalidArgument } from '../errors.js';
import { IndexedValueType } from '../proto.js';
import type { Payload, SearchAttributes } from '../proto.js';

import type { SearchAttributeType } from './query.js';

export type { SearchAttributeType };
export type SearchAttributeValue = string | number | boolean | string[] | null;

const INDEXED_TYPES: Record<SearchAttributeType, number> = {
  Text: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  Keyword: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Int: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  Double: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  Bool: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Datetime: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KeywordList: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/** Attributes the server maintains, and those the SDK writes itself (patch markers, build ids). */
export const SYSTEM_SEARCH_ATTRIBUTES: Record<string, SearchAttributeType> = {
  WorkflowId: 'Keyword',
  RunId: 'Keyword',
  WorkflowType: 'Keyword',
  ExecutionStatus: 'Keyword',
  TaskQueue: 'Keyword',
  StartTime: 'Datetime',
  CloseTime: 'Datetime',
  ExecutionTime: 'Datetime',
  HistoryLength: 'Int',
  TemporalChangeVersion: 'KeywordList',
  BinaryChecksums: 'KeywordList',
  BuildIds: 'KeywordList',
  TemporalScheduledStartTime: 'Datetime',
  TemporalScheduledById: 'Keyword',
};

/** System attributes a workflow may set itself (a schedule sets the TemporalScheduled* ones); the others are derived from the execution. */
export const WRITABLE_SYSTEM_ATTRIBUTES: Record<string, SearchAttributeType> = {
  TemporalChangeVersion: 'KeywordList',
  BinaryChecksums: 'KeywordList',
  BuildIds: 'KeywordList',
  TemporalScheduledStartTime: 'Datetime',
  TemporalScheduledById: 'Keyword',
};

export function toIndexedValueType(type: SearchAttributeType): number {
  return INDEXED_TYPES[type];
}

export function fromIndexedValueType(value: number | null | undefined): SearchAttributeType | undefined {
  return (Object.keys(INDEXED_TYPES) as SearchAttributeType[]).find((k) => INDEXED_TYPES[k] === value);
}

export function isValidAttributeName(name: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_]*$/.test(name);
}

function decodeJson(name: string, payload: Payload): unknown {
  const data = payload.data ? Buffer.from(payload.data).toString('utf8') : '';
  if (data === '') return null;
  try {
    return JSON.parse(data);
  } catch {
    throw invalidArgument(`search attribute ${name}: value is not valid JSON`);
  }
}

function checkScalar(name: string, type: SearchAttributeType, value: unknown): string | number | boolean {
  const fail = (rule: string) =>
    invalidArgument(`search attribute ${name} of type ${type}: ${rule}, got ${JSON.stringify(value)}`);
  switch (type) {
    case 'Keyword':
    case 'Text':
    case 'KeywordList':
      if (typeof value !== 'string') throw fail('value must be a string');
      return value;
    case 'Int':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw fail('value must be an integer');
      return value;
    case 'Double':
      if (typeof value !== 'number') throw fail('value must be a number');
      return value;
    case 'Bool':
      if (typeof value !== 'boolean') throw fail('value must be true or false');
      return value;
    case 'Datetime': {
      const ms = typeof value === 'string' ? Date.parse(value) : NaN;
      if (Number.isNaN(ms)) throw fail('value must be an RFC 3339 date-time string');
      return ms;
    }
  }
}

/** Decodes one attribute's payload into the value visibility compares (Datetime as epoch ms). */
export function decodeSearchAttribute(name: string, type: SearchAttributeType, payload: Payload): SearchAttributeValue {
  const value = decodeJson(name, payload);
  if (value === null) return null;
  if (Array.isArray(value)) {
    const items = value.map((v) => checkScalar(name, type, v));
    if (type === 'KeywordList') return items as string[];
    // the SDK's older untyped API sends every value as a list: a single item is that value
    if (items.length === 1) return items[0]!;
    if (type === 'Keyword') return items as string[];
    throw invalidArgument(
      `search attribute ${name} of type ${type}: a list is allowed only for Keyword and KeywordList`,
    );
  }
  const scalar = checkScalar(name, type, value);
  return type === 'KeywordList' ? [scalar as string] : scalar;
}

/**
 * Checks search attributes a request or command carries against the namespace's registrations: unknown
 * names, read-only system names and values of the wrong type are refused with INVALID_ARGUMENT.
 */
export function validateSearchAttributes(
  attributes: SearchAttributes | null | undefined,
  custom: ReadonlyMap<string, SearchAttributeType>,
  namespace: string,
): void {
  for (const [name, payload] of Object.entries(attributes?.indexedFields ?? {})) {
    const type = lookupAttributeType(name, custom);
    if (!type)
      throw invalidArgument(
        `search attribute ${name} is not registered in namespace ${namespace}; register it with AddSearchAttributes`,
      );
    if (SYSTEM_SEARCH_ATTRIBUTES[name] && !WRITABLE_SYSTEM_ATTRIBUTES[name])
      throw invalidArgument(`search attribute ${name} is a system attribute and cannot be set`);
    const declared = payload.metadata?.type ? Buffer.from(payload.metadata.type).toString('utf8') : undefined;
    if (declared && declared !== type)
      throw invalidArgument(`search attribute ${name} is registered as ${type} but the value is typed ${declared}`);
    decodeSearchAttribute(name, type, payload);
  }
}

export function lookupAttributeType(
  name: string,
  custom: ReadonlyMap<string, SearchAttributeType>,
): SearchAttributeType | undefined {
  return custom.get(name) ?? SYSTEM_SEARCH_ATTRIBUTES[name];
}

/** Applies an upsert: attributes with an empty payload are removed, the others replace their old value. */
export function mergeSearchAttributes(
  current: SearchAttributes,
  upsert: SearchAttributes | null | undefined,
): SearchAttributes {
  const merged = { ...(current.indexedFields ?? {}) };
  for (const [name, payload] of Object.entries(upsert?.indexedFields ?? {})) {
    const data = payload.data ? Buffer.from(payload.data).toString('utf8') : '';
    if (data === '' || data === 'null' || data === '[]') delete merged[name];
    else merged[name] = payload;
  }
  return { indexedFields: merged };
}
