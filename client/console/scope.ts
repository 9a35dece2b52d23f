/**
 * The console's own fastify scope: what holds for every page and none of the API's routes (forms, sessions, security
 * headers, the error page, the icon).
 */
import type { FastifyInstance } from 'fastify';
import { ApiRefusal } from './api.js';
import { html } from './html.js';
import type { ConsoleKit } from './kit.js';
import { FAVICON_SVG } from './layout.js';
import { failureNotice, messagePage } from './notices.js';
import { parseCookies } from './sessions.js';

export function prepareScope(scope: FastifyInstance, kit: ConsoleKit, log: (line: string) => void): void {
  // Forms arrive url-encoded; this parser lives only inside the console's scope, not on the API's routes.
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 64 * 1024 },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    },
  );

  scope.addHook('onRequest', async (request, reply) => {
    request.consoleSession = await kit.sessions.get(parseCookies(request.headers.cookie).get(kit.cookie.name));
    void reply
      .header('cache-control', 'no-store')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('x-frame-options', 'DENY');
  });

  // Before the answer leaves, so the browser's next request, to whichever server, finds the change (a flash, a
  // sign-in under way) stored.
  scope.addHook('onSend', async (request) => {
    if (request.consoleSession) await kit.sessions.save(request.consoleSession);
  });

  scope.setErrorHandler(async (error, request, reply) => {
    if (error instanceof ApiRefusal && error.failure.status === 401)
      return kit.signedOut(request, reply, 'Your sign-in is no longer valid; please sign in again.');
    if (error instanceof ApiRefusal) {
      const body = html`<h1>Not possible</h1>${failureNotice(error.failure)}<p><a href="/">Back to the console</a></p>`;
      return kit.sendPage(reply, request, error.failure.status, 'Error', body);
    }
    log(`console ${request.method} ${request.url.split('?')[0]}: ${(error as Error).stack ?? String(error)}`);
    const status = clientErrorStatus(error) ?? 500;
    const body = messagePage(
      'Something went wrong',
      status < 500 ? (error as Error).message : 'The console failed to answer; the error is in the server log.',
      'error',
    );
    return kit.sendPage(reply, request, status, 'Error', body);
  });

  scope.get('/favicon.svg', async (_request, reply) => reply.type('image/svg+xml').send(FAVICON_SVG));
}

/** The status of an error fastify raised for the request itself (a body too large, a bad form), if below 500. */
function clientErrorStatus(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' && status > 0 && status < 500 ? status : undefined;
}
