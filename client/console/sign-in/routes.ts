/**
 * Signing in and out: the sign-in page, the development users' buttons (`mve-orders dev` only), the identity
 * provider's round trip, and sign-out. Signing in starts a new session under a new id.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { html, type Html } from '../html.js';
import type { ConsoleKit } from '../kit.js';
import { messagePage } from '../notices.js';
import type { OidcSignIn } from '../oidc.js';
import type { DevUser } from '../options.js';
import { safeNext } from '../safe-next.js';
import type { ConsoleUser } from '../sessions.js';
import { signInView } from './view.js';

/** How long a sign-in may take at the identity provider before its callback is refused. */
const OIDC_ROUND_TRIP_MS = 10 * 60_000;

export function registerSignIn(
  scope: FastifyInstance,
  kit: ConsoleKit,
  options: { devUsers: readonly DevUser[]; oidc: OidcSignIn | undefined; log: (line: string) => void },
): void {
  const { devUsers, oidc } = options;
  scope.get('/sign-in', async (request, reply) => {
    const next = safeNext((request.query as Record<string, unknown>)['next']);
    let session = request.consoleSession;
    if (session?.user) return kit.redirect(reply, next);
    if (!session) {
      session = await kit.sessions.create();
      request.consoleSession = session;
      void reply.header('set-cookie', kit.cookie.set(session.id));
    }
    const message = session.flash?.text;
    delete session.flash;
    const body = signInView({
      session,
      devUsers: devUsers.map(({ id, roles }) => ({ id, roles: [...roles] })),
      oidc: !!oidc,
      next,
      ...(message ? { message } : {}),
    });
    return kit.sendPage(reply, request, 200, 'Sign in', body, { current: 'sign-in' });
  });
  if (devUsers.length > 0) registerDevSignIn(scope, kit, devUsers);
  if (oidc) registerOidcSignIn(scope, kit, oidc, options.log);
  scope.post('/sign-out', async (request, reply) => {
    const form = kit.checkedForm(request, reply, request.consoleSession);
    if (!form) return reply;
    await kit.sessions.destroy(request.consoleSession!.id);
    request.consoleSession = undefined;
    return reply.header('set-cookie', kit.cookie.clear()).code(303).header('location', '/sign-in').send();
  });
}

function registerDevSignIn(scope: FastifyInstance, kit: ConsoleKit, devUsers: readonly DevUser[]): void {
  scope.post('/sign-in/dev', async (request, reply) => {
    const form = kit.checkedForm(request, reply, request.consoleSession);
    if (!form) return reply;
    const user = devUsers.find((candidate) => candidate.id === form['user']);
    if (!user)
      return kit.sendPage(
        reply,
        request,
        404,
        'Sign in',
        messagePage('Sign in', 'There is no such development user on this server.', 'error'),
      );
    await startSession(kit, request, reply, user.token);
    return kit.redirect(reply, safeNext(form['next']));
  });
}

function registerOidcSignIn(
  scope: FastifyInstance,
  kit: ConsoleKit,
  oidc: OidcSignIn,
  log: (line: string) => void,
): void {
  scope.post('/sign-in/oidc', async (request, reply) => {
    const form = kit.checkedForm(request, reply, request.consoleSession);
    if (!form) return reply;
    const { url, pending } = await oidc.start(safeNext(form['next']));
    request.consoleSession!.pendingOidc = { ...pending, startedAt: kit.now() };
    return kit.redirect(reply, url);
  });
  scope.get('/sign-in/callback', async (request, reply) => finishOidcSignIn(kit, oidc, log, request, reply));
}

/** The identity provider's callback: checked against the sign-in this session started, then signed in. */
async function finishOidcSignIn(
  kit: ConsoleKit,
  oidc: OidcSignIn,
  log: (line: string) => void,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const session = request.consoleSession;
  const pending = session?.pendingOidc;
  if (!session || !pending || kit.now() - pending.startedAt > OIDC_ROUND_TRIP_MS) {
    return signInRefused(kit, request, reply, html`This sign-in was not started here or took too long.`);
  }
  delete session.pendingOidc;
  let tokens: { accessToken: string; expiresAt?: number };
  try {
    tokens = await oidc.finish(new URL(request.url, oidc.redirectUri), pending);
  } catch (error) {
    log(`console sign-in: ${(error as Error).message}`);
    return signInRefused(
      kit,
      request,
      reply,
      html`The identity provider's answer was refused: ${(error as Error).message}.`,
    );
  }
  await startSession(kit, request, reply, tokens.accessToken, tokens.expiresAt);
  return kit.redirect(reply, safeNext(pending.next));
}

/** A sign-in that cannot finish: 400, saying why, with the way to start again. */
function signInRefused(kit: ConsoleKit, request: FastifyRequest, reply: FastifyReply, why: Html) {
  const body = messagePage('Sign in', html`${why} <a href="/sign-in">Sign in again</a>.`, 'error');
  return kit.sendPage(reply, request, 400, 'Sign in', body);
}

/** Signs the request in with `credential`, under who the API says it is, in a new session with a new id. */
async function startSession(
  kit: ConsoleKit,
  request: FastifyRequest,
  reply: FastifyReply,
  credential: string,
  credentialExpiresAt?: number,
): Promise<void> {
  const me = await kit.api(credential).expect<ConsoleUser>('GET', '/api/v1/me');
  // A new id on sign-in: an id seen before signing in (fixation) is worth nothing afterwards.
  if (request.consoleSession) await kit.sessions.destroy(request.consoleSession.id);
  const user: ConsoleUser = {
    id: me.id,
    qualifiedId: me.qualifiedId,
    roles: [...me.roles],
    via: me.via,
    can: me.can,
  };
  const session = await kit.sessions.create({
    user,
    credential,
    ...(credentialExpiresAt !== undefined ? { credentialExpiresAt } : {}),
  });
  request.consoleSession = session;
  void reply.header('set-cookie', kit.cookie.set(session.id));
}
