/** The one shape every check reports: where, which rule, and what is wrong (never a secret value). */
import type { z } from 'zod';

export interface Issue {
  /** Dotted path into the checked document, e.g. `vendorConfig.sshPublicKey`, `vnics.2.description`. */
  path: string;
  /** Short stable identifier of the broken rule, e.g. `ssh-key-rsa-bits`. */
  rule: string;
  message: string;
}

/** The path used when the document itself (not one of its fields) is wrong. */
export const ROOT_PATH = 'request';

const PLAIN_KEY = /^(?:[A-Za-z_$][\w$-]*|\d+)$/;

/**
 * Appends raw keys to an already formatted path. Plain names and indexes join with dots
 * (`vnics.2.description`); any other key is quoted (`vendorConfig["odd.key"]`), so a path is never ambiguous.
 */
export function joinPath(base: string, ...keys: ReadonlyArray<string | number>): string {
  let path = base;
  for (const key of keys) {
    const text = String(key);
    if (!PLAIN_KEY.test(text)) path += `[${JSON.stringify(text)}]`;
    else path += path === '' ? text : `.${text}`;
  }
  return path;
}

export function issue(path: string, rule: string, message: string): Issue {
  return { path: path === '' ? ROOT_PATH : path, rule, message };
}

/**
 * Turns zod issues into ours. Messages are rebuilt from the issue's code and our own custom messages,
 * never from the input, so no value (secret or not) is echoed.
 */
export function issuesFromZod(error: z.ZodError, input: unknown, prefix: ReadonlyArray<string | number> = []): Issue[] {
  const issues: Issue[] = [];
  for (const zodIssue of error.issues) {
    const path = [...prefix, ...zodIssue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))];
    if (zodIssue.code === 'unrecognized_keys') {
      for (const key of zodIssue.keys) {
        issues.push(issue(joinPath('', ...path, key), 'unknown-field', `${key} is not a known field here`));
      }
      continue;
    }
    const leaf = path.length > 0 ? String(path[path.length - 1]) : ROOT_PATH;
    const [rule, message] = describeZodIssue(zodIssue, leaf, valueAt(input, zodIssue.path));
    issues.push(issue(joinPath('', ...path), rule, message));
  }
  return issues;
}

function describeZodIssue(zodIssue: z.core.$ZodIssue, leaf: string, value: unknown): [string, string] {
  const missing = value === undefined && ['invalid_type', 'invalid_value', 'invalid_union'].includes(zodIssue.code);
  if (missing) return ['required', `${leaf} is required`];
  switch (zodIssue.code) {
    case 'invalid_type':
      return ['type', `${leaf} must be ${article(zodIssue.expected)}`];
    case 'custom': {
      const rule = typeof zodIssue.params?.['rule'] === 'string' ? zodIssue.params['rule'] : 'invalid';
      return [rule, `${leaf} ${zodIssue.message}`];
    }
    case 'invalid_value':
    case 'invalid_union': {
      const allowed = ownMessage(zodIssue.message, 'is not one of the allowed values');
      // A value of another type than every allowed one ("12" for 12) is told as a type mistake, or it reads as
      // if the value itself were not allowed.
      const expected = allowedValuesType(zodIssue);
      if (expected !== undefined && kindOf(value) !== expected) {
        const list = allowed.startsWith('must be ') ? `: ${allowed.slice('must be '.length)}` : '';
        return ['type', `${leaf} must be ${article(expected)}, not ${describeKind(value)}${list}`];
      }
      return ['allowed-values', `${leaf} ${allowed}`];
    }
    case 'too_small':
    case 'too_big':
      return [sizeRule(zodIssue.origin), `${leaf} ${ownMessage(zodIssue.message, sizeFallback(zodIssue))}`];
    case 'invalid_format':
      return ['format', `${leaf} ${ownMessage(zodIssue.message, 'has the wrong format')}`];
    default:
      return ['invalid', `${leaf} is invalid`];
  }
}

/** The one JavaScript type of the values an enum or a union of literals allows; undefined when they mix types. */
function allowedValuesType(zodIssue: z.core.$ZodIssueInvalidValue | z.core.$ZodIssueInvalidUnion): string | undefined {
  const options = zodIssue.code === 'invalid_value' ? [zodIssue] : zodIssue.errors.flat();
  const values: unknown[] = [];
  for (const option of options) {
    if (option.code !== 'invalid_value') return undefined;
    values.push(...option.values);
  }
  const types = new Set(values.map(kindOf));
  return types.size === 1 ? [...types][0] : undefined;
}

/** typeof, with null and arrays told apart from objects. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

function describeKind(value: unknown): string {
  const kind = kindOf(value);
  return kind === 'null' ? 'null' : article(kind);
}

function sizeRule(origin: string): string {
  if (origin === 'array' || origin === 'set') return 'count';
  return origin === 'string' ? 'length' : 'range';
}

function sizeFallback(zodIssue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  const small = zodIssue.code === 'too_small';
  const bound = String(small ? zodIssue.minimum : zodIssue.maximum);
  if (zodIssue.origin === 'string' || zodIssue.origin === 'array') {
    return `must have ${small ? 'at least' : 'at most'} ${bound} ${zodIssue.origin === 'string' ? 'characters' : 'items'}`;
  }
  if (zodIssue.inclusive === false) return `must be ${small ? 'greater' : 'less'} than ${bound}`;
  return `must be ${small ? 'at least' : 'at most'} ${bound}`;
}

/** Our schemas phrase their messages as "must …"; zod's own defaults are replaced by a neutral fallback. */
function ownMessage(message: string, fallback: string): string {
  return /^(must|is)\b/.test(message) ? message : fallback;
}

function article(expected: string): string {
  const names: Record<string, string> = {
    int: 'an integer',
    number: 'a number',
    string: 'a string',
    boolean: 'a boolean',
    object: 'an object',
    array: 'an array',
  };
  return names[expected] ?? expected;
}

function valueAt(input: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}
