/**
 * An HTTP answer's JSON body, read as the wire type the test expects of it: the API's types are named by
 * client/http-client (ApiOrder, SubmitResult, OrderHistory…), its refusals by ErrorBody below. The assertions check
 * what the body holds; the type names what they read, so a misspelt field fails to compile instead of comparing
 * `undefined`.
 *
 *   const order = json<ApiOrder>(await api.call('GET', `/api/v1/orders/${id}`, { as: 'olga' }));
 *   const refusal = json<ErrorBody>(await app.inject({ method: 'GET', url: '/readyz' }));
 *   const quote = await json<Quote>(await fetch(url)); // fetch's body arrives as a promise
 */
import type { z } from 'zod';
import type { errorBody } from '../../client/http/schemas.js';

/** Every refusal of the HTTP API: `{ error: { code, message, details, mayHaveTakenEffect? } }`. */
export type ErrorBody = z.output<typeof errorBody>;

/** What /readyz answers: each dependency's check, with its error when it failed. */
export interface ReadinessBody {
  status: 'ready' | 'not ready';
  checks: Record<'temporal' | 'postgres', { ok: boolean; error?: string }>;
}

export function json<T>(response: Response): Promise<T>;
export function json<T>(response: { json(): unknown }): T;
export function json<T>(response: { json(): unknown }): T | Promise<T> {
  return response.json() as T | Promise<T>;
}
