import { ApiError } from './errors.js';

// The list's keyset cursor: where the previous page ended, as base64url of the JSON `[createdAt, workflowId]` of its
// last order. The caller hands it back as it got it; anything else (edited, truncated, made up) is refused with 400
// naming the rule it breaks, before it reaches the database.

/** Where a page ended: the last order's creation time (ISO 8601, milliseconds, UTC) and workflow id. */
export interface ListCursor {
  createdAt: string;
  workflowId: string;
}

/** The form `Date.prototype.toISOString` gives, which is what the cursor carries: 2030-01-01T00:00:00.000Z. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** As the records allow a workflow id: 1 to 255 characters, none of them a control character (a NUL breaks SQL). */
const WORKFLOW_ID = /^[^\p{Cc}]{1,255}$/u;

export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.workflowId])).toString('base64url');
}

/**
 * The cursor `field` of the query (e.g. `cursor`) decoded, or ApiError 400 INVALID_INPUT whose detail names
 * `querystring.<field>` and the rule: base64url JSON of two strings, the first a date as the API writes it (one
 * that exists: 2030-02-30 does not), the second a workflow id.
 */
export function decodeCursor(value: string, field = 'cursor'): ListCursor {
  const refuse = (rule: string) =>
    new ApiError(400, 'INVALID_INPUT', `the querystring is invalid: querystring.${field}: ${rule}`, [
      { path: `querystring.${field}`, message: rule },
    ]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw refuse('must be the nextCursor of a previous page (it is not base64url JSON)');
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || parsed.some((part) => typeof part !== 'string')) {
    throw refuse('must be the nextCursor of a previous page (it does not hold a date and a workflow id)');
  }
  const [createdAt, workflowId] = parsed as [string, string];
  if (!isInstant(createdAt)) {
    throw refuse(
      'must be the nextCursor of a previous page (its date is not a date in the form 2030-01-01T00:00:00.000Z)',
    );
  }
  if (!WORKFLOW_ID.test(workflowId) || workflowId.trim() === '') {
    throw refuse('must be the nextCursor of a previous page (its workflow id is empty, too long or not text)');
  }
  return { createdAt, workflowId };
}

/** An ISO instant that names a moment that exists, written as toISOString writes it (so 2030-02-30 is refused). */
function isInstant(value: string): boolean {
  if (!ISO_INSTANT.test(value)) return false;
  const time = Date.parse(value);
  return Number.isFinite(time) && new Date(time).toISOString() === value;
}
