/**
 * The team's figures where an approver looks before voting with the CLI (`mve-orders approvals`, `status`) and with
 * each vote in `mve-orders history`, through the real binary against the real HTTP API and engine, under a staging
 * policy whose team "network" may commit 3000 AUD of new monthly prices a month.
 */
import anyTest, { type TestFn } from 'ava';
import { runCli } from '../helpers/cli.js';
import { namedRequest, startApiEngine, waitForApiState, type ApiEngine, type TestUser } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { joinTeams, networkTeam, teamedPolicies } from '../helpers/teams.js';
import { waitFor } from '../helpers/wait.js';

const test = anyTest as TestFn<{ api: ApiEngine }>;
const pg = usePostgres(test);

const TEAMED_POLICIES = teamedPolicies({
  version: 'test-cli-figures-1',
  teams: [networkTeam({ monthlyNew: { AUD: 3000 } })],
});

test.before(async (t) => {
  const api = await startApiEngine(pg, { policies: TEAMED_POLICIES });
  t.context.api = api;
  await joinTeams(api.repository, { alice: 'network' });
  for (const [ticketId, size] of [
    ['CLI-FITS', 'MVE 8/32'],
    ['CLI-OVER', 'MVE 16/64'],
  ]) {
    const response = await api.call('POST', '/api/v1/orders', { as: 'alice', body: namedRequest(ticketId, { size }) });
    if (response.status !== 201) throw new Error(`submit ${ticketId}: ${response.status}`);
    await waitForApiState(api, ticketId, 'AWAITING_APPROVAL');
  }
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

/** `mve-orders <args>` as `user`, against the test API only. */
function cli(t: { context: { api: ApiEngine } }, user: TestUser, args: string[]) {
  const { api } = t.context;
  return runCli(args, {
    env: { MVE_API_URL: api.url, MVE_TOKEN: api.tokens[user], MVE_DATA_DIR: '/nonexistent', DATABASE_URL: '' },
  });
}

test.serial('approvals and status show the team, what would remain, and over budget with its reason', async (t) => {
  const inbox = await cli(t, 'fiona', ['approvals']);
  t.is(inbox.code, 0, inbox.stderr);
  t.regex(inbox.stdout, /TEAM AFTER IT/);
  t.regex(inbox.stdout, /CLI-FITS\S*\s+alice\s+staging\s+1618\.20 AUD\s+network: 1381\.8 AUD left/);
  t.regex(inbox.stdout, /CLI-OVER\S*\s+alice\s+staging\s+3236\.40 AUD\s+network: OVER by 236\.4 AUD/);

  const status = await cli(t, 'fiona', ['status', 'CLI-OVER']);
  t.is(status.code, 0, status.stderr);
  t.regex(status.stdout, /\n {2}team {9}network \(Network engineering\)\n/);
  t.regex(status.stdout, /\n {2}run-rate {5}0 AUD a month; 0 AUD approved, not bought yet\n/);
  t.regex(status.stdout, /\n {2}approved {5}0 AUD this month \(\d{4}-\d{2}, UTC\)\n/);
  t.regex(status.stdout, /\n {2}budget {7}month budget 3000 AUD\n/);
  t.regex(status.stdout, /\n {2}after this {3}month budget OVER by 236\.4 AUD\n/);
  t.regex(status.stdout, /\n {2}OVER BUDGET {2}3236\.4 AUD a month would take team network over its budget/);

  // approve without naming the quote shows it, and the figures beside it.
  const unnamed = await cli(t, 'dave', ['approve', 'CLI-OVER']);
  t.is(unnamed.code, 1);
  t.regex(unnamed.stderr, /is 3236\.40 AUD a month\. After it, team network: OVER by 236\.4 AUD \(3236\.4 AUD a month/);
});

test.serial("history lists each vote with the team's figures its approver was shown", async (t) => {
  const vote = await cli(t, 'fiona', ['approve', 'CLI-FITS', '--rate', '1618.2', '--currency', 'AUD']);
  t.is(vote.code, 0, vote.stderr);
  const history = await waitFor(
    async () => {
      const result = await cli(t, 'fiona', ['history', 'CLI-FITS']);
      return /\bfiona\b/.test(result.stdout) ? result.stdout : undefined;
    },
    20_000,
    'the vote in the history',
  );
  t.regex(history, /TEAM AFTER IT/);
  t.regex(history, /approve\s+fiona\s+1618\.20 AUD\s+network: 1381\.8 AUD left/);
});
