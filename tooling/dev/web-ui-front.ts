/**
 * The front of dev's Temporal Web UI: a loopback proxy of dev's own on the Web UI's port, with `temporal server
 * start-dev`'s UI behind it on a port of its own. It passes every request and answer through as they are, except the
 * UI's settings (`GET /api/v1/settings`), in which it switches on the codec server's "include cross-origin
 * credentials" and says, for a decode that is refused, where to sign in.
 *
 * Why a front: start-dev gives its UI server a codec endpoint (`--ui-codec-endpoint`) and nothing else; no flag or
 * variable reaches the UI's other codec settings. Without credentials the browser's call to the codec server carries
 * no console sign-in, so the UI showed ciphertext until each browser was set by hand. With them, the browser sends the
 * console's session cookie, which the codec server takes only from this UI's origin and only for ops and admins
 * (client/http/routes/codec.ts, docs/security.md "The codec server").
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const UI_SETTINGS_PATH = '/api/v1/settings';

/** Headers of one connection, never forwarded (RFC 9110 §7.6.1); the framing is each side's own. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-authenticate',
  'proxy-authorization',
]);

export interface WebUiFrontOptions {
  /** Where the front and the UI behind it listen: loopback. */
  host: string;
  /** The front's preferred port; taken, or 0: any free port. */
  port: number;
  /** The port of start-dev's own UI server, on `host`. */
  upstreamPort: number;
  /** The API's port: its codec server (`/codec`) and the console's sign-in page. */
  apiPort: number;
}

export interface WebUiFront {
  url: string;
  port: number;
  /** The preferred port was taken: the front listens on another. */
  taken: boolean;
  close(): Promise<void>;
}

/** The front, listening: on the preferred port, or, when it is taken, on any free port. */
export async function startWebUiFront(options: WebUiFrontOptions): Promise<WebUiFront> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
  const server = http.createServer((request, response) => forward(request, response, options, agent));
  let taken = false;
  let port: number;
  try {
    port = await listen(server, options.port, options.host);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || options.port === 0) throw error;
    taken = true;
    port = await listen(server, 0, options.host);
  }
  return {
    url: `http://${options.host}:${port}`,
    port,
    taken,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => reject(error);
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** The headers to pass on: all but those of the connection, and those it names. */
function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase()),
  );
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !named.has(name)));
}

/** One request, passed to the UI server behind and its answer passed back; the settings rewritten on the way. */
function forward(
  request: http.IncomingMessage,
  response: http.ServerResponse,
  options: WebUiFrontOptions,
  agent: http.Agent,
): void {
  const host = servedHostName(request.headers.host, options.host);
  if (!host) {
    // A page of another site whose name was pointed at this machine (DNS rebinding) reaches the UI by that name only.
    response
      .writeHead(421, { 'content-type': 'text/plain; charset=utf-8' })
      .end(`This Temporal Web UI answers as ${options.host} or localhost only.\n`);
    return;
  }
  const settings = request.method === 'GET' && (request.url ?? '').split('?')[0] === UI_SETTINGS_PATH;
  const headers = endToEnd(request.headers);
  // The settings are read whole to be rewritten: asked for uncompressed.
  if (settings) delete headers['accept-encoding'];
  const upstream = http.request(
    { host: options.host, port: options.upstreamPort, method: request.method, path: request.url, headers, agent },
    (answer) => {
      if (settings && answer.statusCode === 200) {
        rewriteSettings(answer, response, `http://${host}:${options.apiPort}`);
        return;
      }
      response.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.headers));
      answer.pipe(response);
      answer.once('error', () => response.destroy());
    },
  );
  upstream.once('error', (error) => {
    if (response.headersSent) {
      response.destroy();
      return;
    }
    response
      .writeHead(502, { 'content-type': 'text/plain; charset=utf-8' })
      .end(`The Temporal Web UI behind this port did not answer (${error.message}); see dev's temporal.log.\n`);
  });
  request.pipe(upstream);
  request.once('error', () => upstream.destroy());
  response.once('close', () => {
    if (!response.writableFinished) upstream.destroy();
  });
}

function rewriteSettings(answer: http.IncomingMessage, response: http.ServerResponse, api: string): void {
  const chunks: Buffer[] = [];
  answer.on('data', (chunk: Buffer) => chunks.push(chunk));
  answer.once('error', () => response.destroy());
  answer.once('end', () => {
    const headers = endToEnd(answer.headers);
    let body = Buffer.concat(chunks);
    try {
      body = Buffer.from(JSON.stringify(devUiSettings(JSON.parse(body.toString('utf8')), api)));
      delete headers['content-encoding'];
    } catch {
      // not the JSON this UI answers (compressed after all?): passed on as it is
    }
    response.writeHead(200, answer.statusMessage, { ...headers, 'content-length': body.length }).end(body);
  });
}

/**
 * The UI's settings as dev serves them: its codec server the API's (`api`: on the host name the UI was opened with,
 * as the console's cookie goes only to the host that set it), called with the browser's credentials; a refused
 * decode names where to sign in. Everything else as the UI server said.
 */
export function devUiSettings(settings: unknown, api: string): unknown {
  if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) return settings;
  const record = settings as Record<string, unknown>;
  const codec = record['Codec'] !== null && typeof record['Codec'] === 'object' ? record['Codec'] : {};
  return {
    ...record,
    Codec: {
      ...codec,
      Endpoint: `${api}/codec`,
      PassAccessToken: false,
      IncludeCredentials: true,
      DefaultErrorMessage:
        'Payloads are decoded for ops and admins signed in to the mve-orders console in this browser: ' +
        'sign in there (in dev, as olga), then reload this page.',
      DefaultErrorLink: `${api}/sign-in`,
    },
  };
}

/**
 * The name the request reached the UI by, when it is one dev serves it as (`host`, or `localhost`), else undefined.
 * The port is not checked: the front may have moved from its preferred one.
 */
export function servedHostName(hostHeader: string | undefined, host: string): string | undefined {
  if (!hostHeader) return undefined;
  let name: string;
  try {
    name = new URL(`http://${hostHeader}`).hostname;
  } catch {
    return undefined;
  }
  return name === host || name === 'localhost' ? name : undefined;
}
