/**
 * One request to an mve-orders HTTP API server, as tests make them (the API engine's `call` of ./api.ts, and tests
 * that run a server of their own), and the check of the API's refusal shape.
 */
import type { ExecutionContext } from 'ava';
import { json, type ErrorBody } from './json.js';

/**
 * The API's answer to a test's request. Read its JSON body as the type the test expects with `json<T>(answer)`
 * (./json.ts); `body` is the same value unread (text when it is not JSON), for messages and whole-body comparisons.
 */
export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: unknown;
  json(): unknown;
}

/** Sends `body` (if any) as JSON with `token` (if any) as the bearer credential. */
export async function callApi(
  url: string,
  method: string,
  path: string,
  request: { token?: string | undefined; body?: unknown } = {},
): Promise<ApiAnswer> {
  const { token, body: sent } = request;
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(sent !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(sent !== undefined ? { body: JSON.stringify(sent) } : {}),
  });
  return answerOf(response);
}

/** A fetched response as an ApiAnswer: its body read whole, as JSON when it is JSON. */
export async function answerOf(response: Response): Promise<ApiAnswer> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON (metrics, an empty preflight answer): keep the text
  }
  return { status: response.status, body, headers: response.headers, json: () => body };
}

/** The answer is the API's refusal: `status`, the error `code`, a message and details (one naming `path` if given). */
export function expectError(t: ExecutionContext, answer: ApiAnswer, status: number, code: string, path?: string): void {
  const shown = JSON.stringify(answer.body);
  // Any body may come back, so every field is looked for, never assumed.
  const error = json<Partial<ErrorBody> | null>(answer)?.error;
  t.is(answer.status, status, shown);
  t.is(error?.code, code, shown);
  t.is(typeof error?.message, 'string', shown);
  t.true(Array.isArray(error?.details), shown);
  if (path !== undefined)
    t.true(
      error?.details.some((detail) => detail.path === path),
      shown,
    );
}
