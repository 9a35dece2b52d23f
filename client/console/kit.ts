/**
 * What every page's routes share: who is asking (the session a request's cookie names), how to ask the API on their
 * behalf, and the answers every page gives (a page under its security headers, a redirect, the way to sign in, a
 * form refused for its CSRF token, the one-time flash).
 */
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleApi, type ApiTarget } from './api.js';
import { html, type Html } from './html.js';
import { page, type PageOptions } from './layout.js';
import { flashNotice, messagePage } from './notices.js';
import type { ProviderPortal } from './portal.js';
import {
  csrfMatches,
  sessionCookie,
  type ConsoleSession,
  type ConsoleUser,
  type Flash,
  type SessionStore,
} from './sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    consoleSession?: ConsoleSession;
  }
}

/** The header the live script (layout.ts) sends with each refresh of a page's live regions. */
export const LIVE_HEADER = 'x-console-live';

/** A session someone has signed in to: the console calls the API with its credential. */
export type SignedInSession = ConsoleSession & { user: ConsoleUser; credential: string };

function isSignedIn(session: ConsoleSession | undefined): session is SignedInSession {
  return !!session?.user && !!session.credential;
}

export interface ConsoleKitOptions {
  sessions: SessionStore;
  /** Where API requests go (in process, `inject`). */
  target: ApiTarget;
  secureCookies: boolean;
  now: () => number;
  /** The identity provider's origin when people sign in through one: the OIDC sign-in form's POST goes there. */
  providerOrigin?: string;
  /** Where ops check the provider's products (`ConsoleOptions.providerPortal`), for the pages that send them there. */
  providerPortal?: ProviderPortal;
}

export class ConsoleKit {
  readonly sessions: SessionStore;
  readonly cookie: ReturnType<typeof sessionCookie>;
  readonly now: () => number;
  private readonly target: ApiTarget;
  private readonly providerOrigin: string | undefined;
  readonly providerPortal: ProviderPortal | undefined;

  constructor(options: ConsoleKitOptions) {
    this.sessions = options.sessions;
    this.cookie = sessionCookie(options.secureCookies);
    this.now = options.now;
    this.target = options.target;
    this.providerOrigin = options.providerOrigin;
    this.providerPortal = options.providerPortal;
  }

  /** The API, asked with this credential. */
  api(credential: string): ConsoleApi {
    return new ConsoleApi(this.target, credential);
  }

  sendPage(
    reply: FastifyReply,
    request: FastifyRequest,
    status: number,
    title: string,
    body: Html,
    extra: Pick<PageOptions, 'liveSrc' | 'current'> = {},
  ) {
    const nonce = randomBytes(16).toString('base64');
    // The OIDC sign-in form's POST is answered with a redirect to the identity provider: allowed on that page only.
    const formAction = extra.current === 'sign-in' && this.providerOrigin ? `'self' ${this.providerOrigin}` : `'self'`;
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

  redirect(reply: FastifyReply, to: string) {
    return reply.code(303).header('location', to).send();
  }

  /** Ends the request's session and sends the browser to sign in (a live refresh gets a bare 401 instead). */
  async signedOut(request: FastifyRequest, reply: FastifyReply, message?: string) {
    if (request.consoleSession) await this.sessions.destroy(request.consoleSession.id);
    request.consoleSession = undefined;
    if (request.headers[LIVE_HEADER]) return reply.code(401).type('text/plain').send('signed out');
    const fresh = await this.sessions.create(message ? { flash: { kind: 'error', text: message } } : {});
    const next = request.method === 'GET' ? request.url : '/';
    return reply
      .header('set-cookie', this.cookie.set(fresh.id))
      .code(303)
      .header('location', `/sign-in?next=${encodeURIComponent(next)}`)
      .send();
  }

  /** The signed-in session, or undefined after answering with a redirect to the sign-in page. */
  async signedIn(request: FastifyRequest, reply: FastifyReply): Promise<SignedInSession | undefined> {
    const session = request.consoleSession;
    if (isSignedIn(session)) return session;
    await this.signedOut(request, reply);
    return undefined;
  }

  /** A POST's form, after checking its CSRF token against the session's; undefined after answering 403. */
  checkedForm(
    request: FastifyRequest,
    reply: FastifyReply,
    session: ConsoleSession | undefined,
  ): Record<string, string> | undefined {
    const form = (request.body ?? {}) as Record<string, string>;
    if (typeof request.body !== 'object' || !session || !csrfMatches(session, form['_csrf'])) {
      void this.sendPage(
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

  /** The session's flash, shown once: a live refresh leaves it for the page the person loads next. */
  takeFlash(request: FastifyRequest): Html {
    const flash = this.takeFlashFor(request);
    return flash ? flashNotice(flash) : html``;
  }

  /**
   * The session's flash for the page of order `orderId` (or any other page), shown once — except a vote's on that
   * order: its page keeps it for its live refreshes to tell again what became of the vote, and the next page loaded
   * drops it unshown. Any other live refresh leaves the flash for the page the person loads next.
   */
  takeFlashFor(request: FastifyRequest, orderId?: string): Flash | undefined {
    const session = request.consoleSession;
    const flash = session?.flash;
    if (!session || !flash) return undefined;
    const follows = orderId !== undefined && flash.vote?.orderId === orderId;
    if (request.headers[LIVE_HEADER]) return follows && flash.shown ? flash : undefined;
    if (follows && !flash.shown) {
      session.flash = { ...flash, shown: true };
      return flash;
    }
    delete session.flash;
    return flash.shown ? undefined : flash;
  }
}
