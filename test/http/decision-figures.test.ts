/**
 * What an approver sees beside the price, through real HTTP against the real worker, under a staging policy whose
 * team "network" has a budget of 3000 AUD of new commitments a month: the order's team and its figures on the order,
 * in the inbox, and kept with each vote as they were when the vote was cast; a requester who may not see an order sees
 * none of its team's figures.
 */
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import type { ApiOrder, PendingApproval } from '../../client/http-client/index.js';
import { namedRequest, startApiEngine, waitForApiState, type ApiEngine } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { joinTeams, networkTeam, requesterToken, secOpsTeam, teamedPolicies } from '../helpers/teams.js';
import { waitFor } from '../helpers/wait.js';
import { json } from '../helpers/json.js';

const test = anyTest as TestFn<{ api: ApiEngine; quinn: string }>;
const pg = usePostgres(test);

const TEAMED_POLICIES = teamedPolicies({
  version: 'test-decision-figures-1',
  teams: [networkTeam({ monthlyNew: { AUD: 3000 } }), secOpsTeam()],
});

test.before(async (t) => {
  const api = await startApiEngine(pg, { policies: TEAMED_POLICIES });
  t.context.api = api;
  await joinTeams(api.repository, { alice: 'network', quinn: 'sec-ops' });
  t.context.quinn = await requesterToken(api.repository, 'quinn');
});
test.after.always(async (t) => {
  await t.context.api?.stop();
});

/** Submits as alice (team network) and waits until the order awaits approval. */
async function awaiting(t: ExecutionContext<{ api: ApiEngine }>, ticketId: string, size: string): Promise<ApiOrder> {
  const { api } = t.context;
  const response = await api.call('POST', '/api/v1/orders', { as: 'alice', body: namedRequest(ticketId, { size }) });
  t.is(response.status, 201, JSON.stringify(response.body));
  return waitForApiState(api, ticketId, 'AWAITING_APPROVAL');
}

/** Figures without the moment they were taken at. */
function withoutMoment(figures: unknown): unknown {
  const { asOf, ...rest } = figures as { asOf?: string };
  return { ...rest, taken: typeof asOf };
}

const NOTHING_COMMITTED = {
  team: 'network',
  teamName: 'Network engineering',
  currency: 'AUD',
  timeZone: 'UTC',
  runRate: '0',
  approvedNotBought: '0',
  approvedThisMonth: '0',
  budget: { monthlyNew: '3000', runRateCap: null },
};

test.serial("an approver reads the order's team and figures beside its price, and the vote keeps them", async (t) => {
  const { api } = t.context;
  await awaiting(t, 'FIG-FITS', 'MVE 8/32');
  const read = json<ApiOrder>(await api.call('GET', '/api/v1/orders/FIG-FITS', { as: 'fiona' }));
  t.is(read.team, 'network');
  t.like(read.budget, {
    ...NOTHING_COMMITTED,
    price: '1618.2',
    remainingAfter: { monthlyNew: '1381.8', runRateCap: null },
    overBudget: null,
  });
  const shown = read.budget!;

  const vote = await api.call('POST', '/api/v1/orders/FIG-FITS/approve', {
    as: 'fiona',
    body: { monthlyRate: 1618.2, currency: 'AUD' },
  });
  t.is(vote.status, 200, JSON.stringify(vote.body));
  // The vote's record keeps the figures of the moment it was cast, whatever is committed since.
  const votes = await waitFor(
    async () => {
      const history = await api.call('GET', '/api/v1/orders/FIG-FITS/history?events=false', { as: 'fiona' });
      const body = json<{ votes: Array<{ approverId: string; figures: unknown }> }>(history);
      return body.votes.length ? body.votes : undefined;
    },
    20_000,
    'the vote in the records',
  );
  t.is(votes.length, 1);
  t.is(votes[0].approverId, 'fiona');
  // Computed again as the vote was accepted: the same figures, taken a moment later.
  t.deepEqual(withoutMoment(votes[0].figures), withoutMoment(shown));
  const done = await waitForApiState(api, 'FIG-FITS', 'BOUGHT');
  t.is(done.team, 'network', 'the team is on every read of the order');
  t.false('budget' in done, 'the figures are shown while the order awaits a decision only');
});

test.serial(
  'an order that would take its team over budget says so, with the reason, on the order and the inbox',
  async (t) => {
    const { api } = t.context;
    await awaiting(t, 'FIG-OVER', 'MVE 16/64');
    const read = json<ApiOrder>(await api.call('GET', '/api/v1/orders/FIG-OVER', { as: 'dave' }));
    const figures = read.budget!;
    t.is(figures.team, 'network');
    t.is(figures.price, '3236.4');
    // The budget is 3000 a month; whatever this month approved before is counted as well.
    const before = Number(figures.approvedThisMonth);
    t.is(figures.remainingAfter.monthlyNew, String(Math.round((3000 - before - 3236.4) * 100) / 100));
    t.truthy(figures.overBudget);
    t.regex(
      figures.overBudget!.reason,
      /3236\.4 AUD a month would take team network over its budget for new commitments this month of 3000 AUD/,
    );
    t.is(figures.overBudget!.overruns[0].limit, 'monthlyNew');

    const inbox = json<{ approvals: PendingApproval[] }>(await api.call('GET', '/api/v1/approvals', { as: 'dave' }));
    const row = inbox.approvals.find((item) => item.ticketId === 'FIG-OVER');
    t.is(row?.team, 'network');
    t.deepEqual(withoutMoment(row?.budget), withoutMoment(figures), 'the inbox shows the same figures as the order');
  },
);

test.serial("a requester of another team sees neither the order nor its team's figures", async (t) => {
  const { api, quinn } = t.context;
  await waitForApiState(api, 'FIG-OVER', 'AWAITING_APPROVAL');
  const hidden = await api.call('GET', '/api/v1/orders/FIG-OVER', { token: quinn });
  t.is(hidden.status, 404);
  t.false(JSON.stringify(hidden.body).includes('3000'), 'nothing of the budget in the refusal');
  const listed = json<{ orders: unknown[] }>(await api.call('GET', '/api/v1/orders', { token: quinn }));
  t.deepEqual(listed.orders, []);
  // The requester whose order it is reads it, with its figures.
  const own = json<ApiOrder>(await api.call('GET', '/api/v1/orders/FIG-OVER', { as: 'alice' }));
  t.is(own.budget?.team, 'network');
});
