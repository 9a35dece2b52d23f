import type postgres from 'postgres';

/**
 * A JSON object as a query parameter. Its values were parsed or built as JSON (zod's `unknown` records), so they are
 * JSON values; the driver's type cannot say so of `unknown`.
 */
export function jsonParameter(sql: Pick<postgres.Sql, 'json'>, value: Record<string, unknown>): postgres.Parameter {
  return sql.json(value as postgres.JSONValue);
}
