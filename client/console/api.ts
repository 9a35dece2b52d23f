import type { FastifyInstance } from 'fastify';

/**
 * The console does nothing the API would not do for the same person: every read and every action is a
 * request to the HTTP API itself (in process, with `inject`) carrying the session's credential, so the
 * API's authentication, authorisation, validation and refusals are the only rules there are.
 */
export type ApiTarget = Pick<FastifyInstance, 'inject'>;

export interface ApiAnswer<T = unknown> {
  status: number;
  body: T;
}

export interface ApiFailure {
  status: number;
  code: string;
  message: string;
  details: Array<{ path: string; message: string }>;
}

export class ConsoleApi {
  constructor(
    private readonly target: ApiTarget,
    private readonly credential: string,
  ) {}

  async call<T = unknown>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<ApiAnswer<T>> {
    const response = await this.target.inject({
      method,
      url,
      headers: {
        authorization: `Bearer ${this.credential}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    let parsed: unknown = response.body;
    try {
      parsed = JSON.parse(response.body);
    } catch {
      // not JSON: kept as text
    }
    return { status: response.statusCode, body: parsed as T };
  }

  /** A 2xx answer's body, or ApiRefusal with the API's own code and message. */
  async expect<T = unknown>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
    const answer = await this.call<T>(method, url, body);
    if (answer.status >= 200 && answer.status < 300) return answer.body;
    throw new ApiRefusal(failureOf(answer));
  }
}

export class ApiRefusal extends Error {
  constructor(readonly failure: ApiFailure) {
    super(failure.message);
  }
}

export function failureOf(answer: ApiAnswer): ApiFailure {
  const error = (answer.body as { error?: Partial<ApiFailure> } | undefined)?.error;
  return {
    status: answer.status,
    code: typeof error?.code === 'string' ? error.code : `HTTP_${answer.status}`,
    message: typeof error?.message === 'string' ? error.message : `the API answered ${answer.status}`,
    details: Array.isArray(error?.details) ? error.details : [],
  };
}

export function query(params: Record<string, string | number | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== '') search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}
