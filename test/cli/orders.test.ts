import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { runCli } from '../helpers/cli.js';
import { startApiEngine, type ApiEngine, type TestUser } from '../helpers/api.js';
import { orderOf, sydneyRequest, TASK_QUEUE, TEST_POLICIES, workflowOf } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { waitFor, waitForState } from '../helpers/wait.js';
import { spawnCli } from '../dev/child.js';
import { OrderClient, OrderIntake } from '../../client/orders/index.js';
import type {
  ApiErrorDetail,
  ApiOrder,
  OrderHistory,
  PendingApproval,
  OrderList,
} from '../../client/http-client/index.js';

// The order commands through the real binary, against the real HTTP API in front of a real engine (Temporal,
// simulator, PostgreSQL, worker). The CLI finds the API through MVE_API_URL and is whoever MVE_TOKEN says,
// as in a real deployment; nothing comes from a dev running on this machine.

const test = anyTest as TestFn<{ api: ApiEngine; env: NodeJS.ProcessEnv; dir: string }>;
const pg = usePostgres(test);

test.before(async (t) => {
  const api = await startApiEngine(pg);
  const dir = await mkdtemp(join(tmpdir(), 'mve-cli-orders-'));
  t.context.api = api;
  t.context.dir = dir;
  t.context.env = {
    MVE_API_URL: api.url,
    MVE_TOKEN: '',
    // An empty data folder: nothing may come from a dev running on this machine.
    MVE_DATA_DIR: dir,
    // The order commands need none of these: make sure nothing of the machine's leaks in.
    TEMPORAL_ADDRESS: '',
    DATABASE_URL: '',
    MVE_CODEC_KEYS: '',
  };
});
test.after.always(async (t) => {
  await t.context.api?.stop();
  if (t.context.dir) await rm(t.context.dir, { recursive: true, force: true });
});

type Context = { context: { api: ApiEngine; env: NodeJS.ProcessEnv } };

/** `mve-orders <args>` as `user` (their API token in MVE_TOKEN). */
const cli = (t: Context, user: TestUser, args: string[], stdin?: string) =>
  runCli(args, {
    env: { ...t.context.env, MVE_TOKEN: t.context.api.tokens[user] },
    ...(stdin !== undefined ? { stdin } : {}),
  });

async function requestFile(dir: string, ticketId: string, overrides: Record<string, unknown> = {}): Promise<string> {
  const path = join(dir, `${ticketId}-${Object.values(overrides).join('-').replace(/\W+/g, '_')}.json`);
  await writeFile(path, JSON.stringify(sydneyRequest(ticketId, overrides)));
  return path;
}

/** What `--json` printed, read as the type the command prints. */
const jsonOf = <T>(result: { stdout: string }) => JSON.parse(result.stdout) as T;

/** What a refused command prints with `--json` (client/cli/commands/order-session.ts `report`). */
interface CliRefusal {
  error: { code: string; message: string; status?: number; details?: ApiErrorDetail[] };
}

test.serial(
  'submit starts an order; status shows it bought with its policy, submitter, product and timeline; the same request again is the same order',
  async (t) => {
    const { api } = t.context;
    const file = await requestFile(t.context.dir, 'CLI-AUTO', { size: 'MVE 4/16' });
    const submitted = await cli(t, 'alice', ['submit', file]);
    t.is(submitted.code, 0, submitted.stderr);
    t.true(
      submitted.stdout.includes(
        `submitted ticket CLI-AUTO as order ${orderOf('CLI-AUTO')} (workflow ${workflowOf('CLI-AUTO')})`,
      ),
      submitted.stdout,
    );
    const outcome = await api.orders.result(orderOf('CLI-AUTO'));
    t.is(outcome.state, 'BOUGHT');

    const human = await cli(t, 'alice', ['status', 'CLI-AUTO']);
    t.is(human.code, 0, human.stderr);
    t.regex(human.stdout, /CLI-AUTO\s+BOUGHT/);
    t.regex(human.stdout, /809\.10 AUD a month/);
    t.regex(human.stdout, /requested by alice, submitted by alice/);
    t.regex(human.stdout, /policy\s+test-1 \(sha256 [0-9a-f]{12}\)/);
    t.true(human.stdout.includes(outcome.product!.technicalServiceUid));
    for (const state of ['RECEIVED', 'VALIDATING', 'APPROVED', 'BUYING'])
      t.regex(human.stdout, new RegExp(`\\b${state}\\b`));

    const json = await cli(t, 'alice', ['status', 'CLI-AUTO', '--json']);
    t.is(json.code, 0, json.stderr);
    const view = jsonOf<ApiOrder>(json);
    t.is(view.state, 'BOUGHT');
    t.is(view.submittedBy, 'alice');
    t.is(view.policy?.version, 'test-1');
    t.regex(view.policy?.hash ?? '', /^[0-9a-f]{64}$/);
    t.is(view.timeline?.at(-1)?.state, 'BOUGHT');

    const again = await cli(t, 'alice', ['submit', file, '--json']);
    t.is(again.code, 0, again.stderr);
    const existing = jsonOf<{ created: boolean; ticketId: string; state: string }>(again);
    t.is(existing.created, false);
    t.is(existing.ticketId, 'CLI-AUTO');
    t.is(existing.state, 'BOUGHT');
    const againHuman = await cli(t, 'alice', ['submit', file]);
    t.regex(againHuman.stdout, /CLI-AUTO already has this order \(BOUGHT/);

    const different = await cli(t, 'alice', [
      'submit',
      await requestFile(t.context.dir, 'CLI-AUTO', { size: 'MVE 8/32' }),
    ]);
    t.is(different.code, 1);
    t.regex(different.stderr, /TICKET_CONFLICT/);
    t.regex(different.stderr, /one ticket is one order/);
  },
);

test.serial(
  "submit refuses an invalid request (exit 1, each path: message), unreadable input (exit 2) and someone else's name",
  async (t) => {
    const invalid = await cli(
      t,
      'alice',
      ['submit', '-', '--json'],
      JSON.stringify({ ...sydneyRequest('CLI-BAD'), term: 7 }),
    );
    t.is(invalid.code, 1);
    const { error } = jsonOf<CliRefusal>(invalid);
    t.is(error.code, 'INVALID_REQUEST');
    t.is(error.status, 400);
    t.true(
      (error.details ?? []).some((detail) => detail.path === 'term'),
      JSON.stringify(error.details),
    );
    t.regex(invalid.stderr, /^ {2}term: /m);
    const unknown = await cli(t, 'alice', ['status', 'CLI-BAD']);
    t.is(unknown.code, 1, 'nothing was started');
    t.regex(unknown.stderr, /no order CLI-BAD/);

    const notJson = await cli(t, 'alice', ['submit', '-'], '{"ticketId": ');
    t.is(notJson.code, 2);
    t.regex(notJson.stderr, /not valid JSON/);
    const missing = await cli(t, 'alice', ['submit', join(t.context.dir, 'no-such-file.json')]);
    t.is(missing.code, 2);
    t.regex(missing.stderr, /ENOENT/);

    const forSomeoneElse = await cli(
      t,
      'alice',
      ['submit', '-'],
      JSON.stringify(sydneyRequest('CLI-OTHER', { requestedBy: 'bob' })),
    );
    t.is(forSomeoneElse.code, 1);
    t.regex(forSomeoneElse.stderr, /refused \(FORBIDDEN\).*requestedBy/);
  },
);

test.serial(
  'approvals lists what awaits me; approve without the quote shows it; stale, self and role-less votes are refused; fiona approves and it is bought',
  async (t) => {
    const { api } = t.context;
    const submitted = await cli(
      t,
      'alice',
      ['submit', '-'],
      JSON.stringify(sydneyRequest('CLI-ONE', { size: 'MVE 8/32' })),
    );
    t.is(submitted.code, 0, submitted.stderr);
    await waitForState(api.orders, 'CLI-ONE', 'AWAITING_APPROVAL', 60_000);

    const inbox = await waitFor(
      async () => {
        const listed = await cli(t, 'fiona', ['approvals', '--json']);
        t.is(listed.code, 0, listed.stderr);
        return jsonOf<{ approvals: PendingApproval[] }>(listed).approvals.find((item) => item.ticketId === 'CLI-ONE');
      },
      30_000,
      "CLI-ONE in fiona's inbox",
    );
    t.like(inbox, { requestedBy: 'alice', monthlyRate: 1618.2, currency: 'AUD', tier: 'team', stillNeeded: 1 });
    const table = await cli(t, 'fiona', ['approvals']);
    t.is(table.code, 0, table.stderr);
    t.regex(table.stdout, /CLI-ONE\.[0-9a-f]{10}\s+alice\s+staging\s+1618\.20 AUD\s+-\s+team\s+0\/1/);
    t.regex(table.stdout, /mve-orders approve CLI-ONE\.[0-9a-f]{10} --rate 1618\.2 --currency AUD/);
    const notAnApprover = await cli(t, 'alice', ['approvals']);
    t.is(notAnApprover.code, 1);
    t.regex(notAnApprover.stderr, /approver role/);

    const unnamed = await cli(t, 'fiona', ['approve', 'CLI-ONE']);
    t.is(unnamed.code, 1);
    t.regex(unnamed.stderr, /current quote of CLI-ONE is 1618\.20 AUD/);
    t.regex(unnamed.stderr, /mve-orders approve CLI-ONE\.[0-9a-f]{10} --rate 1618\.2 --currency AUD/);

    const stale = await cli(t, 'fiona', ['approve', 'CLI-ONE', '--rate', '1500', '--currency', 'AUD', '--json']);
    t.is(stale.code, 1);
    t.is(jsonOf<CliRefusal>(stale).error.code, 'QUOTE_NOT_CURRENT');
    t.regex(stale.stderr, /current quote is 1618\.2 AUD/);

    const self = await cli(t, 'aliceApprover', ['approve', 'CLI-ONE', '--rate', '1618.2', '--currency', 'AUD']);
    t.is(self.code, 1);
    t.regex(self.stderr, /REQUESTER_CANNOT_VOTE/);
    const lacksRole = await cli(t, 'erin', ['approve', 'CLI-ONE', '--rate', '1618.2', '--currency', 'AUD']);
    t.is(lacksRole.code, 1);
    t.regex(lacksRole.stderr, /APPROVER_LACKS_ROLE/);
    const requester = await cli(t, 'alice', ['approve', 'CLI-ONE', '--rate', '1618.2', '--currency', 'AUD']);
    t.is(requester.code, 1);
    t.regex(requester.stderr, /refused \(FORBIDDEN\)/);
    t.deepEqual((await api.orders.status(orderOf('CLI-ONE'))).approval?.votes, [], 'no refused vote was recorded');

    const approved = await cli(t, 'fiona', [
      'approve',
      'CLI-ONE',
      '--rate',
      '1618.2',
      '--currency',
      'aud',
      '--comment',
      'budgeted',
    ]);
    t.is(approved.code, 0, approved.stderr);
    t.regex(approved.stdout, /approved CLI-ONE at 1618\.20 AUD: approval complete \(approved by fiona\)/);
    t.is((await api.orders.result(orderOf('CLI-ONE'))).state, 'BOUGHT');
    const buysAfterApproval = api.sim.state().calls.buy;

    // The same approval again (a retry after a lost answer): safe, and it says so.
    const again = await cli(t, 'fiona', ['approve', 'CLI-ONE', '--rate', '1618.2', '--currency', 'AUD']);
    t.is(again.code, 0, again.stderr);
    t.regex(again.stdout, /^CLI-ONE: .*already/);
    t.is(api.sim.state().calls.buy, buysAfterApproval, 'nothing bought again');
  },
);

test.serial('reject needs a comment and ends the order; cancel ends another, then refuses', async (t) => {
  const { api } = t.context;
  for (const ticket of ['CLI-REJ', 'CLI-CANCEL']) {
    const submitted = await cli(t, 'alice', ['submit', await requestFile(t.context.dir, ticket, { size: 'MVE 8/32' })]);
    t.is(submitted.code, 0, submitted.stderr);
  }
  await waitForState(api.orders, 'CLI-REJ', 'AWAITING_APPROVAL', 60_000);
  const noComment = await cli(t, 'fiona', ['reject', 'CLI-REJ', '--rate', '1618.2', '--currency', 'AUD']);
  t.is(noComment.code, 2);
  t.regex(noComment.stderr, /--comment/);
  const rejected = await cli(t, 'fiona', [
    'reject',
    'CLI-REJ',
    '--rate',
    '1618.2',
    '--currency',
    'AUD',
    '--comment',
    'not this quarter',
  ]);
  t.is(rejected.code, 0, rejected.stderr);
  t.regex(rejected.stdout, /rejected CLI-REJ at 1618\.20 AUD: the order is REJECTED/);
  const outcome = await api.orders.result(orderOf('CLI-REJ'));
  t.deepEqual([outcome.state, outcome.reason], ['REJECTED', 'not this quarter']);

  await waitForState(api.orders, 'CLI-CANCEL', 'AWAITING_APPROVAL', 60_000);
  const notHers = await cli(t, 'ticket-bot', ['cancel', 'CLI-CANCEL', '--reason', 'not mine']);
  t.is(notHers.code, 1, 'a ticket system cannot cancel what it did not submit');
  const cancelled = await cli(t, 'alice', ['cancel', 'CLI-CANCEL', '--reason', 'wrong site', '--json']);
  t.is(cancelled.code, 0, cancelled.stderr);
  t.deepEqual(jsonOf<unknown>(cancelled), { order: 'CLI-CANCEL', state: 'CANCELLED' });
  const cancelOutcome = await api.orders.result(orderOf('CLI-CANCEL'));
  t.is(cancelOutcome.state, 'CANCELLED');
  t.regex(JSON.stringify((await api.orders.status(orderOf('CLI-CANCEL'))).timeline.at(-1)), /"actor":"alice"/);
  const again = await cli(t, 'alice', ['cancel', 'CLI-CANCEL', '--reason', 'twice']);
  t.is(again.code, 0, 'a repeat of her own cancel is safe');
  t.regex(again.stdout, /^CLI-CANCEL: already cancelled by .*nothing changed/);
  const byAnother = await cli(t, 'olga', ['cancel', 'CLI-CANCEL', '--reason', 'twice']);
  t.is(byAnother.code, 1, "another's cancel of an ended order is refused");
  const unknown = await cli(t, 'alice', ['cancel', 'CLI-NOPE', '--reason', 'x']);
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /no order CLI-NOPE/);
});

test.serial(
  'history prints the timeline, the votes, and with --events the workflow events; --json gives everything',
  async (t) => {
    const human = await cli(t, 'alice', ['history', 'CLI-ONE']);
    t.is(human.code, 0, human.stderr);
    t.true(
      human.stdout.startsWith(`CLI-ONE   (order ${orderOf('CLI-ONE')}, workflow ${workflowOf('CLI-ONE')})`),
      human.stdout,
    );
    t.regex(human.stdout, /AWAITING_APPROVAL[\s\S]*APPROVED\s+fiona[\s\S]*BOUGHT/);
    t.regex(human.stdout, /votes\n.*\n\s+1\s+\S+\s+approve\s+fiona\s+1618\.20 AUD/);
    t.notRegex(human.stdout, /workflow events/);

    const events = await cli(t, 'alice', ['history', 'CLI-ONE', '--events']);
    t.is(events.code, 0, events.stderr);
    const count = Number(/workflow events: (\d+)/.exec(events.stdout)?.[1]);
    t.true(count > 10, events.stdout);
    t.regex(events.stdout, /TYPE\s+COUNT\n\s+WORKFLOW_EXECUTION_STARTED\s+1\n/);
    t.regex(events.stdout, /WORKFLOW_EXECUTION_UPDATE_COMPLETED\s+1\n/);
    t.regex(events.stdout, /WORKFLOW_EXECUTION_COMPLETED\s+1\n/);

    const json = await cli(t, 'olga', ['history', 'CLI-ONE', '--json']);
    t.is(json.code, 0, json.stderr);
    const history = jsonOf<OrderHistory>(json);
    t.is(history.events.length, count);
    t.true(history.timeline.some((entry) => entry.state === 'APPROVED' && entry.actor === 'fiona'));
    t.like(history.votes[0], { approverId: 'fiona', decision: 'approve', currency: 'AUD' });
    t.true(history.buyAttempts.length >= 1);

    const hidden = await cli(t, 'ticket-bot', ['history', 'CLI-ONE']);
    t.is(hidden.code, 1, 'an order the caller may not see is answered as missing');
    t.regex(hidden.stderr, /no order CLI-ONE/);
  },
);

test.serial('recover is for ops, needs a reason, and is refused for an order that ended', async (t) => {
  const noReason = await cli(t, 'olga', ['recover', 'CLI-CANCEL']);
  t.is(noReason.code, 2);
  t.regex(noReason.stderr, /--reason/);
  const requester = await cli(t, 'alice', ['recover', 'CLI-CANCEL', '--reason', 'stuck?']);
  t.is(requester.code, 1);
  t.regex(requester.stderr, /recovering an order needs the ops or admin role/);
  const ended = await cli(t, 'olga', ['recover', 'CLI-CANCEL', '--reason', 'stuck?', '--json']);
  t.is(ended.code, 1);
  t.regex(ended.stderr, /the order has ended \(CANCELLED\): there is nothing to recover/);
});

test.serial(
  'resolve-buy is for ops: refused for a requester, then settles an uncertain buy with the product ops found',
  async (t) => {
    const { api } = t.context;
    api.sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy', times: 1 });
    const submitted = await cli(t, 'alice', [
      'submit',
      await requestFile(t.context.dir, 'CLI-UNSURE', { size: 'MVE 4/16' }),
    ]);
    t.is(submitted.code, 0, submitted.stderr);
    await waitForState(api.orders, 'CLI-UNSURE', 'BUY_UNCERTAIN', 60_000);
    const shown = await cli(t, 'olga', ['status', 'CLI-UNSURE']);
    t.regex(shown.stdout, /resolve-buy CLI-UNSURE/);

    const product = api.sim.state().products.at(-1)!;
    const notOps = await cli(t, 'alice', ['resolve-buy', 'CLI-UNSURE', '--created', product.technicalServiceUid]);
    t.is(notOps.code, 1);
    t.regex(notOps.stderr, /refused \(FORBIDDEN\): resolving an uncertain buy needs the ops or admin role/);
    const both = await cli(t, 'olga', [
      'resolve-buy',
      'CLI-UNSURE',
      '--created',
      product.technicalServiceUid,
      '--not-created',
    ]);
    t.is(both.code, 2);
    t.regex(both.stderr, /exactly one of/);
    const malformed = await cli(t, 'olga', ['resolve-buy', 'CLI-UNSURE', '--created', 'not-a-uid', '--json']);
    t.is(malformed.code, 1);
    t.is(jsonOf<CliRefusal>(malformed).error.status, 400);
    t.regex(malformed.stderr, /^ {2}body\.technicalServiceUid: /m);
    const otherAttempt = await cli(t, 'olga', [
      'resolve-buy',
      'CLI-UNSURE',
      '--created',
      product.technicalServiceUid,
      '--attempt',
      '7',
    ]);
    t.is(otherAttempt.code, 1);
    t.regex(otherAttempt.stderr, /refused \(NOT_UNCERTAIN\): attempt: the order has made 1 buy attempt\(s\), not 7/);
    t.is((await api.orders.status(orderOf('CLI-UNSURE'))).state, 'BUY_UNCERTAIN', 'nothing changed');

    const resolved = await cli(t, 'olga', [
      'resolve-buy',
      'CLI-UNSURE',
      '--created',
      product.technicalServiceUid,
      '--note',
      'found it in the portal',
      '--json',
    ]);
    t.is(resolved.code, 0, resolved.stderr);
    t.deepEqual(jsonOf<unknown>(resolved), { order: 'CLI-UNSURE', attempt: 1, state: 'BOUGHT' });
    const outcome = await api.orders.result(orderOf('CLI-UNSURE'));
    t.is(outcome.state, 'BOUGHT');
    t.is(outcome.product?.technicalServiceUid, product.technicalServiceUid);
    // Settled, the buy's outcome is known: status shows the product and no longer the error that asked ops to check.
    const settled = await cli(t, 'alice', ['status', 'CLI-UNSURE']);
    t.regex(settled.stdout, new RegExp(`product +${product.technicalServiceUid}`));
    const [summary] = settled.stdout.split('\ntimeline\n');
    t.notRegex(summary, /last error|outcome is unknown/, 'the timeline below still tells it was uncertain');
    t.regex(settled.stdout, /BOUGHT +olga +found it in the portal/);
  },
);

test.serial(
  'orders lists what the caller may see, filtered by status, environment and requester, a page at a time',
  async (t) => {
    const bought = await cli(t, 'olga', ['orders', '--status', 'bought', '--json']);
    t.is(bought.code, 0, bought.stderr);
    const { orders: listed } = jsonOf<OrderList>(bought);
    t.true(listed.some((order) => order.ticketId === 'CLI-AUTO' && order.quote?.monthlyRate === 809.1));
    t.true(listed.some((order) => order.ticketId === 'CLI-ONE'));
    t.true(listed.every((order) => order.state === 'BOUGHT'));
    t.false(listed.some((order) => order.ticketId === 'CLI-REJ'));

    const table = await cli(t, 'olga', [
      'orders',
      '--status',
      'REJECTED',
      '--environment',
      'staging',
      '--requester',
      'alice',
    ]);
    t.is(table.code, 0, table.stderr);
    t.regex(table.stdout, /CLI-REJ\.[0-9a-f]{10}\s+REJECTED\s+staging\s+alice\s+1618\.20 AUD/);
    t.notRegex(table.stdout, /CLI-AUTO/);
    t.regex((await cli(t, 'olga', ['orders', '--environment', 'production'])).stdout, /No orders match/);

    // Five orders of alice's: pages of two, newest first, each once.
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await cli(t, 'alice', ['orders', '--limit', '2', '--json', ...(cursor ? ['--cursor', cursor] : [])]);
      t.is(page.code, 0, page.stderr);
      const body = jsonOf<OrderList>(page);
      t.true(body.orders.length <= 2);
      seen.push(...body.orders.map((order) => order.ticketId));
      cursor = body.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    t.deepEqual([...seen].sort(), ['CLI-AUTO', 'CLI-CANCEL', 'CLI-ONE', 'CLI-REJ', 'CLI-UNSURE']);
    t.is(pages, 3);

    const human = await cli(t, 'alice', ['orders', '--limit', '2']);
    t.is(human.code, 0, human.stderr);
    const next = /^next cursor: (\S+)$/m.exec(human.stdout)?.[1];
    t.truthy(next, human.stdout);
    t.regex(human.stdout, /more: mve-orders orders --limit 2 --cursor \S+/);
    const second = await cli(t, 'alice', ['orders', '--limit', '2', '--cursor', next!, '--json']);
    t.deepEqual(
      jsonOf<OrderList>(second).orders.map((order) => order.ticketId),
      seen.slice(2, 4),
    );

    t.is(
      (await cli(t, 'ticket-bot', ['orders', '--json'])).stdout.includes('CLI-AUTO'),
      false,
      'a ticket system sees what it submitted',
    );
    const someoneElse = await cli(t, 'alice', ['orders', '--requester', 'bob']);
    t.is(someoneElse.code, 1);
    t.is((await cli(t, 'olga', ['orders', '--status', 'SHIPPED'])).code, 2);
    t.is((await cli(t, 'olga', ['orders', '--limit', '0'])).code, 2);
    const badCursor = await cli(t, 'olga', ['orders', '--cursor', 'nonsense']);
    t.is(badCursor.code, 1);
    t.regex(badCursor.stderr, /^ {2}querystring\.cursor: /m);
  },
);

test.serial('credentials: a bad token is exit 2, no token says what to set, --as is refused outside dev', async (t) => {
  const { env } = t.context;
  const bad = await runCli(['status', 'CLI-AUTO'], {
    env: { ...env, MVE_TOKEN: 'mvo_abcdefgh12345678_nottherealsecret' },
  });
  t.is(bad.code, 2);
  t.regex(bad.stderr, /MVE_TOKEN/);
  t.false(bad.stderr.includes('nottherealsecret'), 'the token is never echoed');
  const badJson = await runCli(['status', 'CLI-AUTO', '--json'], { env: { ...env, MVE_TOKEN: 'garbage' } });
  t.is(badJson.code, 2);
  t.is(jsonOf<CliRefusal>(badJson).error.status, 401);

  const none = await runCli(['status', 'CLI-AUTO'], { env });
  t.is(none.code, 2);
  t.regex(none.stderr, /set MVE_TOKEN/);

  const as = await runCli(['status', 'CLI-AUTO', '--as', 'alice'], {
    env: { ...env, MVE_TOKEN: t.context.api.tokens.alice },
  });
  t.is(as.code, 2);
  t.regex(as.stderr, /--as alice .*mve-orders dev.*set MVE_TOKEN/);
});

test.serial('without an API, a command says what to start or set (exit 2)', async (t) => {
  const { env, dir } = t.context;
  const noDev = await runCli(['status', 'X'], { env: { ...env, MVE_API_URL: '', MVE_DATA_DIR: dir } });
  t.is(noDev.code, 2);
  t.regex(noDev.stderr, /npm start/);
  t.regex(noDev.stderr, /MVE_API_URL/);

  const closed = await runCli(['status', 'X'], {
    env: { ...env, MVE_API_URL: 'http://127.0.0.1:1', MVE_TOKEN: t.context.api.tokens.alice },
  });
  t.is(closed.code, 2);
  t.regex(closed.stderr, /cannot reach the mve-orders API at http:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\)/);
  t.regex(closed.stderr, /MVE_API_URL/);

  const notAUrl = await runCli(['orders'], { env: { ...env, MVE_API_URL: 'orders.example.com', MVE_TOKEN: 'x' } });
  t.is(notAUrl.code, 2);
  t.regex(notAUrl.stderr, /MVE_API_URL must be the http\(s\) URL/);
});

test.serial(
  "with a dev running, --as picks a seeded user's token from dev.json, and no user says which there are",
  async (t) => {
    const { api } = t.context;
    const dataDir = join(t.context.dir, 'dev-data');
    await mkdir(dataDir, { recursive: true });
    // A dev.json as `mve-orders dev` writes it, naming this test's API; its pid is this (running) process.
    const users = (['alice', 'fiona', 'olga'] as const).map((id) => ({
      id,
      roles: [id === 'alice' ? 'requester' : id === 'fiona' ? 'finance-approver' : 'ops'],
      token: api.tokens[id],
    }));
    await writeFile(
      join(dataDir, 'dev.json'),
      JSON.stringify({
        pid: process.pid,
        startedAt: new Date().toISOString(),
        dataDir,
        temporal: { address: api.temporal.address, namespace: api.temporal.namespace, taskQueue: TASK_QUEUE },
        databaseUrl: 'postgres://unused@127.0.0.1:1/unused',
        api: { environment: 'staging', baseUrl: api.sim.baseUrl },
        http: { url: api.url },
        users,
      }),
      { mode: 0o600 },
    );
    const devEnv = { ...t.context.env, MVE_API_URL: '', MVE_DATA_DIR: dataDir };

    const asAlice = await runCli(['status', 'CLI-AUTO', '--as', 'alice'], { env: devEnv });
    t.is(asAlice.code, 0, asAlice.stderr);
    t.regex(asAlice.stdout, /CLI-AUTO\s+BOUGHT/);
    const inbox = await runCli(['approvals', '--as', 'fiona', '--json'], { env: devEnv });
    t.is(inbox.code, 0, inbox.stderr);

    const nobody = await runCli(['status', 'CLI-AUTO'], { env: devEnv });
    t.is(nobody.code, 2);
    t.regex(nobody.stderr, /--as <user>/);
    t.regex(nobody.stderr, /alice \(requester\), fiona \(finance-approver\), olga \(ops\)/);
    const stranger = await runCli(['status', 'CLI-AUTO', '--as', 'mallory'], { env: devEnv });
    t.is(stranger.code, 2);
    t.regex(stranger.stderr, /--as mallory: no such user.*alice \(requester\)/);

    const unnamed = await runCli(['approve', 'CLI-AUTO', '--as', 'fiona'], { env: devEnv });
    t.is(unnamed.code, 1);
    t.regex(unnamed.stderr, /mve-orders approve CLI-AUTO\.[0-9a-f]{10} --as fiona --rate 809\.1 --currency AUD/);
  },
);

test.serial('--help explains MVE_API_URL, MVE_TOKEN and --as', async (t) => {
  for (const command of ['submit', 'status', 'approve', 'orders', 'approvals', 'history']) {
    const help = await runCli([command, '--help']);
    t.is(help.code, 0, help.stderr);
    for (const word of ['MVE_API_URL', 'MVE_TOKEN', '--as <user>'])
      t.true(help.stdout.includes(word), `${command} --help names ${word}`);
  }
  const top = await runCli(['--help']);
  t.regex(top.stdout, /\bapprovals\b/);
  t.regex(top.stdout, /\bhistory\b/);
});

test.serial('worker runs orders from the environment and stops cleanly on SIGTERM', async (t) => {
  const { api } = t.context;
  const taskQueue = 'cli-worker-test';
  const workerEnv: NodeJS.ProcessEnv = {
    MVE_DATA_DIR: t.context.dir,
    TEMPORAL_ADDRESS: api.temporal.address,
    TEMPORAL_NAMESPACE: api.temporal.namespace,
    TEMPORAL_TASK_QUEUE: taskQueue,
    MVE_CODEC_KEYS: api.codecKeys,
    MVE_ACTION_KEY: api.actionKeysText,
    MVE_APPROVAL_POLICY: JSON.stringify({ staging: TEST_POLICIES.staging }),
  };
  const missing = await runCli(['worker'], { env: { ...workerEnv, DATABASE_URL: '' } });
  t.is(missing.code, 2);
  t.regex(missing.stderr, /DATABASE_URL/);

  const worker = spawnCli(['worker'], {
    ...workerEnv,
    DATABASE_URL: api.db.url,
    MVE_API_BASE_URL: api.sim.baseUrl,
    MVE_AUTH_URL: api.sim.authUrl,
    MVE_ENVIRONMENT: 'staging',
    MVE_CLIENT_ID: api.sim.clientId,
    MVE_CLIENT_SECRET: api.sim.clientSecret,
    // Followed by default (the simulator's product is LIVE 8 s after the buy); read every second or two here.
    MVE_PROVISIONING_POLL: '1s',
    MVE_PROVISIONING_POLL_MAX: '2s',
  });
  try {
    await worker.waitForOutput(/worker polling cli-worker-test\.staging/, 90_000);
    t.regex(worker.stdout(), /bought products are followed until LIVE: read every 1 s to 2 s/);
    const orders = new OrderClient({
      client: api.client,
      taskQueue,
      actionKeys: api.actionKeys,
      tickets: api.repository,
    });
    const intake = new OrderIntake({ orders, repository: api.repository, fingerprintKeys: api.actionKeys });
    await intake.submit(sydneyRequest('CLI-WORKER', { size: 'MVE 4/16' }), 'alice');
    const live = await waitForState(orders, 'CLI-WORKER', 'LIVE', 60_000);
    t.deepEqual(live.timeline.map((line) => line.state).slice(-3), ['BOUGHT', 'PROVISIONING', 'LIVE']);
  } finally {
    t.is(await worker.stop('SIGTERM', 30_000), 0, worker.stderr());
  }
  t.regex(worker.stdout(), /worker stopped/);
});
