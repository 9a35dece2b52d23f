import anyTest, { type TestFn } from 'ava';
import { randomBytes } from 'node:crypto';
import { issueApiToken } from '../../client/http/index.js';
import { spawnCli, type CliChild } from '../dev/child.js';
import { engineEnv, runCli } from '../helpers/cli.js';
import { startOrderEngine, sydneyRequest, type OrderEngine } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';

// `mve-orders serve` and `mve-orders worker` as a deployment runs them with MVE_LOG_FORMAT=json: one order followed
// through both processes' lines by its order id, the ordering API's trace id of a failed call, and no secret.

const test = anyTest as TestFn<{ engine: OrderEngine; env: NodeJS.ProcessEnv }>;
const PROXY_REQUEST_ID = 'lb-7f3a9c21e4d0';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const pg = usePostgres(test);

test.before(async (t) => {
  const engine = await startOrderEngine(pg, { worker: false });
  t.context.engine = engine;
  t.context.env = {
    ...engineEnv(engine, { provider: true }),
    MVE_FOLLOW_PROVISIONING: 'false',
    MVE_LOG_FORMAT: 'json',
    MVE_LOG_LEVEL: 'debug',
  };
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
});

type Line = Record<string, unknown>;

/** Every line the command printed on stdout, each parsed: the test fails on the first that is not a JSON object. */
function jsonLines(t: { fail(message: string): void }, name: string, output: string): Line[] {
  return output
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      try {
        const parsed: unknown = JSON.parse(line);
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as Line;
      } catch {
        // reported below
      }
      t.fail(`${name} printed a line that is not a JSON object: ${line}`);
      return {};
    });
}

for (const command of ['serve', 'worker']) {
  test.serial(
    `${command}: a bad MVE_LOG_FORMAT or MVE_LOG_LEVEL stops start-up, naming the allowed values`,
    async (t) => {
      const format = await runCli([command], { env: { ...t.context.env, MVE_LOG_FORMAT: 'xml' } });
      t.is(format.code, 2);
      t.regex(format.stderr, /MVE_LOG_FORMAT: "xml" is not one of text, json/);
      const level = await runCli([command], { env: { ...t.context.env, MVE_LOG_LEVEL: 'verbose' } });
      t.is(level.code, 2);
      t.regex(level.stderr, /MVE_LOG_LEVEL: "verbose" is not one of debug, info, warn, error/);
    },
  );
}

test.serial(
  'json: one order followed by its id through the server and the worker, with trace ids, no secret',
  async (t) => {
    t.timeout(240_000);
    const { engine, env } = t.context;
    const alice = (await issueApiToken(engine.repository, { owner: 'alice', roles: ['requester'] })).token;
    const cookie = `mve_session=${randomBytes(24).toString('base64url')}`;
    const worker = spawnCli(['worker'], env);
    const server = spawnCli(['serve', '--host', '127.0.0.1', '--port', '0'], env);
    const children: Array<[string, CliChild]> = [
      ['worker', worker],
      ['serve', server],
    ];
    let order: { orderId: string; state: string; lastError?: { traceId?: string } };
    try {
      await worker.waitForOutput(/worker polling/, 120_000);
      const [, url] = await server.waitForOutput(/HTTP API listening on (http:\/\/[\w.:]+)/, 120_000);
      const call = (path: string, init: RequestInit = {}, requestId?: string) =>
        fetch(`${url}${path}`, {
          ...init,
          headers: {
            authorization: `Bearer ${alice}`,
            cookie,
            'content-type': 'application/json',
            ...(requestId ? { 'x-request-id': requestId } : {}),
          },
        });
      // The provider answers the buy 503: the order parks in BUY_UNCERTAIN with the trace id of that answer.
      engine.sim.injectFault({ kind: 'error', endpoint: 'buy', status: 503 });
      // A proxy's request id is kept (answered in X-Request-Id, logged); one that is not a plain token is replaced.
      const submitted = await call(
        '/api/v1/orders',
        { method: 'POST', body: JSON.stringify(sydneyRequest('JSON-LOGS-1', { size: 'MVE 4/16' })) },
        PROXY_REQUEST_ID,
      );
      t.is(submitted.status, 201, await submitted.clone().text());
      t.is(submitted.headers.get('x-request-id'), PROXY_REQUEST_ID);
      const forged = await call('/api/v1/orders', {}, 'x" level=error msg=forged');
      t.regex(forged.headers.get('x-request-id') ?? '', UUID);
      // Nor is a credential taken for one (the lines are searched for the token below).
      t.regex((await call('/api/v1/orders', {}, alice)).headers.get('x-request-id') ?? '', UUID);
      const { orderId } = ((await submitted.json()) as { order: { orderId: string } }).order;
      const deadline = Date.now() + 90_000;
      for (;;) {
        order = (await (await call(`/api/v1/orders/${encodeURIComponent(orderId)}`)).json()) as typeof order;
        if (order.state === 'BUY_UNCERTAIN' || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      t.is(order.state, 'BUY_UNCERTAIN');
    } finally {
      for (const [, child] of children) await child.stop('SIGTERM', 30_000);
    }

    // Nothing but JSON: on stdout one object a line, and nothing on stderr.
    const lines: Record<string, Line[]> = {};
    for (const [name, child] of children) {
      t.is(child.stderr(), '', `${name} printed on stderr`);
      lines[name] = jsonLines(t, name, child.stdout());
      for (const line of lines[name]) {
        t.is(line['service'], name);
        t.true(['debug', 'info', 'warn', 'error'].includes(line['level'] as string), JSON.stringify(line));
        t.false(Number.isNaN(Date.parse(line['time'] as string)), JSON.stringify(line));
        t.is(typeof line['msg'], 'string');
      }
    }
    const orderId = order!.orderId;

    // The server: a line per request with its id, method, route, status and time; the order's id where the route has it.
    const requests = lines['serve'].filter((line) => line['route'] !== undefined);
    for (const line of requests) {
      t.regex(String(line['requestId']), /\S/);
      t.regex(String(line['method']), /^(GET|POST)$/);
      t.is(typeof line['status'], 'number');
      t.is(typeof line['ms'], 'number');
    }
    t.true(
      requests.some(
        (line) =>
          line['method'] === 'POST' &&
          line['route'] === '/api/v1/orders' &&
          line['status'] === 201 &&
          line['requestId'] === PROXY_REQUEST_ID,
      ),
    );
    t.false(JSON.stringify(lines['serve']).includes('forged'), "a caller's request id that is not plain is not logged");
    const reads = requests.filter((line) => line['route'] === '/api/v1/orders/:orderId');
    t.true(reads.length > 0);
    for (const line of reads) t.like(line, { method: 'GET', status: 200, orderId, caller: 'alice', level: 'info' });

    // The worker: every line about an activity names the order; the SDK's lines come through the same sink.
    const activityLines = lines['worker'].filter((line) => line['activity'] !== undefined);
    t.true(activityLines.length > 0);
    for (const line of activityLines) t.is(line['orderId'], orderId, JSON.stringify(line));
    t.true(
      lines['worker'].some((line) => line['msg'] === 'Activity completed' && line['activity'] === 'validateOrder'),
    );
    t.true(lines['worker'].some((line) => line['msg'] === 'Workflow started' && line['orderId'] === orderId));
    // Each ordering API call with its trace id: the validation at debug, the failed buy at info with the trace id
    // the order shows ops.
    const validation = lines['worker'].find((line) => line['msg'] === 'ordering API validate: 200');
    t.like(validation, { level: 'debug', orderId, status: 200 });
    t.regex(String(validation?.['traceId']), /^[\w-]{8,}$/);
    const buy = lines['worker'].find((line) => line['msg'] === 'ordering API buy: 503');
    t.truthy(order!.lastError?.traceId);
    t.like(buy, { level: 'info', orderId, activity: 'buyOrder', status: 503, traceId: order!.lastError?.traceId });

    // No secret anywhere: the API token, the cookie, the ordering API's client secret, the codec and action keys.
    const everything = children.map(([, child]) => child.stdout() + child.stderr()).join('\n');
    const secrets = {
      'API token': alice,
      cookie: cookie.split('=')[1],
      'client secret': engine.sim.clientSecret,
      'codec key': engine.codecKeys.split(':')[1],
      'action key': engine.actionKeysText.split(':')[1],
    };
    for (const [what, secret] of Object.entries(secrets)) t.false(everything.includes(secret), `${what} in the log`);
  },
);
