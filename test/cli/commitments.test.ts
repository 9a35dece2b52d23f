/**
 * `mve-orders commitments` through the real binary against the real HTTP API (MVE_API_URL, MVE_TOKEN): the figures per
 * team and currency against budget in 100 columns, the renewals, the API's own JSON and CSV, and who reads which team.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { startApiEngine, type ApiEngine, type TestUser } from '../helpers/api.js';
import { runCli } from '../helpers/cli.js';
import { seedCommitmentsView, TEAMED_POLICIES } from '../helpers/commitments-view.js';
import { json } from '../helpers/json.js';
import { usePostgres } from '../helpers/postgres.js';

const test = anyTest as TestFn<{ api: ApiEngine; dir: string }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.api = await startApiEngine(pg, { policies: TEAMED_POLICIES, worker: false });
  t.context.dir = await mkdtemp(join(tmpdir(), 'mve-cli-commitments-'));
  await seedCommitmentsView(t.context.api);
});
test.after.always(async (t) => {
  await t.context.api?.stop();
  if (t.context.dir) await rm(t.context.dir, { recursive: true, force: true });
});

/** `mve-orders commitments <args>` as `user`, finding nothing of a dev running on this machine. */
const commitments = (t: { context: { api: ApiEngine; dir: string } }, user: TestUser, args: string[]) =>
  runCli(['commitments', ...args], {
    env: {
      MVE_API_URL: t.context.api.url,
      MVE_TOKEN: t.context.api.tokens[user],
      MVE_DATA_DIR: t.context.dir,
      TEMPORAL_ADDRESS: '',
      DATABASE_URL: '',
    },
  });

test('finance reads the figures against budget and the renewals, in 100 columns', async (t) => {
  const result = await commitments(t, 'fiona', ['--month', '2026-01']);
  t.is(result.code, 0, result.stderr);
  const lines = result.stdout.split('\n');
  t.true(
    lines.every((line) => line.length <= 100),
    lines.filter((line) => line.length > 100).join('\n'),
  );
  t.deepEqual(lines.slice(0, 2), [
    'Commitments of production in 2026-01, months in Australia/Sydney',
    'Run-rate as of 2026-01-31 13:00 UTC',
  ]);
  const row = (start: string) => lines.find((line) => line.startsWith(start))?.split(/\s{2,}/);
  t.deepEqual(row('network    AUD')?.slice(0, 5), ['network', 'AUD', '1738.22', '1618.23', '-3456.4 OVER']);
  t.deepEqual(row('sec-ops    USD'), ['sec-ops', 'USD', '325.5', '-', '-', '0', '500', '500']);
  t.true(lines.includes('Renewals: terms ending within 90 days'));
  t.deepEqual(
    lines.filter((line) => /^R\d /.test(line)).map((line) => line.split(/\s{2,}/)),
    [
      ['R2', 'sec-ops', '250.5 USD', '12 mo', '2026-02-01 00:00', '1'],
      ['R3', 'network', '20 AUD', '6 mo', '2026-02-09 23:00', '10'],
      ['R1', 'network', '100 AUD', '12 mo', '2026-03-15 00:00', '43'],
    ],
  );
});

test('--json is the API answer and --csv the CSV the API gives', async (t) => {
  const { api } = t.context;
  const asJson = await commitments(t, 'olga', ['--month', '2026-01', '--currency', 'aud', '--json']);
  t.is(asJson.code, 0, asJson.stderr);
  const fromApi = await api.call('GET', '/api/v1/commitments?month=2026-01&currency=AUD', { as: 'olga' });
  t.deepEqual(JSON.parse(asJson.stdout), json(fromApi));

  const asCsv = await commitments(t, 'olga', ['--month', '2026-01', '--env', 'production', '--csv']);
  t.is(asCsv.code, 0, asCsv.stderr);
  const csv = await fetch(`${api.url}/api/v1/commitments?month=2026-01&format=csv`, {
    headers: { authorization: `Bearer ${api.tokens.olga}` },
  });
  t.is(asCsv.stdout, await csv.text());
  t.true(asCsv.stdout.startsWith('environment,month,team,team_name,currency,order_id,ticket_id,'));
});

test("a requester reads their own team's only, and naming another is refused", async (t) => {
  const own = await commitments(t, 'alice', ['--month', '2026-01']);
  t.is(own.code, 0, own.stderr);
  t.notRegex(own.stdout, /sec-ops/);
  t.regex(own.stdout, /^network {2,}AUD/m);
  const other = await commitments(t, 'alice', ['--team', 'sec-ops']);
  t.is(other.code, 1);
  t.regex(other.stderr, /mve-orders commitments: refused \(FORBIDDEN\): .*must be your own team, network/);
  const bot = await commitments(t, 'ticket-bot', []);
  t.is(bot.code, 1);
  t.regex(bot.stderr, /reading commitments needs a role/);
});

test('bad options exit 2 naming the rule; --help shows an example', async (t) => {
  const month = await commitments(t, 'fiona', ['--month', '2026-13']);
  t.is(month.code, 2);
  t.regex(month.stderr, /--month must be a month as YYYY-MM/);
  const help = await commitments(t, 'fiona', ['--help']);
  t.is(help.code, 0);
  t.regex(help.stdout, /Example:\n {2}mve-orders commitments --month 2026-01 --currency AUD/);
});
