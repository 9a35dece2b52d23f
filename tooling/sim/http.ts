import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What a handler answers; the server adds the Trace-Id header and serialises the body. */
export interface SimResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export function ok(body: unknown): SimResponse {
  return { status: 200, body };
}

/** Errors in the shape seen from such APIs: `{ message, data, trace_id }` (trace id filled in on sending). */
export function apiError(
  status: number,
  message: string,
  data: unknown = null,
  headers?: Record<string, string>,
): SimResponse {
  return { status, body: { message, data }, ...(headers ? { headers } : {}) };
}

export function send(res: ServerResponse, response: SimResponse): void {
  const traceId = randomUUID();
  const body =
    response.status >= 400 && isPlainObject(response.body) && 'message' in response.body
      ? { ...response.body, trace_id: traceId }
      : response.body;
  const text = JSON.stringify(body);
  res.writeHead(response.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'trace-id': traceId,
    ...response.headers,
  });
  res.end(text);
}

export const MAX_BODY_BYTES = 1_000_000;

export class BodyTooLargeError extends Error {}

export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLargeError(`Request body larger than ${MAX_BODY_BYTES} bytes`));
        req.removeAllListeners('data');
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** JSON body or a 400 that says why not. */
export function parseJsonBody(text: string): { ok: true; value: unknown } | { ok: false; response: SimResponse } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, response: apiError(400, 'Request body is not valid JSON') };
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
