/**
 * The approvers' and ops' web console: server-rendered pages on the API's own fastify server, at `/`.
 * Every read and action goes through the HTTP API (in process) with the signed-in person's credential, so
 * the API's authorisation is the only rule set. Call `registerConsole` from `buildApiServer` before
 * `app.ready()`; see docs/console.md.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiContext } from '../http/context.js';
import { ApiRefusal, ConsoleApi, failureOf, query, type ApiFailure, type ApiTarget } from './api.js';
import { html, money, moneyInText, type Html } from './html.js';
import { FAVICON_SVG, flashNotice, page } from './layout.js';
import type { OidcSignIn } from './oidc.js';
import { OrderedFactsCache } from './ordered.js';
import { safeNext } from './safe-next.js';
import {
  csrfMatches,
  parseCookies,
  sessionCookie,
  SessionStore,
  type ConsoleSession,
  type ConsoleUser,
} from './sessions.js';
import {
  failureNotice,
  inboxView,
  isOps,
  messagePage,
  myOrdersView,
  opsView,
  orderView,
  signInView,
  type Attention,
  type InboxItem,
  type ListedOrder,
  type OpsFilters,
  type OrderPageExtras,
} from './views.js';

export { SessionStore } from './sessions.js';
export type { ConsoleSession, ConsoleUser } from './sessions.js';
export {
  createOidcSignIn,
  oidcSignInFromEnv,
  type OidcSignIn,
  type OidcSignInOptions,
  type PendingOidc,
} from './oidc.js';

export interface ConsoleOptions {
  /**
   * The seeded users of `mve-orders dev`, each signing in with their API token. Only `dev` passes these;
   * `serve` never does, and then no such button exists.
   */
  devUsers?: ReadonlyArray<{ id: string; roles: readonly string[]; token: string }>;
  /** Sign-in for people through the identity provider (authorization code + PKCE). */
  oidc?: OidcSignIn;
  /** Secure cookies (with the `__Host-` prefix): true everywhere but plain-http development. */
  secureCookies: boolean;
  /**
   * Where the console sends its API requests. Default: the app it is registered on (in process, `inject`).
   * Tests may register the console on a separate instance in front of an API that is already running.
   */
  api?: ApiTarget;
  /** Approvals whose deadline is nearer than this are listed under "needs attention" (default 24 h). */
  expiryWarningMs?: number;
  /** Orders in PROVISIONING unchanged for longer than this are listed under "needs attention" (default 30 min). */
  slowProvisioningMs?: number;
  /** Default: the sessions in the API's PostgreSQL (context.repository), sealed with its codec keys. */
  sessions?: SessionStore;
  now?: () => number;
}

declare module 'fastify' {
  interface FastifyRequest {
    consoleSession?: ConsoleSession;
  }
}

const LIVE_HEADER = 'x-console-live';

/**
 * What the flash says after a vote: what the person did and what it led to. The vote's answer gives the state at
 * that moment; an approved order moves on at once (re-checked, bought), so the flash says where it went and
 * leaves the state now to the badge below it, which follows the order.
 */
function decided(
  decision: 'approve' | 'reject',
  price: string,
  outcome: { state: string; stillNeeded: number },
): string {
  if (decision === 'reject')
    return `You rejected the order at ${price} a month. ${outcome.state === 'REJECTED' ? 'It is REJECTED: nothing is bought.' : `It is ${outcome.state}.`}`;
  if (outcome.state === 'AWAITING_APPROVAL')
    return `You approved ${price} a month. It still waits for ${outcome.stillNeeded} more approval${outcome.stillNeeded === 1 ? '' : 's'}.`;
  if (outcome.state === 'APPROVED')
    return `You approved ${price} a month, the last approval needed: the order goes on to be bought once its price is checked again. Its state below follows it.`;
  return `You approved ${price} a month. The order is ${outcome.state}.`;
}

/** Registers the console's routes (`/`, `/sign-in`, `/sign-out`, `/orders/:orderId`, `/ops`) on `app`. */
export async function registerConsole(
  app: FastifyInstance,
  context: ApiContext,
  options: ConsoleOptions,
): Promise<void> {
  const sessions = options.sessions ?? new SessionStore({ rows: context.repository, keys: context.codecKeys });
  const cookie = sessionCookie(options.secureCookies);
  const target: ApiTarget = options.api ?? app;
  const now = options.now ?? Date.now;
  const devUsers = options.devUsers ?? [];
  const expiryWarningMs = options.expiryWarningMs ?? 24 * 3600_000;
  const slowProvisioningMs = options.slowProvisioningMs ?? 30 * 60_000;
  const ordered = new OrderedFactsCache(context.repository);

  await app.register(async (scope) => {
    // Forms arrive url-encoded; this parser lives only inside the console's scope, not on the API's routes.
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 64 * 1024 },
      (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      },
    );

    scope.addHook('onRequest', async (request, reply) => {
      request.consoleSession = await sessions.get(parseCookies(request.headers.cookie).get(cookie.name));
      void reply
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'same-origin')
        .header('x-frame-options', 'DENY');
    });

    // Before the answer leaves, so the browser's next request, to whichever server, finds the change (a flash, a
    // sign-in under way) stored.
    scope.addHook('onSend', async (request) => {
      if (request.consoleSession) await sessions.save(request.consoleSession);
    });

    scope.setErrorHandler(async (error, request, reply) => {
      if (error instanceof ApiRefusal && error.failure.status === 401)
        return signedOut(request, reply, 'Your sign-in is no longer valid; please sign in again.');
      const failure: ApiFailure | undefined = error instanceof ApiRefusal ? error.failure : undefined;
      if (!failure)
        context.log(
          `console ${request.method} ${request.url.split('?')[0]}: ${(error as Error).stack ?? String(error)}`,
        );
      const status =
        failure?.status ??
        ((error as { statusCode?: number }).statusCode && (error as { statusCode: number }).statusCode < 500
          ? (error as { statusCode: number }).statusCode
          : 500);
      const body = failure
        ? html`<h1>Not possible</h1>${failureNotice(failure)}<p><a href="/">Back to the console</a></p>`
        : messagePage(
            'Something went wrong',
            status < 500 ? (error as Error).message : 'The console failed to answer; the error is in the server log.',
            'error',
          );
      return sendPage(reply, request, status, 'Error', body);
    });

    // ---- helpers ----

    function sendPage(
      reply: FastifyReply,
      request: FastifyRequest,
      status: number,
      title: string,
      body: Html,
      extra: { liveSrc?: string; current?: 'inbox' | 'ops' | 'sign-in' } = {},
    ) {
      const nonce = randomBytes(16).toString('base64');
      // The OIDC sign-in form's POST is answered with a redirect to the identity provider: allowed on that page only.
      const formAction =
        extra.current === 'sign-in' && options.oidc ? `'self' ${options.oidc.providerOrigin}` : `'self'`;
      return reply
        .code(status)
        .type('text/html; charset=utf-8')
        .header(
          'content-security-policy',
          `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
        )
        .send(
          page({
            title,
            session: request.consoleSession,
            nonce,
            body,
            ...extra,
            refresh: request.headers[LIVE_HEADER] !== undefined,
          }),
        );
    }

    function redirect(reply: FastifyReply, to: string) {
      return reply.code(303).header('location', to).send();
    }

    async function signedOut(request: FastifyRequest, reply: FastifyReply, message?: string) {
      if (request.consoleSession) await sessions.destroy(request.consoleSession.id);
      request.consoleSession = undefined;
      if (request.headers[LIVE_HEADER]) return reply.code(401).type('text/plain').send('signed out');
      const fresh = await sessions.create(message ? { flash: { kind: 'error', text: message } } : {});
      const next = request.method === 'GET' ? request.url : '/';
      return reply
        .header('set-cookie', cookie.set(fresh.id))
        .code(303)
        .header('location', `/sign-in?next=${encodeURIComponent(next)}`)
        .send();
    }

    /** The signed-in session, or undefined after answering with a redirect to the sign-in page. */
    async function signedIn(
      request: FastifyRequest,
      reply: FastifyReply,
    ): Promise<(ConsoleSession & { user: ConsoleUser; credential: string }) | undefined> {
      const session = request.consoleSession;
      if (session?.user && session.credential)
        return session as ConsoleSession & { user: ConsoleUser; credential: string };
      await signedOut(request, reply);
      return undefined;
    }

    /** A POST's form, after checking its CSRF token against the session's; undefined after answering 403. */
    function checkedForm(
      request: FastifyRequest,
      reply: FastifyReply,
      session: ConsoleSession | undefined,
    ): Record<string, string> | undefined {
      const form = (request.body ?? {}) as Record<string, string>;
      if (typeof request.body !== 'object' || !session || !csrfMatches(session, form['_csrf'])) {
        void sendPage(
          reply,
          request,
          403,
          'Refused',
          messagePage(
            'Refused',
            'This form has expired or did not come from this console. Go back, reload the page and try again.',
            'csrf-refused',
          ),
        );
        return undefined;
      }
      return form;
    }

    function takeFlash(request: FastifyRequest): Html {
      const session = request.consoleSession;
      if (!session?.flash || request.headers[LIVE_HEADER]) return html``;
      const flash = session.flash;
      delete session.flash;
      return flashNotice(flash);
    }

    async function startSession(
      request: FastifyRequest,
      reply: FastifyReply,
      credential: string,
      credentialExpiresAt?: number,
    ): Promise<ConsoleUser> {
      const api = new ConsoleApi(target, credential);
      const me = await api.expect<ConsoleUser>('GET', '/api/v1/me');
      // A new id on sign-in: an id seen before signing in (fixation) is worth nothing afterwards.
      if (request.consoleSession) await sessions.destroy(request.consoleSession.id);
      const user: ConsoleUser = {
        id: me.id,
        qualifiedId: me.qualifiedId,
        roles: [...me.roles],
        via: me.via,
        can: me.can,
      };
      const session = await sessions.create({
        user,
        credential,
        ...(credentialExpiresAt !== undefined ? { credentialExpiresAt } : {}),
      });
      request.consoleSession = session;
      void reply.header('set-cookie', cookie.set(session.id));
      return user;
    }

    scope.get('/favicon.svg', async (_request, reply) => reply.type('image/svg+xml').send(FAVICON_SVG));

    // ---- sign-in and out ----

    scope.get('/sign-in', async (request, reply) => {
      const next = safeNext((request.query as Record<string, unknown>)['next']);
      let session = request.consoleSession;
      if (session?.user) return redirect(reply, next);
      if (!session) {
        session = await sessions.create();
        request.consoleSession = session;
        void reply.header('set-cookie', cookie.set(session.id));
      }
      const message = session.flash?.text;
      delete session.flash;
      const body = signInView({
        session,
        devUsers: devUsers.map(({ id, roles }) => ({ id, roles: [...roles] })),
        oidc: !!options.oidc,
        next,
        ...(message ? { message } : {}),
      });
      return sendPage(reply, request, 200, 'Sign in', body, { current: 'sign-in' });
    });

    if (devUsers.length > 0)
      scope.post('/sign-in/dev', async (request, reply) => {
        const form = checkedForm(request, reply, request.consoleSession);
        if (!form) return reply;
        const user = devUsers.find((candidate) => candidate.id === form['user']);
        if (!user)
          return sendPage(
            reply,
            request,
            404,
            'Sign in',
            messagePage('Sign in', 'There is no such development user on this server.', 'error'),
          );
        await startSession(request, reply, user.token);
        return redirect(reply, safeNext(form['next']));
      });

    if (options.oidc) {
      const oidc = options.oidc;
      scope.post('/sign-in/oidc', async (request, reply) => {
        const form = checkedForm(request, reply, request.consoleSession);
        if (!form) return reply;
        const { url, pending } = await oidc.start(safeNext(form['next']));
        request.consoleSession!.pendingOidc = { ...pending, startedAt: now() };
        return redirect(reply, url);
      });
      scope.get('/sign-in/callback', async (request, reply) => {
        const session = request.consoleSession;
        const pending = session?.pendingOidc;
        if (!session || !pending || now() - pending.startedAt > 10 * 60_000) {
          return sendPage(
            reply,
            request,
            400,
            'Sign in',
            messagePage(
              'Sign in',
              html`This sign-in was not started here or took too long. <a href="/sign-in">Sign in again</a>.`,
              'error',
            ),
          );
        }
        delete session.pendingOidc;
        let tokens: { accessToken: string; expiresAt?: number };
        try {
          tokens = await oidc.finish(new URL(request.url, oidc.redirectUri), pending);
        } catch (error) {
          context.log(`console sign-in: ${(error as Error).message}`);
          return sendPage(
            reply,
            request,
            400,
            'Sign in',
            messagePage(
              'Sign in',
              html`The identity provider's answer was refused: ${(error as Error).message}. <a href="/sign-in">Sign in again</a>.`,
              'error',
            ),
          );
        }
        await startSession(request, reply, tokens.accessToken, tokens.expiresAt);
        return redirect(reply, safeNext(pending.next));
      });
    }

    scope.post('/sign-out', async (request, reply) => {
      const form = checkedForm(request, reply, request.consoleSession);
      if (!form) return reply;
      await sessions.destroy(request.consoleSession!.id);
      request.consoleSession = undefined;
      return reply.header('set-cookie', cookie.clear()).code(303).header('location', '/sign-in').send();
    });

    // ---- inbox ----

    scope.get('/', async (request, reply) => {
      const session = await signedIn(request, reply);
      if (!session) return reply;
      const api = new ConsoleApi(target, session.credential);
      const flash = takeFlash(request);
      const inbox = await api.call<{ approvals: InboxItem[] }>('GET', '/api/v1/approvals?limit=200');
      if (inbox.status === 200) {
        const entries = await Promise.all(
          inbox.body.approvals.map(async (item) => ({ ...item, ordered: await ordered.of(item.orderId) })),
        );
        return sendPage(reply, request, 200, 'Approvals inbox', inboxView(entries, now(), flash), {
          liveSrc: '/',
          current: 'inbox',
        });
      }
      if (inbox.status !== 403) throw new ApiRefusal(failureOf(inbox));
      const mine = await api.expect<{ orders: ListedOrder[] }>('GET', '/api/v1/orders?limit=50');
      return sendPage(reply, request, 200, 'Orders', myOrdersView(session.user, mine.orders, flash), {
        liveSrc: '/',
        current: 'inbox',
      });
    });

    // ---- order ----

    async function renderOrder(
      request: FastifyRequest,
      reply: FastifyReply,
      session: ConsoleSession & { user: ConsoleUser; credential: string },
      name: string,
      status: number,
      extras: OrderPageExtras,
    ) {
      const api = new ConsoleApi(target, session.credential);
      const answer = await api.call('GET', `/api/v1/orders/${encodeURIComponent(name)}`);
      if (answer.status === 404) {
        return sendPage(
          reply,
          request,
          404,
          'No such order',
          messagePage('No such order', `There is no order ${name}, or it is not yours to see.`, 'not-found'),
        );
      }
      if (answer.status !== 200) throw new ApiRefusal(failureOf(answer));
      const order = answer.body;
      // Ops and admins also see the workflow's history events (decoded, secrets redacted by the API).
      const history = await api.call(
        'GET',
        `/api/v1/orders/${encodeURIComponent(order.orderId)}/history${isOps(session.user) ? '' : '?events=false'}`,
      );
      // The API has just shown this order to this person; its request (recorded with secrets redacted) says
      // what was ordered, and the view shows only size, term, location, image and vNICs of it.
      const records = await context.repository.getOrder(order.workflowId);
      const body = orderView(
        {
          order,
          history: history.status === 200 ? history.body : null,
          request: records?.order.request ?? null,
          user: session.user,
          session,
          now: now(),
        },
        extras,
      );
      return sendPage(reply, request, status, `Order ${order.ticketId}`, body, {
        liveSrc: `/orders/${encodeURIComponent(order.orderId)}`,
      });
    }

    scope.get<{ Params: { orderId: string } }>('/orders/:orderId', async (request, reply) => {
      const session = await signedIn(request, reply);
      if (!session) return reply;
      return renderOrder(request, reply, session, request.params.orderId, 200, { flash: takeFlash(request) });
    });

    /** Runs an action through the API; on success a flash and a redirect to the order, else the order again with why. */
    async function act(
      request: FastifyRequest<{ Params: { orderId: string } }>,
      reply: FastifyReply,
      action: (
        api: ConsoleApi,
        form: Record<string, string>,
      ) => Promise<{ ok: string } | { failure: ApiFailure; extras?: OrderPageExtras }>,
    ) {
      const session = await signedIn(request, reply);
      if (!session) return reply;
      const form = checkedForm(request, reply, session);
      if (!form) return reply;
      const name = request.params.orderId;
      const outcome = await action(new ConsoleApi(target, session.credential), form);
      if ('ok' in outcome) {
        session.flash = { kind: 'ok', text: outcome.ok };
        return redirect(reply, `/orders/${encodeURIComponent(name)}`);
      }
      if (outcome.failure.status === 401) throw new ApiRefusal(outcome.failure);
      return renderOrder(request, reply, session, name, outcome.failure.status, {
        error: failureNotice(outcome.failure, 'Nothing was changed.'),
        ...outcome.extras,
      });
    }

    scope.post<{ Params: { orderId: string } }>('/orders/:orderId/decide', async (request, reply) =>
      act(request, reply, async (api, form) => {
        const decision = form['decision'] === 'reject' ? 'reject' : 'approve';
        const shown = {
          monthlyRate:
            form['monthlyRate'] !== undefined && form['monthlyRate'] !== '' ? Number(form['monthlyRate']) : undefined,
          currency: form['currency'],
        };
        const comment = (form['comment'] ?? '').trim();
        const body =
          decision === 'approve' ? { ...shown, ...(comment ? { comment } : {}) } : { ...shown, reason: comment };
        const answer = await api.call<{ state: string; approvedBy: string[]; stillNeeded: number }>(
          'POST',
          `/api/v1/orders/${encodeURIComponent(request.params.orderId)}/${decision}`,
          body,
        );
        if (answer.status === 200) {
          const price = money(shown.monthlyRate ?? null, shown.currency ?? null);
          return { ok: decided(decision, price, answer.body) };
        }
        const failure = failureOf(answer);
        if (failure.code === 'QUOTE_NOT_CURRENT') {
          failure.message = `The price changed since the page was loaded: you were shown ${money(shown.monthlyRate ?? null, shown.currency ?? null)} a month. ${moneyInText(failure.message, shown.currency ? [shown.currency] : [])}. Check the new price below and decide again.`;
        }
        return { failure, extras: { comment } };
      }),
    );

    scope.post<{ Params: { orderId: string } }>('/orders/:orderId/cancel', async (request, reply) =>
      act(request, reply, async (api, form) => {
        const answer = await api.call('POST', `/api/v1/orders/${encodeURIComponent(request.params.orderId)}/cancel`, {
          reason: form['reason'] ?? '',
        });
        return answer.status === 200
          ? { ok: `The order was cancelled (${answer.body.state}).` }
          : { failure: failureOf(answer) };
      }),
    );

    scope.post<{ Params: { orderId: string } }>('/orders/:orderId/resolve-buy', async (request, reply) =>
      act(request, reply, async (api, form) => {
        const note = (form['note'] ?? '').trim();
        const body =
          form['outcome'] === 'created'
            ? {
                outcome: 'created',
                technicalServiceUid: (form['technicalServiceUid'] ?? '').trim(),
                ...(note ? { note } : {}),
              }
            : { outcome: form['outcome'] ?? '', note };
        const answer = await api.call(
          'POST',
          `/api/v1/orders/${encodeURIComponent(request.params.orderId)}/resolve-buy`,
          body,
        );
        if (answer.status !== 200) return { failure: failureOf(answer) };
        return {
          ok:
            form['outcome'] === 'created'
              ? `Recorded as created; the order is ${answer.body.state}.`
              : `Recorded as not created; the order is ${answer.body.state} (it buys again).`,
        };
      }),
    );

    // ---- ops ----

    scope.get('/ops', async (request, reply) => {
      const session = await signedIn(request, reply);
      if (!session) return reply;
      if (!isOps(session.user)) {
        return sendPage(
          reply,
          request,
          403,
          'Ops',
          messagePage('Ops', 'The ops view is for the ops and admin roles.', 'forbidden'),
        );
      }
      const api = new ConsoleApi(target, session.credential);
      const q = request.query as Record<string, unknown>;
      const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
      const filters: OpsFilters = {};
      for (const key of ['status', 'environment', 'requester', 'ticket', 'cursor'] as const) {
        const value = text(q[key]);
        if (value) filters[key] = value;
      }
      let orders: ListedOrder[] = [];
      let nextCursor: string | null = null;
      let error: Html | undefined;
      if (filters.ticket) {
        const one = await api.call('GET', `/api/v1/orders/${encodeURIComponent(filters.ticket)}`);
        if (one.status === 200) {
          const found = one.body as ListedOrder & { timeline?: Array<{ at: string }> };
          const row: ListedOrder = {
            ...found,
            lastError: found.lastError ?? null,
            createdAt: found.timeline?.[0]?.at ?? '',
            updatedAt: found.timeline?.at(-1)?.at ?? '',
          };
          orders = [row].filter(
            (order) =>
              (!filters.status || order.state === filters.status) &&
              (!filters.environment || order.environment === filters.environment),
          );
        } else if (one.status !== 404) error = failureNotice(failureOf(one));
      } else {
        const listed = await api.call(
          'GET',
          `/api/v1/orders${query({ status: filters.status, environment: filters.environment, requester: filters.requester, cursor: filters.cursor, limit: 50 })}`,
        );
        if (listed.status === 200) {
          orders = listed.body.orders;
          nextCursor = listed.body.nextCursor;
        } else error = failureNotice(failureOf(listed), 'The filter was refused.');
      }
      const attention = await needsAttention(api);
      const liveSrc = `/ops${query({ ...filters })}`;
      const body = opsView({
        filters,
        orders,
        nextCursor,
        attention,
        now: now(),
        expiryWarningMs,
        slowProvisioningMs,
        flash: takeFlash(request),
        ...(error ? { error } : {}),
      });
      return sendPage(reply, request, 200, 'Ops', body, { liveSrc, current: 'ops' });
    });

    async function needsAttention(api: ConsoleApi): Promise<Attention> {
      const listed = (status: string, limit: number) =>
        api.expect<{ orders: ListedOrder[] }>('GET', `/api/v1/orders?status=${status}&limit=${limit}`);
      const [uncertain, failed, awaiting, provisioningFailed, provisioningStalled, provisioning] = await Promise.all([
        listed('BUY_UNCERTAIN', 100),
        listed('FAILED', 10),
        listed('AWAITING_APPROVAL', 100),
        listed('PROVISIONING_FAILED', 10),
        listed('PROVISIONING_STALLED', 10),
        listed('PROVISIONING', 100),
      ]);
      const at = now();
      const details = await Promise.all(
        awaiting.orders.map(async (order) => {
          const answer = await api.call('GET', `/api/v1/orders/${encodeURIComponent(order.orderId)}`);
          const approval = answer.status === 200 ? answer.body.approval : undefined;
          return approval?.deadline
            ? {
                order,
                deadline: approval.deadline as string,
                stillNeeded: approval.stillNeeded as number,
                tier: approval.tier?.name as string,
              }
            : undefined;
        }),
      );
      const expiring = details
        .filter((item): item is NonNullable<typeof item> => !!item && Date.parse(item.deadline) - at < expiryWarningMs)
        .sort((a, b) => Date.parse(a.deadline) - Date.parse(b.deadline));
      // The list has the last error's message; the order itself (live, or its records) may add its type and trace id.
      const failedWithTrace = await Promise.all(
        failed.orders.map(async (order) => {
          const answer = await api.call('GET', `/api/v1/orders/${encodeURIComponent(order.orderId)}`);
          const lastError =
            answer.status === 200 ? (answer.body.lastError as ListedOrder['lastError'] | undefined) : undefined;
          return lastError?.message ? { ...order, lastError: { ...order.lastError, ...lastError } } : order;
        }),
      );
      const oldestChangeFirst = (a: ListedOrder, b: ListedOrder) => a.updatedAt.localeCompare(b.updatedAt);
      return {
        uncertain: [...uncertain.orders].sort(oldestChangeFirst),
        failed: failedWithTrace,
        expiring,
        provisioningEnded: [...provisioningFailed.orders, ...provisioningStalled.orders]
          .sort((a, b) => oldestChangeFirst(b, a))
          .slice(0, 10),
        provisioningSlow: provisioning.orders
          .filter((order) => at - Date.parse(order.updatedAt) > slowProvisioningMs)
          .sort(oldestChangeFirst),
      };
    }
  });
}
