import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import {
  AccessRefused,
  EnvironmentNotServedError,
  InvalidInput,
  isUnprocessedUpdate,
  NoSuchOrder,
  OrderConflict,
  OrderRefusedError,
  OrderRequestError,
  RecoveryRefused,
  ServiceRefusal,
  TicketConflictError,
  unavailableDependency,
  UnknownRequester,
  UnknownTeam,
} from '../orders/index.js';
import { actionOutcome, type ActionOutcome } from './action-outcome.js';
import { AuthenticationError } from './auth/authentication-error.js';
import { OidcUnavailableError } from './auth/oidc.js';
import { REQUEST_TIMEOUT_VARIABLE, RequestTimeoutError } from './time-limits.js';

/** How long a caller is told to wait before trying again when PostgreSQL or Temporal does not answer. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/** One problem with the input: where (a path into the body, query or URL) and which rule it breaks. */
export interface ErrorDetail {
  path: string;
  message: string;
}

/**
 * An answer the API gives on purpose, with an honest status: 400 bad input, 401 not authenticated,
 * 403 not allowed, 404 no such order, 409 conflict or stale quote, 422 refused by a rule.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

/** What the order client's refusal codes mean in HTTP: a state that moved on is a conflict, a broken rule a 422. */
const REFUSAL_STATUS: Record<string, number> = {
  QUOTE_NOT_CURRENT: 409,
  NOT_AWAITING_APPROVAL: 409,
  ALREADY_VOTED: 409,
  ORDER_CLOSED: 409,
  NOT_CANCELLABLE: 409,
  NOT_UNCERTAIN: 409,
  // A resolution naming a product the provider shows as another order's (by its name).
  PRODUCT_OF_ANOTHER_ORDER: 409,
  // Submitted a moment ago: the order's first step has not run yet (it claims the ticket), so it answers nothing yet.
  NOT_STARTED: 409,
  INVALID_VOTE: 400,
  INVALID_CANCEL: 400,
  INVALID_RESOLUTION: 400,
  // A resolution naming a product the provider does not have.
  PRODUCT_NOT_FOUND: 422,
  // The provider did not answer the workers' read of the product named: nothing was settled, try again later.
  PRODUCT_NOT_CHECKED: 503,
  // Our own signature refused: the API and the workers hold different MVE_ACTION_KEYs.
  UNSIGNED_ACTION: 503,
};

/** The order's refusal as the API's error, with the same code. */
function refusalError(error: OrderRefusedError): ApiError {
  const message =
    error.code === 'UNSIGNED_ACTION'
      ? `the workers refused this server's signature (${error.message}); check that MVE_ACTION_KEY is the same on the API and the workers`
      : error.message;
  return new ApiError(REFUSAL_STATUS[error.code] ?? 422, error.code, message);
}

/** The status of each kind of the order service's refusals (client/orders/refusals.ts). */
const SERVICE_REFUSAL_STATUS: ReadonlyArray<[abstract new (...args: never[]) => ServiceRefusal, number]> = [
  [InvalidInput, 400],
  [AccessRefused, 403],
  [NoSuchOrder, 404],
  [OrderConflict, 409],
  [UnknownRequester, 422],
  [UnknownTeam, 422],
];

/**
 * The one place the order service's refusals (and the order client's, the intake's and recovery's) become HTTP
 * answers; undefined for any other error.
 */
function apiErrorOf(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof ServiceRefusal) {
    const status = SERVICE_REFUSAL_STATUS.find(([kind]) => error instanceof kind)?.[1] ?? 422;
    return new ApiError(status, error.code, error.message, error.details);
  }
  if (error instanceof OrderRefusedError) return refusalError(error);
  if (error instanceof OrderRequestError) {
    const details = error.issues.map(({ path, message }) => ({ path, message }));
    const message = `the order request is invalid: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`;
    return new ApiError(400, 'INVALID_REQUEST', message, details);
  }
  if (error instanceof TicketConflictError) return new ApiError(409, 'TICKET_CONFLICT', error.message);
  if (error instanceof EnvironmentNotServedError)
    return new ApiError(422, 'ENVIRONMENT_NOT_SERVED', error.message, [
      { path: 'environment', message: `must be one of ${error.served.join(', ')} here` },
    ]);
  if (error instanceof RecoveryRefused) return new ApiError(409, error.code, error.message);
  return undefined;
}

/** Every failure leaves as `{ "error": { "code", "message", "details": [{ "path", "message" }] } }`. */
export function installErrorHandler(app: FastifyInstance, log: (line: string) => void): void {
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send(body('NOT_FOUND', `no route ${request.method} ${pathOf(request)}`));
  });
  app.setErrorHandler((error: FastifyError, request, reply) => {
    // A refusal of the order service or of the order, in whatever route, is answered as the API's own (any error:
    // fastify types them all as its own, with an optional statusCode).
    const refused = apiErrorOf(error);
    if (refused) return sendApiError(refused, request, reply);
    if (error instanceof AuthenticationError) {
      return reply
        .code(401)
        .header('www-authenticate', 'Bearer realm="mve-orders"')
        .send(body('UNAUTHENTICATED', error.message));
    }
    if (error instanceof OidcUnavailableError)
      return reply.code(503).send(body('IDENTITY_PROVIDER_UNAVAILABLE', error.message, [], actionOutcome(request)));
    if (error instanceof RequestTimeoutError) return sendTimeout(error, request, reply, log);
    if (hasZodFastifySchemaValidationErrors(error)) {
      const where = error.validationContext ?? 'body';
      const details = validationDetails(where, error.validation);
      const message = `the ${where} is invalid: ${details.map((d) => `${d.path}: ${d.message}`).join('; ')}`;
      return reply.code(400).send(body('INVALID_INPUT', message, details));
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
      // Fastify's own refusals: unparseable JSON, wrong content type, body too large.
      return reply.code(error.statusCode).send(body('INVALID_INPUT', error.message));
    }
    const down = unavailableDependency(error);
    if (down) return sendUnavailable(down, error, request, reply, log);
    log(`${request.method} ${pathOf(request)}: ${error.stack ?? error.message}`);
    return reply.code(500).send(body('INTERNAL', 'the server failed to answer; the error is in its log'));
  });
}

function sendApiError(error: ApiError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error.code === 'NOT_STARTED') void reply.header('retry-after', '1');
  if (error.code === 'PRODUCT_NOT_CHECKED') void reply.header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  // A 503 the order or the API gave on purpose (the workers refused our signature…): the action did not act.
  const outcome = error.status === 503 ? actionOutcome(request, true) : undefined;
  return reply.code(error.status).send(body(error.code, error.message, error.details, outcome));
}

/**
 * The route ran over its time (time-limits.ts): whatever it still does is left to finish, and its answer, when it
 * comes, is dropped (fastify sends one reply per request), except that an action not yet sent is not sent
 * (action-outcome.ts). The connection closes after this answer: a client still sending its body a byte at a time has
 * no more use of it.
 */
function sendTimeout(
  error: RequestTimeoutError,
  request: FastifyRequest,
  reply: FastifyReply,
  log: (line: string) => void,
): FastifyReply {
  const seconds = error.limitMs / 1000;
  const outcome = actionOutcome(request);
  log(`${request.method} ${pathOf(request)}: 503, no answer within ${seconds} s (${REQUEST_TIMEOUT_VARIABLE})`);
  return reply
    .code(503)
    .header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS))
    .header('connection', 'close')
    .send(
      body(
        'TIMEOUT',
        `this server could not answer within ${seconds} s, its time limit for this request; try again in ${UNAVAILABLE_RETRY_AFTER_SECONDS} s (${outcome?.explanation ?? 'the request may still take effect: sending the same request again is safe, a ticket sent again is the same order, a vote counts once'})`,
        [],
        outcome,
      ),
    );
}

/** PostgreSQL or Temporal does not answer: expected while one restarts or fails over, so one line, no stack. */
function sendUnavailable(
  down: string,
  error: Error,
  request: FastifyRequest,
  reply: FastifyReply,
  log: (line: string) => void,
): FastifyReply {
  const outcome = actionOutcome(request, isUnprocessedUpdate(error));
  log(`${request.method} ${pathOf(request)}: 503, ${down} does not answer (${error.message})`);
  return reply
    .code(503)
    .header('retry-after', String(UNAVAILABLE_RETRY_AFTER_SECONDS))
    .send(
      body(
        'SERVICE_UNAVAILABLE',
        `${down} does not answer this server now; try again in ${UNAVAILABLE_RETRY_AFTER_SECONDS} s (${outcome?.explanation ?? 'sending the same request again is safe: a ticket sent again is the same order, a vote counts once'})`,
        [],
        outcome,
      ),
    );
}

/** Each problem zod found, with its path from `where` (body, querystring, params); unknown fields named one by one. */
function validationDetails(
  where: string,
  validation: ReadonlyArray<{ instancePath: string; keyword: string; params: unknown; message?: string }>,
): ErrorDetail[] {
  return validation.flatMap((issue) => {
    const at = [where, ...(issue.instancePath ? issue.instancePath.split('/').filter(Boolean) : [])];
    // A field the route does not take is named on its own: "body.approverId: is not accepted here".
    const unknown = issue.keyword === 'unrecognized_keys' ? ((issue.params as { keys?: string[] }).keys ?? []) : [];
    if (unknown.length > 0)
      return unknown.map((key) => ({ path: [...at, key].join('.'), message: unrecognisedField(key) }));
    return [{ path: at.join('.'), message: issue.message ?? 'is invalid' }];
  });
}

/** The request's path, never its query string (which may carry what a log should not). */
function pathOf(request: FastifyRequest): string {
  return request.url.split('?')[0];
}

/**
 * The longest path parameter the router takes (fastify's own limit is 100 characters, under the 255 a ticket id may
 * have): a ticket id of 255 characters fits however it is percent-encoded (a UTF-16 unit is at most 9 characters,
 * as in %E2%82%AC). Longer ones never reach the route's schema; `frameworkErrors` refuses them.
 */
export const MAX_PARAM_LENGTH = 255 * 9;

/**
 * Fastify's refusals made before any route is found (fastify's `frameworkErrors` option), in the API's error shape
 * rather than fastify's own: a path parameter over MAX_PARAM_LENGTH, a path that is not valid percent-encoding.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    const message = `is longer than ${MAX_PARAM_LENGTH} characters`;
    void reply
      .code(400)
      .send(body('INVALID_INPUT', `the params are invalid: params: ${message}`, [{ path: 'params', message }]));
    return;
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    const message = 'is not valid percent-encoding (UTF-8)';
    void reply
      .code(400)
      .send(body('INVALID_INPUT', `the params are invalid: params: ${message}`, [{ path: 'params', message }]));
    return;
  }
  void reply.code(500).send(body('INTERNAL', `the server failed to route ${request.method} ${pathOf(request)}`));
}

function unrecognisedField(key: string): string {
  return ['approverId', 'actor', 'requester', 'resolvedBy'].includes(key)
    ? 'is not accepted: who acts is the authenticated caller, never a field of the body'
    : 'is not a field of this request';
}

/** The error shape; a 503 to an action says whether the action may have taken effect (action-outcome.ts). */
function body(code: string, message: string, details: ErrorDetail[] = [], outcome?: ActionOutcome) {
  return {
    error: { code, message, details, ...(outcome ? { mayHaveTakenEffect: outcome.mayHaveTakenEffect } : {}) },
  };
}
