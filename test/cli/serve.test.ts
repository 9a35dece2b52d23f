import anyTest, { type TestFn } from 'ava';
import { issueApiToken } from '../../client/http/index.js';
import { spawnCli } from '../dev/child.js';
import { engineEnv, runCli } from '../helpers/cli.js';
import { orderOf, startOrderEngine, sydneyRequest, type OrderEngine } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitForState } from '../helpers/wait.js';

// `mve-orders serve` as a real deployment runs it: configured by environment variables only.

const test = anyTest as TestFn<{ engine: OrderEngine; env: NodeJS.ProcessEnv }>;
const pg = usePostgres(test);

test.before(async (t) => {
  const engine = await startOrderEngine(pg);
  t.context.engine = engine;
  t.context.env = engineEnv(engine);
});
test.after.always(async (t) => {
  await t.context.engine?.stop();
});

test.serial('without MVE_ACTION_KEY, serve refuses to start and says what the key is for', async (t) => {
  const result = await runCli(['serve', '--port', '0'], { env: { ...t.context.env, MVE_ACTION_KEY: '' } });
  t.is(result.code, 2);
  t.regex(result.stderr, /MVE_ACTION_KEY is not set: the HTTP API and the workers share the key that signs approvals/);
});

test.serial('serve listens, answers health, and its signed approvals are accepted by the workers', async (t) => {
  const { engine } = t.context;
  const server = spawnCli(['serve', '--host', '127.0.0.1', '--port', '0'], t.context.env);
  try {
    const [, url] = await server.waitForOutput(/HTTP API listening on (http:\/\/\S+)/, 60_000);
    t.is((await fetch(`${url}/healthz`)).status, 200);
    const ready = await fetch(`${url}/readyz`);
    t.is(ready.status, 200, await ready.clone().text());

    const alice = (await issueApiToken(engine.repository, { owner: 'alice', roles: ['requester'] })).token;
    const fiona = (await issueApiToken(engine.repository, { owner: 'fiona', roles: ['finance-approver'] })).token;
    const post = (path: string, token: string, body: unknown) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    t.is((await post('/api/v1/orders', alice, sydneyRequest('SERVE-1', { size: 'MVE 8/32' }))).status, 201);
    const waiting = await waitForState(engine.orders, 'SERVE-1', 'AWAITING_APPROVAL');
    const approved = await post('/api/v1/orders/SERVE-1/approve', fiona, {
      monthlyRate: waiting.quote!.monthlyRate,
      currency: waiting.quote!.currency,
    });
    t.is(approved.status, 200, await approved.clone().text());
    t.is((await engine.orders.result(orderOf('SERVE-1'))).state, 'BOUGHT');
  } finally {
    t.is(await server.stop('SIGTERM', 20_000), 0, server.stderr());
  }
  t.regex(server.stdout(), /SIGTERM: stopping the HTTP API/);
});

test.serial('a worker with a broken approval policy refuses to start, naming the field and the rule', async (t) => {
  const result = await runCli(['worker'], {
    env: {
      ...t.context.env,
      MVE_API_BASE_URL: 'http://127.0.0.1:9/staging',
      MVE_AUTH_URL: 'http://127.0.0.1:9',
      MVE_ENVIRONMENT: 'staging',
      MVE_CLIENT_ID: 'id',
      MVE_CLIENT_SECRET: 'secret',
      MVE_APPROVAL_POLICY: JSON.stringify({
        version: '2026-Q4',
        staging: { autoApproveBelow: { AUD: 10 }, tiers: [], deadline: '1h', maxQuoteAge: '1h' },
      }),
    },
  });
  t.is(result.code, 2);
  t.regex(
    result.stderr,
    /invalid approval policy \(MVE_APPROVAL_POLICY\): staging\.tiers: must have at least one tier/,
  );
});

test.serial(
  'serve with a broken approval policy refuses to start: its teams decide whose money an order spends',
  async (t) => {
    const result = await runCli(['serve', '--port', '0'], {
      env: {
        ...t.context.env,
        MVE_APPROVAL_POLICY: JSON.stringify({
          staging: {
            autoApproveBelow: { AUD: 10 },
            tiers: [{ name: 'finance', roles: ['finance-approver'], approvals: 1 }],
            deadline: '1h',
            maxQuoteAge: '1h',
            teams: [{ id: 'network', name: 'Network engineering' }],
            budgetTimeZone: 'Mars/Olympus',
          },
        }),
      },
    });
    t.is(result.code, 2, result.stderr);
    t.regex(
      result.stderr,
      /invalid approval policy \(MVE_APPROVAL_POLICY\): staging\.budgetTimeZone: must be an IANA time zone/,
    );
  },
);
