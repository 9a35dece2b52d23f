// Parses a visibility list filter into a syntax tree. Attribute names and value types are checked later, by the
// compiler, which knows the registered search attributes.
import { queryError } from './query-errors.js';
import { describeToken, tokenize, type Token } from './query-lexer.js';

export type Literal = { raw: string; position: number } & (
  { kind: 'string'; value: string } | { kind: 'number'; value: string } | { kind: 'bool'; value: boolean }
);

export interface AttributeRef {
  name: string;
  position: number;
}

export type ComparisonOperator = '=' | '!=' | '<' | '<=' | '>' | '>=';

interface ConditionBase {
  attribute: AttributeRef;
  /** The operator as messages name it, e.g. "NOT IN", with its position. */
  operatorName: string;
  operatorPosition: number;
}

export type Condition = ConditionBase &
  (
    | { kind: 'compare'; operator: ComparisonOperator; value: Literal }
    | { kind: 'in'; negated: boolean; values: Literal[] }
    | { kind: 'between'; negated: boolean; low: Literal; high: Literal }
    | { kind: 'startsWith'; negated: boolean; value: Literal }
    | { kind: 'isNull'; negated: boolean }
  );

export type Expression =
  Condition | { kind: 'and' | 'or'; operands: Expression[] } | { kind: 'not'; operand: Expression };

export interface ParsedQuery {
  /** Absent when the query has no condition (empty, or only ORDER BY). */
  filter?: Expression;
  /** Whether the query ends with an ORDER BY clause (parsed for its syntax; visibility refuses it). */
  orderBy: boolean;
}

const OPERATOR_LIST =
  '=, !=, <, <=, >, >=, IN, NOT IN, BETWEEN, NOT BETWEEN, STARTS_WITH, NOT STARTS_WITH, IS NULL, IS NOT NULL';

export function parseQuery(query: string): ParsedQuery {
  return new Parser(tokenize(query)).parseQuery();
}

class Parser {
  private index = 0;

  constructor(private readonly tokens: Token[]) {}

  parseQuery(): ParsedQuery {
    let filter: Expression | undefined;
    // A query may be only an ORDER BY clause; a lone "Order" at the start is a (reserved) attribute name instead.
    const startsWithOrderBy =
      this.atKeyword('ORDER') && this.tokens[1]?.kind === 'keyword' && this.tokens[1].value === 'BY';
    if (!startsWithOrderBy && this.peek().kind !== 'end') filter = this.parseOr();
    const orderBy = this.atKeyword('ORDER');
    if (orderBy) this.parseOrderBy();
    if (this.peek().kind !== 'end') {
      throw this.unexpected(
        filter && !orderBy ? 'expected AND, OR, ORDER BY or the end of the query' : 'expected the end of the query',
      );
    }
    return filter ? { filter, orderBy } : { orderBy };
  }

  private parseOr(): Expression {
    const operands = [this.parseAnd()];
    while (this.acceptKeyword('OR')) operands.push(this.parseAnd());
    return operands.length === 1 ? operands[0]! : { kind: 'or', operands };
  }

  private parseAnd(): Expression {
    const operands = [this.parseNot()];
    while (this.acceptKeyword('AND')) operands.push(this.parseNot());
    return operands.length === 1 ? operands[0]! : { kind: 'and', operands };
  }

  // NOT binds tighter than AND and looser than a comparison, as in SQL: NOT a = 1 AND b = 2 is (NOT a = 1) AND b = 2.
  private parseNot(): Expression {
    if (this.acceptKeyword('NOT')) return { kind: 'not', operand: this.parseNot() };
    if (this.acceptPunctuation('(')) {
      const inner = this.parseOr();
      this.expectPunctuation(')', "expected ')'");
      return inner;
    }
    return this.parseCondition();
  }

  private parseCondition(): Condition {
    const attribute = this.parseAttribute("expected a search attribute name, NOT or '('");
    const operatorToken = this.peek();
    const at = { attribute, operatorPosition: operatorToken.position };
    if (operatorToken.kind === 'operator') {
      this.index++;
      const operator = operatorToken.value as ComparisonOperator;
      return { ...at, kind: 'compare', operator, operatorName: operator, value: this.parseValue() };
    }
    if (this.acceptKeyword('IN'))
      return { ...at, kind: 'in', negated: false, operatorName: 'IN', values: this.parseValueList() };
    if (this.acceptKeyword('BETWEEN'))
      return { ...at, kind: 'between', negated: false, operatorName: 'BETWEEN', ...this.parseRange() };
    if (this.acceptKeyword('STARTS_WITH')) {
      return { ...at, kind: 'startsWith', negated: false, operatorName: 'STARTS_WITH', value: this.parseValue() };
    }
    if (this.acceptKeyword('IS')) {
      const negated = this.acceptKeyword('NOT');
      this.expectKeyword('NULL', negated ? 'expected NULL' : 'expected NULL or NOT NULL');
      return { ...at, kind: 'isNull', negated, operatorName: negated ? 'IS NOT NULL' : 'IS NULL' };
    }
    if (this.acceptKeyword('NOT')) return this.parseNegatedCondition(at);
    if (operatorToken.kind === 'identifier' && operatorToken.value.toUpperCase() === 'LIKE') {
      throw queryError('operator LIKE is not supported', operatorToken.position, 'use STARTS_WITH for a prefix match');
    }
    throw this.unexpected(`expected an operator (${OPERATOR_LIST})`);
  }

  private parseNegatedCondition(at: { attribute: AttributeRef; operatorPosition: number }): Condition {
    if (this.acceptKeyword('IN'))
      return { ...at, kind: 'in', negated: true, operatorName: 'NOT IN', values: this.parseValueList() };
    if (this.acceptKeyword('BETWEEN'))
      return { ...at, kind: 'between', negated: true, operatorName: 'NOT BETWEEN', ...this.parseRange() };
    if (this.acceptKeyword('STARTS_WITH')) {
      return { ...at, kind: 'startsWith', negated: true, operatorName: 'NOT STARTS_WITH', value: this.parseValue() };
    }
    throw this.unexpected('expected IN, BETWEEN or STARTS_WITH after NOT');
  }

  private parseRange(): { low: Literal; high: Literal } {
    const low = this.parseValue();
    this.expectKeyword('AND', 'expected AND between the two bounds of BETWEEN');
    return { low, high: this.parseValue() };
  }

  private parseValueList(): Literal[] {
    this.expectPunctuation('(', "expected '(' to open the list of values");
    const values = [this.parseValue()];
    while (this.acceptPunctuation(',')) values.push(this.parseValue());
    this.expectPunctuation(')', "expected ',' or ')'");
    return values;
  }

  private parseValue(): Literal {
    const token = this.peek();
    const { raw, position } = token;
    if (token.kind === 'string' || token.kind === 'number') {
      this.index++;
      return { kind: token.kind, value: token.value, raw, position };
    }
    if (this.acceptKeyword('TRUE') || this.acceptKeyword('FALSE'))
      return { kind: 'bool', value: token.value === 'TRUE', raw, position };
    const digits = this.tokens[this.index + 1];
    if (token.kind === 'punctuation' && (token.value === '-' || token.value === '+') && digits?.kind === 'number') {
      this.index += 2;
      const value = token.value === '-' ? `-${digits.value}` : digits.value;
      return { kind: 'number', value, raw: `${token.value}${digits.raw}`, position };
    }
    if (token.kind === 'identifier')
      throw this.unexpected('expected a value', `quote text values, e.g. '${token.value}'`);
    if (token.kind === 'keyword' && token.value === 'NULL') {
      throw this.unexpected('expected a value', 'use IS NULL or IS NOT NULL to test for a missing attribute');
    }
    throw this.unexpected('expected a value');
  }

  private parseOrderBy(): void {
    this.expectKeyword('ORDER', 'expected ORDER BY');
    this.expectKeyword('BY', 'expected BY after ORDER');
    do {
      this.parseAttribute('expected a search attribute name to order by');
      if (!this.acceptKeyword('DESC')) this.acceptKeyword('ASC');
    } while (this.acceptPunctuation(','));
  }

  private parseAttribute(expected: string): AttributeRef {
    const token = this.peek();
    if (token.kind === 'keyword' && !['AND', 'OR', 'NOT'].includes(token.value)) {
      throw this.unexpected(
        expected,
        `${token.value} is a reserved word; quote an attribute of that name as \`${token.raw}\``,
      );
    }
    if (token.kind !== 'identifier') throw this.unexpected(expected);
    this.index++;
    return { name: token.value, position: token.position };
  }

  private peek(): Token {
    return this.tokens[this.index]!;
  }

  private atKeyword(keyword: string): boolean {
    const token = this.peek();
    return token.kind === 'keyword' && token.value === keyword;
  }

  private acceptKeyword(keyword: string): boolean {
    if (!this.atKeyword(keyword)) return false;
    this.index++;
    return true;
  }

  private expectKeyword(keyword: string, expected: string): void {
    if (!this.acceptKeyword(keyword)) throw this.unexpected(expected);
  }

  private acceptPunctuation(symbol: string): boolean {
    const token = this.peek();
    if (token.kind !== 'punctuation' || token.value !== symbol) return false;
    this.index++;
    return true;
  }

  private expectPunctuation(symbol: string, expected: string): void {
    if (!this.acceptPunctuation(symbol)) throw this.unexpected(expected);
  }

  /** An error about the token at the cursor. */
  private unexpected(expected: string, hint?: string) {
    const token = this.peek();
    return queryError(`unexpected ${describeToken(token)}`, token.position, hint ? `${expected}; ${hint}` : expected);
  }
}
