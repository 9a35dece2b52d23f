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
    return { status: response.statusCode, body: parsedBody(response.body) as T };
  }

  /** A GET answered as text (a CSV), with the file name the API gives it; a refusal's body is parsed as `call`'s. */
  async download(url: string, accept: string): Promise<ApiAnswer & { disposition?: string }> {
    const response = await this.target.inject({
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${this.credential}`, accept },
    });
    const disposition = response.headers['content-disposition'];
    if (response.statusCode !== 200) return { status: response.statusCode, body: parsedBody(response.body) };
    return { status: 200, body: response.body, ...(typeof disposition === 'string' ? { disposition } : {}) };
  }

  /** A 2xx answer's body, or ApiRefusal with the API's own code and message. */
  async expect<T = unknown>(method: 'GET' | 'POST', url: string, body?: unknown): Promise<T> {
    const answer = await this.call<T>(method, url, body);
    if (answer.status >= 200 && answer.status < 300) return answer.body;
    throw new ApiRefusal(failureOf(answer));
  }
}

/** The API's JSON, or the text itself when it is not JSON. */
function parsedBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
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
