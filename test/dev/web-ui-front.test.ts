/**
 * The front of dev's Temporal Web UI (tooling/dev/web-ui-front.ts), before a stand-in for start-dev's UI server: the
 * UI's settings come back with the codec server called with the browser's credentials, on the host name the UI was
 * opened with, and a refused decode naming where to sign in; everything else passes as it was, both ways; a name dev
 * does not serve the UI as (DNS rebinding) is refused; a UI server that does not answer is a 502 saying so. The real
 * UI behind the front, in chromium: test/console/temporal-ui.test.ts.
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import anyTest, { type TestFn } from 'ava';
import { startWebUiFront, type WebUiFront } from '../../tooling/dev/web-ui-front.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const test = anyTest as TestFn<{ upstream: Server; port: number; seen: Seen[]; front: WebUiFront }>;

/** What start-dev's UI server answers to its settings (UI 2.54.1), trimmed. */
const SETTINGS = {
  Auth: { Enabled: false, Options: null },
  DefaultNamespace: '',
  DisableNewsFetch: true,
  Codec: {
    Endpoint: 'http://127.0.0.1:8080/codec',
    PassAccessToken: false,
    IncludeCredentials: false,
    DefaultErrorMessage: '',
    DefaultErrorLink: '',
  },
  Version: '2.54.1',
};
const API_PORT = 18_080;

test.before(async (t) => {
  const seen: Seen[] = [];
  const upstream = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      seen.push({ method: request.method!, url: request.url!, headers: request.headers, body });
      const cookies = ['_csrf=abc; Path=/; SameSite=Strict', 'second=1; Path=/'];
      if (request.method === 'GET' && request.url === '/api/v1/settings') {
        const json = JSON.stringify(SETTINGS);
        const gzip = /gzip/.test(request.headers['accept-encoding'] ?? '');
        response.writeHead(200, {
          'content-type': 'application/json',
          'set-cookie': cookies,
          ...(gzip ? { 'content-encoding': 'gzip' } : {}),
        });
        response.end(gzip ? gzipSync(json) : json);
      } else if (request.url === '/moved') response.writeHead(302, { location: '/elsewhere' }).end();
      else if (request.url === '/big') response.writeHead(200, { 'set-cookie': cookies }).end('x'.repeat(300_000));
      else
        response.writeHead(404, { 'content-type': 'text/plain' }).end(`no ${request.method} ${request.url}: ${body}`);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const port = (upstream.address() as AddressInfo).port;
  const front = await startWebUiFront({ host: '127.0.0.1', port: 0, upstreamPort: port, apiPort: API_PORT });
  Object.assign(t.context, { upstream, port, seen, front });
});

test.after.always(async (t) => {
  await t.context.front?.close();
  await new Promise((resolve) => t.context.upstream?.close(resolve));
});

/** A request to the front with the Host header of our choosing (fetch cannot set it). */
function call(
  front: WebUiFront,
  path: string,
  options: { host?: string; method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port: front.port,
        path,
        method: options.method ?? 'GET',
        headers: { host: `${options.host ?? '127.0.0.1'}:${front.port}`, ...options.headers },
      },
      (answer) => {
        let body = '';
        answer.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
        answer.on('end', () => resolve({ status: answer.statusCode!, headers: answer.headers, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

interface Settings {
  Codec: Record<string, unknown>;
  [key: string]: unknown;
}

test('the settings: the codec server called with the browser credentials, a refusal naming where to sign in', async (t) => {
  const { front } = t.context;
  for (const host of ['127.0.0.1', 'localhost']) {
    // Asked as a browser asks, gzip welcome: the front reads them uncompressed.
    const answer = await call(front, '/api/v1/settings', { host, headers: { 'accept-encoding': 'gzip, br' } });
    t.is(answer.status, 200);
    t.is(answer.headers['content-encoding'], undefined);
    t.deepEqual(answer.headers['set-cookie'], ['_csrf=abc; Path=/; SameSite=Strict', 'second=1; Path=/']);
    const settings = JSON.parse(answer.body) as Settings;
    t.deepEqual(settings.Codec, {
      Endpoint: `http://${host}:${API_PORT}/codec`,
      PassAccessToken: false,
      IncludeCredentials: true,
      DefaultErrorMessage:
        'Payloads are decoded for ops and admins signed in to the mve-orders console in this browser: sign in there (in dev, as olga), then reload this page.',
      DefaultErrorLink: `http://${host}:${API_PORT}/sign-in`,
    });
    t.deepEqual({ ...settings, Codec: SETTINGS.Codec }, SETTINGS, 'everything else as the UI server said');
  }
  t.is(t.context.seen.filter((seen) => seen.url === '/api/v1/settings').at(-1)?.headers['accept-encoding'], undefined);
});

test('everything else passes as it was: methods, bodies, statuses, redirects, cookies, large answers', async (t) => {
  const { front, seen } = t.context;
  const posted = await call(front, '/api/v1/namespaces/default/workflows?x=1', {
    method: 'POST',
    body: '{"a":1}',
    headers: { 'content-type': 'application/json', 'x-csrf-token': 'abc', cookie: '_csrf=abc' },
  });
  t.is(posted.status, 404);
  t.is(posted.body, 'no POST /api/v1/namespaces/default/workflows?x=1: {"a":1}');
  const last = seen.at(-1)!;
  t.is(last.headers['x-csrf-token'], 'abc');
  t.is(last.headers.cookie, '_csrf=abc');
  t.is(last.headers.host, `127.0.0.1:${front.port}`, 'the name the browser used');
  const moved = await call(front, '/moved');
  t.is(moved.status, 302);
  t.is(moved.headers.location, '/elsewhere');
  const big = await call(front, '/big');
  t.is(big.body.length, 300_000);
  t.is(big.headers['set-cookie']?.length, 2);
  // A settings request that is not a GET is the UI server's to answer.
  t.is((await call(front, '/api/v1/settings', { method: 'POST', body: 'x' })).body, 'no POST /api/v1/settings: x');
});

test('a name dev does not serve the UI as is refused before the UI server hears of it (DNS rebinding)', async (t) => {
  const { front, seen } = t.context;
  for (const host of ['evil.test', '127.0.0.1.evil.test', 'localhost.evil.test']) {
    const refused = await call(front, '/api/v1/settings', { host });
    t.is(refused.status, 421, host);
    t.regex(refused.body, /answers as 127\.0\.0\.1 or localhost only/);
  }
  t.deepEqual(
    seen.filter((request) => /evil/.test(request.headers.host ?? '')),
    [],
  );
});

test('a UI server that does not answer: 502 saying so; a preferred port taken: another, said', async (t) => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const deadPort = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  const front = await startWebUiFront({ host: '127.0.0.1', port: 0, upstreamPort: deadPort, apiPort: API_PORT });
  const other = await startWebUiFront({
    host: '127.0.0.1',
    port: front.port,
    upstreamPort: t.context.port,
    apiPort: 1,
  });
  try {
    const answer = await call(front, '/');
    t.is(answer.status, 502);
    t.regex(answer.body, /The Temporal Web UI behind this port did not answer \(connect ECONNREFUSED/);
    t.false(front.taken);
    t.true(other.taken);
    t.not(other.port, front.port);
  } finally {
    await front.close();
    await other.close();
  }
});
