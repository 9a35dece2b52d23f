// Splits a visibility list filter into tokens, each carrying its 1-based position for error messages.
import { queryError } from './query-errors.js';

export type TokenKind = 'identifier' | 'keyword' | 'string' | 'number' | 'operator' | 'punctuation' | 'end';

export interface Token {
  kind: TokenKind;
  /** Keywords upper-cased, identifiers and strings decoded, operators and numbers as written. */
  value: string;
  /** The token exactly as written in the query. */
  raw: string;
  position: number;
}

const KEYWORDS = new Set([
  'AND',
  'OR',
  'NOT',
  'IN',
  'BETWEEN',
  'IS',
  'NULL',
  'TRUE',
  'FALSE',
  'STARTS_WITH',
  'ORDER',
  'BY',
  'ASC',
  'DESC',
]);

// Backslash escapes as MySQL (and so Temporal's SQL parser) reads them; any other escaped character stands for itself.
const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', '0': '\0', Z: '\x1a' };

const IDENTIFIER_START = /[A-Za-z_]/;
const IDENTIFIER_PART = /[A-Za-z0-9_]/;
const DIGIT = /[0-9]/;
const WHITESPACE = /\s/;

export function tokenize(query: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const push = (kind: TokenKind, value: string, start: number) =>
    tokens.push({ kind, value, raw: query.slice(start, i), position: start + 1 });

  while (i < query.length) {
    const c = query[i]!;
    const start = i;
    if (WHITESPACE.test(c)) {
      i++;
    } else if (IDENTIFIER_START.test(c)) {
      while (i < query.length && IDENTIFIER_PART.test(query[i]!)) i++;
      const word = query.slice(start, i);
      const upper = word.toUpperCase();
      if (KEYWORDS.has(upper)) push('keyword', upper, start);
      else push('identifier', word, start);
    } else if (c === '`') {
      const name = readQuoted(query, start, '`', false);
      i = name.end;
      if (name.value === '') throw queryError('empty quoted attribute name', start + 1);
      push('identifier', name.value, start);
    } else if (c === "'" || c === '"') {
      const text = readQuoted(query, start, c, true);
      i = text.end;
      push('string', text.value, start);
    } else if (DIGIT.test(c) || (c === '.' && DIGIT.test(query[i + 1] ?? ''))) {
      i = readNumber(query, start);
      push('number', query.slice(start, i), start);
    } else if (c === '(' || c === ')' || c === ',' || c === '+' || c === '-') {
      i++;
      push('punctuation', c, start);
    } else {
      const operator = ['<=', '>=', '!=', '<>', '=', '<', '>'].find((op) => query.startsWith(op, i));
      if (!operator) throw queryError(`unexpected character '${c}'`, start + 1);
      i += operator.length;
      push('operator', operator === '<>' ? '!=' : operator, start);
    }
  }
  tokens.push({ kind: 'end', value: '', raw: '', position: query.length + 1 });
  return tokens;
}

/** Reads a quoted run starting at `start`; a doubled quote stands for one quote, and strings also take backslash escapes. */
function readQuoted(
  query: string,
  start: number,
  quote: string,
  backslashEscapes: boolean,
): { value: string; end: number } {
  let value = '';
  let i = start + 1;
  while (i < query.length) {
    const c = query[i]!;
    if (c === quote) {
      if (query[i + 1] !== quote) return { value, end: i + 1 };
      value += quote;
      i += 2;
    } else if (c === '\\' && backslashEscapes && i + 1 < query.length) {
      const escaped = query[i + 1]!;
      value += ESCAPES[escaped] ?? escaped;
      i += 2;
    } else {
      value += c;
      i++;
    }
  }
  const what = quote === '`' ? 'quoted attribute name' : 'string';
  throw queryError(`unterminated ${what} starting`, start + 1);
}

function readNumber(query: string, start: number): number {
  const match = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/.exec(query.slice(start))!;
  const end = start + match[0].length;
  // "12abc" is a typo, not the number 12 followed by the word abc.
  if (end < query.length && IDENTIFIER_PART.test(query[end]!)) {
    let wordEnd = end;
    while (wordEnd < query.length && IDENTIFIER_PART.test(query[wordEnd]!)) wordEnd++;
    throw queryError(`invalid number '${query.slice(start, wordEnd)}'`, start + 1);
  }
  return end;
}

/** How a token is named in an error message. */
export function describeToken(token: Token): string {
  if (token.kind === 'end') return 'end of query';
  if (token.kind === 'string') return `string ${token.raw}`;
  return `token '${token.raw}'`;
}
