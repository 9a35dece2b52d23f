import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import fetch, { AbortError, FetchError } from 'node-fetch';

export interface HttpRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * Send on a new connection rather than a pooled one. For a call that must not be repeated: a pooled
   * connection the server closed while idle fails as "connection lost after sending", which would make
   * the outcome of a buy look unknown when the server never saw it.
   */
  freshConnection?: boolean;
}

export interface HttpResponse {
  status: number;
  header(name: string): string | undefined;
  /** The whole body, read within the response timeout. */
  text: string;
}

export type TransportFailureReason =
  'refused' | 'dns' | 'unreachable' | 'connect-timeout' | 'response-timeout' | 'connection-lost';

/**
 * The request failed without an HTTP response. `requestSent` is false only when the connection was never
 * established, which is the one case where the server provably did not see the request.
 */
export class TransportError extends Error {
  constructor(
    readonly reason: TransportFailureReason,
    readonly requestSent: boolean,
    detail: string,
  ) {
    super(detail);
    this.name = 'TransportError';
  }
}

export interface TransportOptions {
  connectTimeoutMs: number;
  responseTimeoutMs: number;
}

export interface Transport {
  send(request: HttpRequest): Promise<HttpResponse>;
  /** Closes idle keep-alive connections. */
  close(): void;
}

const CONNECT_TIMEOUT_CODE = 'MVE_CONNECT_TIMEOUT';
/** Failures that happen before a connection exists, so the server cannot have seen the request. */
const NOT_CONNECTED_REASONS: Record<string, TransportFailureReason> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
};

/** node-fetch over keep-alive agents, with a connect timeout and a knowledge of whether the request left. */
export function createTransport(options: TransportOptions): Transport {
  const pooled = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };
  const fresh = { 'http:': new http.Agent({ keepAlive: false }), 'https:': new https.Agent({ keepAlive: false }) };

  async function send(request: HttpRequest): Promise<HttpResponse> {
    const progress = { connected: false };
    const protocol = new URL(request.url).protocol === 'https:' ? 'https:' : 'http:';
    const shared = (request.freshConnection ? fresh : pooled)[protocol];
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), options.responseTimeoutMs);
    try {
      const response = await fetch(request.url, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: 'error',
        signal: controller.signal,
        agent: () => watchingAgent(shared, progress, options.connectTimeoutMs),
      });
      const text = await response.text();
      return { status: response.status, header: (name) => response.headers.get(name) ?? undefined, text };
    } catch (error) {
      throw classifyFailure(error, progress.connected, request.url, options);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    send,
    close() {
      for (const agent of [pooled, fresh].flatMap((agents) => Object.values(agents))) agent.destroy();
    },
  };
}

/**
 * A per-request view of the shared agent that watches the socket this request gets: it records when the
 * connection is up (from then on the server may have the request) and enforces the connect timeout.
 */
function watchingAgent(shared: http.Agent, progress: { connected: boolean }, connectTimeoutMs: number): http.Agent {
  const sharedAddRequest = (shared as unknown as AgentInternals).addRequest;
  return Object.create(shared, {
    addRequest: {
      value(request: http.ClientRequest, requestOptions: unknown) {
        request.once('socket', (socket: Socket) => watchSocket(request, socket, progress, connectTimeoutMs));
        return sharedAddRequest.call(shared, request, requestOptions);
      },
    },
  }) as http.Agent;
}

interface AgentInternals {
  /** Called with the agent as `this` (see watchingAgent): a function property, not a method bound to anything. */
  addRequest: (this: http.Agent, request: http.ClientRequest, options: unknown) => void;
}

function watchSocket(request: http.ClientRequest, socket: Socket, progress: { connected: boolean }, ms: number): void {
  if (!socket.connecting) {
    progress.connected = true; // a reused keep-alive connection
    return;
  }
  const timer = setTimeout(() => {
    const error = Object.assign(new Error(`no connection within ${ms} ms`), { code: CONNECT_TIMEOUT_CODE });
    request.destroy(error);
  }, ms);
  socket.once('connect', () => {
    clearTimeout(timer);
    progress.connected = true;
  });
  socket.once('close', () => clearTimeout(timer));
}

function classifyFailure(error: unknown, connected: boolean, url: string, options: TransportOptions): Error {
  const where = new URL(url).origin;
  if (error instanceof AbortError) {
    return connected
      ? new TransportError(
          'response-timeout',
          true,
          `no complete response from ${where} within ${options.responseTimeoutMs} ms`,
        )
      : new TransportError(
          'connect-timeout',
          false,
          `could not connect to ${where} within ${options.responseTimeoutMs} ms`,
        );
  }
  if (error instanceof FetchError && error.type === 'system') {
    const code = error.code ?? '';
    if (code === CONNECT_TIMEOUT_CODE) {
      return new TransportError(
        'connect-timeout',
        false,
        `could not connect to ${where} within ${options.connectTimeoutMs} ms`,
      );
    }
    const notConnected = NOT_CONNECTED_REASONS[code];
    if (!connected && notConnected)
      return new TransportError(notConnected, false, `could not connect to ${where} (${code})`);
    return new TransportError('connection-lost', connected, `connection to ${where} lost (${code || error.message})`);
  }
  if (error instanceof FetchError) {
    return new TransportError('connection-lost', connected, `bad response from ${where}: ${error.message}`);
  }
  return error instanceof Error ? error : new Error(String(error));
}
