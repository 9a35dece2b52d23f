import type { Environment } from './config.js';

/** The calls of the ordering API (spec section 4), and the provider's product read. */
export type ApiCall = 'token' | 'locations' | 'images' | 'variants' | 'validate' | 'buy' | 'product';

/** Only buy changes anything (and is charged on production); every other call may be repeated freely. */
export function isMutatingCall(call: ApiCall): boolean {
  return call === 'buy';
}

export interface ApiErrorContext {
  call: ApiCall;
  environment: Environment;
  /** e.g. "POST /v4/networkdesign/buy", for messages. */
  request: string;
}

/** What an error looks like once serialised (for logs, records and Temporal ApplicationFailure details). */
export interface ApiErrorDetails {
  type: string;
  message: string;
  call: ApiCall;
  environment: Environment;
  status?: number;
  traceId?: string;
  data?: unknown;
  retryAfterMs?: number;
  requestSent?: boolean;
  retrySafe: boolean;
  outcomeUnknown: boolean;
}

/**
 * A failed API call. Two facts decide what the caller may do:
 * - `transient`: trying again later may succeed;
 * - `provablyNotApplied`: the server certainly did not act on the request.
 * A read may be retried whenever the failure is transient; a buy only when it is also provably not applied.
 * Messages never contain the access token or the client secret.
 */
export abstract class ApiError extends Error {
  abstract readonly type: string;
  abstract readonly transient: boolean;
  abstract readonly provablyNotApplied: boolean;
  readonly call: ApiCall;
  readonly environment: Environment;
  readonly status: number | undefined;
  readonly traceId: string | undefined;

  constructor(context: ApiErrorContext, detail: string, status?: number, traceId?: string) {
    super(`${context.request} (${context.environment}) ${detail}${traceId ? ` [trace id ${traceId}]` : ''}`);
    this.name = new.target.name;
    this.call = context.call;
    this.environment = context.environment;
    this.status = status;
    this.traceId = traceId;
  }

  /** Whether calling again is both useful and harmless for this call. */
  get retrySafe(): boolean {
    return this.transient && (!isMutatingCall(this.call) || this.provablyNotApplied);
  }

  /** The flag to give Temporal's ApplicationFailure: true when the activity must not be retried. */
  get nonRetryable(): boolean {
    return !this.retrySafe;
  }

  /** A buy that may have been carried out: it must be resolved by a person, never retried blindly. */
  get outcomeUnknown(): boolean {
    return isMutatingCall(this.call) && !this.provablyNotApplied;
  }

  toJSON(): ApiErrorDetails {
    return {
      type: this.type,
      message: this.message,
      call: this.call,
      environment: this.environment,
      ...(this.status === undefined ? {} : { status: this.status }),
      ...(this.traceId === undefined ? {} : { traceId: this.traceId }),
      ...this.extraDetails(),
      retrySafe: this.retrySafe,
      outcomeUnknown: this.outcomeUnknown,
    };
  }

  protected extraDetails(): Partial<ApiErrorDetails> {
    return {};
  }
}

/**
 * Only these answers prove the API did not act on a request: it refused the request itself as invalid. Any
 * other 4xx (408, 409, 425… possibly from a proxy in between) says nothing of what happened behind it, so a buy
 * answered with one is uncertain, never retried, until ops resolve it (DESIGN.md section 7). 401 and 429 are
 * their own classes: refused before processing.
 */
export const NOT_APPLIED_STATUSES: ReadonlySet<number> = new Set([400, 422]);

/** The API refused the request (400 and other unlisted 4xx): `message`, `data` and trace id from the body. */
export class ApiRejectedError extends ApiError {
  readonly type = 'ApiRejected';
  readonly transient = false;

  constructor(
    context: ApiErrorContext,
    status: number,
    readonly apiMessage: string,
    readonly data: unknown,
    traceId?: string,
  ) {
    super(context, `was rejected (${status}): ${apiMessage}`, status, traceId);
  }

  get provablyNotApplied(): boolean {
    return NOT_APPLIED_STATUSES.has(this.status ?? 0);
  }

  protected override extraDetails(): Partial<ApiErrorDetails> {
    return { data: this.data };
  }
}

/** The API key or token was not accepted (401 after one fresh token, or the token endpoint refused the key). */
export class ApiAuthenticationError extends ApiError {
  readonly type = 'ApiAuthentication';
  readonly transient = false;
  readonly provablyNotApplied = true;

  constructor(
    context: ApiErrorContext,
    readonly reason: string,
    status?: number,
    traceId?: string,
  ) {
    super(context, `failed authentication${status ? ` (${status})` : ''}: ${reason}`, status, traceId);
  }
}

/** The key is valid but not allowed to make this call (403), e.g. a Read Only key asked to buy. */
export class ApiPermissionError extends ApiError {
  readonly type = 'ApiPermission';
  readonly transient = false;
  /** A 403 may come from a proxy or gateway after the request went through: not proof for a buy. */
  readonly provablyNotApplied = false;

  constructor(context: ApiErrorContext, apiMessage: string, traceId?: string) {
    super(
      context,
      `is not permitted for this API key (403): ${apiMessage}. The key's role does not allow this call ` +
        `(a Read Only key cannot order); use a key with the Company Admin role`,
      403,
      traceId,
    );
  }
}

export class ApiNotFoundError extends ApiError {
  readonly type = 'ApiNotFound';
  readonly transient = false;
  /** Not proof for a buy either: the answer may not come from the API itself. */
  readonly provablyNotApplied = false;

  constructor(context: ApiErrorContext, apiMessage: string, traceId?: string) {
    super(context, `was not found (404): ${apiMessage}. Check the base URL of the environment`, 404, traceId);
  }
}

/** 429: the request was refused before processing; try again after `retryAfterMs`. */
export class ApiRateLimitedError extends ApiError {
  readonly type = 'ApiRateLimited';
  readonly transient = true;
  readonly provablyNotApplied = true;

  constructor(
    context: ApiErrorContext,
    readonly retryAfterMs: number,
    traceId?: string,
  ) {
    super(context, `was rate limited (429); retry after ${retryAfterMs} ms`, 429, traceId);
  }

  protected override extraDetails(): Partial<ApiErrorDetails> {
    return { retryAfterMs: this.retryAfterMs };
  }
}

/** 5xx: the server failed, possibly after acting on the request. */
export class ApiServerError extends ApiError {
  readonly type = 'ApiServerError';
  readonly transient = true;
  readonly provablyNotApplied = false;

  constructor(context: ApiErrorContext, status: number, apiMessage: string, traceId?: string) {
    super(context, `failed on the server (${status}): ${apiMessage}`, status, traceId);
  }
}

/** No HTTP response. Unless the connection was never made, the server may have acted on the request. */
export class ApiNetworkError extends ApiError {
  readonly type = 'ApiNetwork';
  readonly transient = true;

  constructor(
    context: ApiErrorContext,
    readonly reason: string,
    readonly requestSent: boolean,
    detail: string,
  ) {
    super(
      context,
      `got no response: ${detail}${requestSent ? '' : ' (the request was not sent)'}` +
        (requestSent && isMutatingCall(context.call) ? '. The outcome is unknown: the order may have been placed' : ''),
    );
  }

  get provablyNotApplied(): boolean {
    return !this.requestSent;
  }

  protected override extraDetails(): Partial<ApiErrorDetails> {
    return { requestSent: this.requestSent };
  }
}

/** A response that does not have the documented shape. A 2xx buy answered this way did take effect. */
export class ApiInvalidResponseError extends ApiError {
  readonly type = 'ApiInvalidResponse';
  readonly transient = false;

  constructor(context: ApiErrorContext, status: number, detail: string) {
    super(context, `returned an unreadable response (${status}): ${detail}`, status);
  }

  get provablyNotApplied(): boolean {
    return this.status === undefined || this.status >= 400;
  }
}

/** The request we were about to send (its body, or a uid in its path) is not as documented; nothing was sent. */
export class ApiRequestInvalidError extends ApiError {
  readonly type = 'ApiRequestInvalid';
  readonly transient = false;
  readonly provablyNotApplied = true;

  /** `problems` name field paths and rules, never values. */
  constructor(
    context: ApiErrorContext,
    readonly problems: string[],
  ) {
    super(context, `was not sent: the request is invalid: ${problems.join('; ')}`);
  }

  protected override extraDetails(): Partial<ApiErrorDetails> {
    return { data: this.problems };
  }
}

/** For callers holding an unknown error: true only for an ApiError that says a retry is safe. */
export function isRetrySafe(error: unknown): boolean {
  return error instanceof ApiError && error.retrySafe;
}
