import { redactOrderRequest } from '../../domain/index.js';
import { apiErrorBodySchema } from '../../schemas/index.js';
import {
  ApiAuthenticationError,
  ApiNotFoundError,
  ApiPermissionError,
  ApiRateLimitedError,
  ApiRejectedError,
  ApiServerError,
  type ApiError,
  type ApiErrorContext,
} from './errors.js';
import { redactEchoes } from './echoes.js';
import type { HttpResponse } from './transport.js';

/** When a 429 carries no usable Retry-After, wait this long. */
export const DEFAULT_RETRY_AFTER_MS = 1_000;

/**
 * Turns a non-2xx response into the typed error for its status, with the body's message, data and trace id.
 * `secrets` (the token, the client secret, the request's secret values: echoes.ts) are blanked out of whatever the
 * server wrote, in case it echoes them, and so are quoted values beside the name of a secret field.
 */
export function errorFromResponse(
  context: ApiErrorContext,
  response: HttpResponse,
  secrets: readonly string[] = [],
): ApiError {
  const body = readErrorBody(response, (text) => redactEchoes(text, secrets));
  const traceId = body.traceId ?? response.header('trace-id');
  const status = response.status;
  if (status === 401) return new ApiAuthenticationError(context, body.message, status, traceId);
  if (status === 403) return new ApiPermissionError(context, body.message, traceId);
  if (status === 404) return new ApiNotFoundError(context, body.message, traceId);
  if (status === 429) return new ApiRateLimitedError(context, retryAfterMs(response.header('retry-after')), traceId);
  if (status >= 500) return new ApiServerError(context, status, body.message, traceId);
  return new ApiRejectedError(context, status, body.message, body.data, traceId);
}

interface ErrorBody {
  message: string;
  data?: unknown;
  traceId?: string;
}

/**
 * Error bodies are read leniently: anything unreadable still yields a message naming what came back. Every text of it
 * goes through `redact` whole, before a long one is cut (a secret cut in two would no longer be recognised).
 */
function readErrorBody(response: HttpResponse, redact: (text: string) => string): ErrorBody {
  const json = parseJsonLeniently(response.text);
  if (json === undefined) {
    const snippet = redact(response.text.trim()).slice(0, 200);
    return { message: snippet === '' ? `HTTP ${response.status} with an empty body` : snippet };
  }
  const parsed = apiErrorBodySchema.safeParse(json);
  if (!parsed.success)
    return { message: `HTTP ${response.status}`, data: mapStrings(redactOrderRequest(json), redact) };
  const { message, data, trace_id: traceId } = parsed.data;
  return {
    message: typeof message === 'string' && message !== '' ? redact(message) : `HTTP ${response.status}`,
    // A server may echo the order back; its vendorConfig secrets must not travel on in our errors.
    ...(data === undefined || data === null ? {} : { data: mapStrings(redactOrderRequest(data), redact) }),
    ...(typeof traceId === 'string' && traceId !== '' ? { traceId: redact(traceId) } : {}),
  };
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, mapStrings(inner, map)]));
  }
  return value;
}

/** Retry-After is either delay-seconds or an HTTP date (RFC 9110 section 10.2.3). */
export function retryAfterMs(header: string | undefined, now: number = Date.now()): number {
  if (header === undefined) return DEFAULT_RETRY_AFTER_MS;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? DEFAULT_RETRY_AFTER_MS : Math.max(0, date - now);
}

/** JSON.parse that answers undefined for text that is not JSON. */
export function parseJsonLeniently(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
