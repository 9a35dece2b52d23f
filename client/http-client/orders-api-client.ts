import http from 'node:http';
import https from 'node:https';
import fetch, { AbortError, FetchError } from 'node-fetch';
import type {
  ApiErrorDetail,
  ApiOrder,
  ApproveInput,
  ListOrdersQuery,
  Me,
  OrderHistory,
  OrderList,
  OrderRecovery,
  PendingApproval,
  RejectInput,
  StateResult,
  ResolveBuyInput,
  SubmitResult,
  VoteResult,
} from './types.js';
import type { OrderState } from '../../domain/lifecycle/index.js';
import type { Commitments, CommitmentsCsv, CommitmentsQuery } from './commitments.js';

/**
 * The API answered with a refusal or a failure: `status` is the HTTP status, `code`, `message` and `details`
 * are its error body's (`{ error: { code, message, details: [{ path, message }] } }`).
 */
export class ApiCallError extends Error {
  override readonly name = 'ApiCallError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ApiErrorDetail[] = [],
  ) {
    super(message);
  }
}

/**
 * No answer from the API: nothing listens at the URL, the name does not resolve, or it did not answer in time.
 * The message names the URL and what to start or set. `requestSent` is false when no connection was made,
 * so the server provably did not see the request.
 */
export class ApiUnreachableError extends Error {
  override readonly name = 'ApiUnreachableError';
  constructor(
    readonly url: string,
    readonly reason: 'refused' | 'dns' | 'unreachable' | 'timeout' | 'connection-lost',
    readonly requestSent: boolean,
    message: string,
  ) {
    super(message);
  }
}

export interface OrdersApiClientOptions {
  /** Where the API is, e.g. http://127.0.0.1:8080 (a path prefix is kept: https://host/orders). */
  url: string;
  /** A bearer token: an API token (mvo_…) or an OIDC access token. Without it every /api/ call answers 401. */
  token?: string;
  /** How long one call may take, in ms (default 60 s: approving waits for the workflow to take the vote). */
  timeoutMs?: number;
  /** What to start or set when nothing answers at `url`; ends the unreachable error's message. */
  unreachableHint?: string;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_HINT =
  'start the engine with `npm start` (mve-orders dev), or set MVE_API_URL to a running mve-orders API';
const NOT_CONNECTED: Record<string, ApiUnreachableError['reason']> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
};

/**
 * A small typed client of the mve-orders HTTP API (/api/v1), one method per route. Identity is the bearer
 * token's alone: no method takes an approver or actor. Refusals throw `ApiCallError`, silence throws
 * `ApiUnreachableError`; the token never appears in either.
 */
export class OrdersApiClient {
  readonly url: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;
  private readonly hint: string;
  private readonly agent: http.Agent;

  constructor(options: OrdersApiClientOptions) {
    let parsed: URL;
    try {
      parsed = new URL(options.url);
    } catch {
      throw new TypeError(
        `the API URL must be an http(s) URL, e.g. http://127.0.0.1:8080 (got ${JSON.stringify(options.url)})`,
      );
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new TypeError(`the API URL must be an http(s) URL, e.g. http://127.0.0.1:8080 (got ${parsed.protocol})`);
    }
    parsed.search = '';
    parsed.hash = '';
    this.url = parsed.toString().replace(/\/+$/, '');
    this.token = options.token?.trim() || undefined;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.hint = options.unreachableHint ?? DEFAULT_HINT;
    this.agent =
      parsed.protocol === 'https:' ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  }

  /** `POST /api/v1/orders`: a new order (created), or the existing one when the ticket already has this very request. */
  submit(request: unknown): Promise<SubmitResult> {
    return this.call('POST', '/orders', request);
  }

  /** `GET /api/v1/orders`: newest first, the caller's scope; page with `nextCursor`. */
  list(query: ListOrdersQuery = {}): Promise<OrderList> {
    return this.call('GET', `/orders${queryString({ ...query })}`);
  }

  /**
   * `GET /api/v1/orders/{orderId}`. Every method here takes `order`: the order id, or a ticket id (the caller's own,
   * or one no other order the caller may see has).
   */
  get(order: string): Promise<ApiOrder> {
    return this.call('GET', `/orders/${encodeURIComponent(order)}`);
  }

  /** `GET /api/v1/orders/{orderId}/history`: the timeline, votes and buy attempts; the workflow's events when `events`. */
  history(order: string, options: { events?: boolean } = {}): Promise<OrderHistory> {
    return this.call(
      'GET',
      `/orders/${encodeURIComponent(order)}/history${queryString({ events: String(options.events ?? false) })}`,
    );
  }

  /** `POST .../approve`: a vote for the quote named, as the caller. */
  approve(order: string, vote: ApproveInput): Promise<VoteResult> {
    return this.call('POST', `/orders/${encodeURIComponent(order)}/approve`, vote);
  }

  /** `POST .../reject`: a vote against the quote named, saying why. */
  reject(order: string, vote: RejectInput): Promise<VoteResult> {
    return this.call('POST', `/orders/${encodeURIComponent(order)}/reject`, vote);
  }

  /** `POST .../cancel` */
  cancel(order: string, body: { reason: string }): Promise<StateResult> {
    return this.call('POST', `/orders/${encodeURIComponent(order)}/cancel`, body);
  }

  /** `POST .../resolve-buy`: settles a BUY_UNCERTAIN order (ops). */
  resolveBuy(order: string, resolution: ResolveBuyInput): Promise<{ state: OrderState }> {
    return this.call('POST', `/orders/${encodeURIComponent(order)}/resolve-buy`, resolution);
  }

  /** `POST .../recover`: resets an order whose run was ended or wedged to its last completed task (ops). */
  recover(order: string, body: { reason: string }): Promise<OrderRecovery> {
    return this.call('POST', `/orders/${encodeURIComponent(order)}/recover`, body);
  }

  /** `GET /api/v1/approvals`: the orders awaiting the caller's decision, oldest first. */
  approvals(options: { limit?: number } = {}): Promise<{ approvals: PendingApproval[] }> {
    return this.call('GET', `/approvals${queryString({ limit: options.limit })}`);
  }

  /** `GET /api/v1/commitments`: per team and currency against budget, the orders behind them and the renewals. */
  commitments(query: CommitmentsQuery = {}): Promise<Commitments> {
    return this.call('GET', `/commitments${queryString({ ...query })}`);
  }

  /** The same orders behind the figures as the API's CSV, as it sends it. */
  async commitmentsCsv(query: Omit<CommitmentsQuery, 'renewalDays'> = {}): Promise<CommitmentsCsv> {
    const path = `/commitments${queryString({ ...query, format: 'csv' })}`;
    const answer = await this.send('GET', path, undefined, 'text/csv');
    if (answer.status < 200 || answer.status >= 300) {
      throw errorFrom(answer.status, parseJson(answer.text), 'GET /api/v1/commitments', this.url);
    }
    return { csv: answer.text, nextCursor: answer.headers.get('x-next-cursor') };
  }

  /** `GET /api/v1/me`: who the token is to the API. */
  me(): Promise<Me> {
    return this.call('GET', '/me');
  }

  /** Closes idle keep-alive connections. */
  close(): void {
    this.agent.destroy();
  }

  private async call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const { status, text } = await this.send(method, path, body, 'application/json');
    const json = parseJson(text);
    if (status >= 200 && status < 300) {
      if (json === undefined) {
        throw new ApiCallError(
          status,
          'UNEXPECTED_RESPONSE',
          `${this.url} answered ${method} /api/v1${path.split('?')[0]} with something other than JSON: is MVE_API_URL the mve-orders API?`,
        );
      }
      return json as T;
    }
    throw errorFrom(status, json, `${method} /api/v1${path.split('?')[0]}`, this.url);
  }

  /** One request, its answer as text: failures to reach the API are ApiUnreachableError, answers are the caller's. */
  private async send(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    accept: string,
  ): Promise<{ status: number; text: string; headers: { get(name: string): string | null } }> {
    const url = `${this.url}/api/v1${path}`;
    const headers: Record<string, string> = { accept, 'user-agent': 'mve-orders-cli' };
    if (this.token) headers['authorization'] = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    const progress = { connected: false };
    try {
      const response = await fetch(url, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        redirect: 'error',
        signal: controller.signal,
        agent: () => watching(this.agent, progress),
      });
      return { status: response.status, text: await response.text(), headers: response.headers };
    } catch (error) {
      throw this.unreachable(error, method, progress.connected);
    } finally {
      clearTimeout(timer);
    }
  }

  private unreachable(error: unknown, method: string, connected: boolean): Error {
    const where = this.url;
    if (error instanceof AbortError) {
      const outcome =
        connected && method === 'POST'
          ? '; the request was sent, so it may have taken effect: check with `mve-orders status` before repeating it'
          : '';
      return new ApiUnreachableError(
        where,
        'timeout',
        connected,
        `no answer from the mve-orders API at ${where} within ${Math.round(this.timeoutMs / 1000)} s${outcome}`,
      );
    }
    if (error instanceof FetchError && error.type === 'system') {
      const code = error.code ?? '';
      const reason = NOT_CONNECTED[code];
      if (!connected && reason) {
        return new ApiUnreachableError(
          where,
          reason,
          false,
          `cannot reach the mve-orders API at ${where} (${code}): ${this.hint}`,
        );
      }
      const outcome =
        method === 'POST'
          ? '; the request may have taken effect: check with `mve-orders status` before repeating it'
          : '';
      return new ApiUnreachableError(
        where,
        'connection-lost',
        connected,
        `the connection to the mve-orders API at ${where} was lost (${code || error.message})${outcome}`,
      );
    }
    if (error instanceof FetchError) {
      return new ApiUnreachableError(where, 'connection-lost', connected, `bad answer from ${where}: ${error.message}`);
    }
    return error instanceof Error ? error : new Error(String(error));
  }
}

/** Records whether this request got a connection (from then on the server may have seen it). */
function watching(agent: http.Agent, progress: { connected: boolean }): http.Agent {
  // Agent's own method, called on the agent below: typed as a function property, as it is never called unbound.
  const addRequest = (agent as unknown as { addRequest: (request: http.ClientRequest, options: unknown) => void })
    .addRequest;
  return Object.create(agent, {
    addRequest: {
      value(request: http.ClientRequest, options: unknown) {
        request.once('socket', (socket) => {
          if (!socket.connecting) progress.connected = true;
          else socket.once('connect', () => (progress.connected = true));
        });
        return addRequest.call(agent, request, options);
      },
    },
  }) as http.Agent;
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function errorFrom(status: number, json: unknown, route: string, base: string): ApiCallError {
  const error = isObject(json) && isObject(json['error']) ? json['error'] : undefined;
  if (error && typeof error['code'] === 'string' && typeof error['message'] === 'string') {
    const details = Array.isArray(error['details'])
      ? error['details']
          .filter(isObject)
          .map((detail) => ({ path: textOf(detail['path']), message: textOf(detail['message']) }))
      : [];
    return new ApiCallError(status, error['code'], error['message'], details);
  }
  return new ApiCallError(
    status,
    `HTTP_${status}`,
    `${base} answered ${route} with HTTP ${status} and no error body of the mve-orders API: is MVE_API_URL the mve-orders API?`,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function queryString(query: Record<string, string | number | undefined>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query))
    if (value !== undefined && value !== '') params.set(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** A field of an error body as text: the API sends strings; anything else is shown as JSON, nothing as ''. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined || value === null ? '' : JSON.stringify(value);
}
