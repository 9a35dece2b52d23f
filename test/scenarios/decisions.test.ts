/**
 * The product's decisions on Temporal's own server, through the HTTP API and the real worker: an auto-approved order,
 * a two-approver tier, a rejection and a cancel, each with the states, inboxes and products its users see.
 */
import anyTest, { type TestFn } from 'ava';
import type { ApiOrder, PendingApproval, StateResult } from '../../client/http-client/index.js';
import { json } from '../helpers/json.js';
import { productsFor, type ApiEngine } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { assertEveryHistoryReplays, settledIn, submit, useApiEngine } from './fixtures/scenario-engine.js';

const test = anyTest as TestFn<unknown>;
const pg = usePostgres(test);
const engine = useApiEngine(test, pg);

const TEAM = { monthlyRate: 1618.2, currency: 'AUD' }; // MVE 8/32: one finance-approver
const FINANCE = { monthlyRate: 3236.4, currency: 'AUD' }; // MVE 16/64: two approvers

const states = (order: ApiOrder) => (order.timeline ?? []).map((entry) => entry.state);
const inboxOf = async (api: ApiEngine, user: 'fiona' | 'dave') =>
  json<{ approvals: PendingApproval[] }>(await api.call('GET', '/api/v1/approvals', { as: user })).approvals.map(
    (item) => item.ticketId,
  );

test.serial('an order below the auto-approval line is bought at once, one product', async (t) => {
  const { api } = engine;
  await submit(t, api, 'RS-AUTO', { size: 'MVE 4/16' });
  const bought = await settledIn(api, 'RS-AUTO', 'BOUGHT');
  t.deepEqual(states(bought), ['RECEIVED', 'LOOKING_UP', 'VALIDATING', 'APPROVED', 'BUYING', 'BOUGHT']);
  t.is(productsFor(api, 'RS-AUTO').length, 1, 'one product');
  t.is(bought.product?.technicalServiceUid, productsFor(api, 'RS-AUTO')[0].technicalServiceUid);
});

test.serial('the two-approver tier: waits in both inboxes, one vote is not enough, the second buys', async (t) => {
  const { api } = engine;
  await submit(t, api, 'RS-TWO', { size: 'MVE 16/64' });
  const waiting = await settledIn(api, 'RS-TWO', 'AWAITING_APPROVAL');
  t.like(waiting.approval, { tier: { name: 'finance', approvals: 2 }, stillNeeded: 2 });
  t.like(waiting.quote, FINANCE);
  t.true((await inboxOf(api, 'fiona')).includes('RS-TWO'), "in fiona's inbox");

  const first = await api.call('POST', '/api/v1/orders/RS-TWO/approve', { as: 'fiona', body: FINANCE });
  t.is(first.status, 200, JSON.stringify(first.body));
  t.like(first.body, { state: 'AWAITING_APPROVAL', approvedBy: ['fiona'], stillNeeded: 1 });
  await settledIn(api, 'RS-TWO', 'AWAITING_APPROVAL'); // the vote is in the records
  t.false((await inboxOf(api, 'fiona')).includes('RS-TWO'), "voted, out of fiona's inbox");
  t.true((await inboxOf(api, 'dave')).includes('RS-TWO'), "still in dave's inbox");
  t.is(productsFor(api, 'RS-TWO').length, 0, 'one vote buys nothing');

  const second = await api.call('POST', '/api/v1/orders/RS-TWO/approve', { as: 'dave', body: FINANCE });
  t.is(second.status, 200, JSON.stringify(second.body));
  t.like(second.body, { state: 'APPROVED', stillNeeded: 0 });
  const bought = await settledIn(api, 'RS-TWO', 'BOUGHT');
  t.deepEqual(
    bought.approval?.votes.map((vote) => vote.approverId),
    ['fiona', 'dave'],
  );
  t.is(productsFor(api, 'RS-TWO').length, 1, 'one product');
});

test.serial('a rejection ends the order, nothing bought', async (t) => {
  const { api } = engine;
  await submit(t, api, 'RS-REJECT', { size: 'MVE 8/32' });
  await settledIn(api, 'RS-REJECT', 'AWAITING_APPROVAL');
  const rejected = await api.call('POST', '/api/v1/orders/RS-REJECT/reject', {
    as: 'fiona',
    body: { ...TEAM, reason: 'not in this quarter' },
  });
  t.is(rejected.status, 200, JSON.stringify(rejected.body));
  t.is(json<StateResult>(rejected).state, 'REJECTED');
  const order = await settledIn(api, 'RS-REJECT', 'REJECTED');
  t.like(order.timeline?.at(-1), { state: 'REJECTED', actor: 'fiona' });
  t.is(productsFor(api, 'RS-REJECT').length, 0, 'nothing bought');
  t.false((await inboxOf(api, 'fiona')).includes('RS-REJECT'), 'out of the inbox');
});

test.serial('a cancel by the requester ends the order, nothing bought', async (t) => {
  const { api } = engine;
  await submit(t, api, 'RS-CANCEL', { size: 'MVE 8/32' });
  await settledIn(api, 'RS-CANCEL', 'AWAITING_APPROVAL');
  const cancelled = await api.call('POST', '/api/v1/orders/RS-CANCEL/cancel', {
    as: 'alice',
    body: { reason: 'the project was dropped' },
  });
  t.is(cancelled.status, 200, JSON.stringify(cancelled.body));
  t.is(json<StateResult>(cancelled).state, 'CANCELLED');
  const order = await settledIn(api, 'RS-CANCEL', 'CANCELLED');
  t.like(order.timeline?.at(-1), { state: 'CANCELLED', actor: 'alice', reason: 'the project was dropped' });
  t.is(productsFor(api, 'RS-CANCEL').length, 0, 'nothing bought');
});

test.serial('every history of this file replays on the current workflow code', async (t) => {
  await assertEveryHistoryReplays(t, engine.api, 4);
});
