/**
 * The provisioning follow-up on the real Temporal server, beside the devserver: a bought product read on a durable
 * timer until LIVE; a product the provider fails; an API that does not offer the product read. The simulator's
 * statuses change a second away from each read, so both servers see the same answers and their histories must match.
 */
import anyTest, { type TestFn } from 'ava';
import { usePostgres } from '../helpers/postgres.js';
import {
  assertEveryHistoryReplays,
  assertSameHistories,
  onBoth,
  settledIn,
  submit,
  useBothServers,
} from './fixtures/both-servers.js';

const test = anyTest as TestFn<unknown>;
const pg = usePostgres(test);

/** A read at the buy, then every 2 s: CONFIGURED at 1 s and LIVE at 3 s fall between reads. */
const TIMES = { configuredAfterMs: 1_000, liveAfterMs: 3_000 };
const servers = useBothServers(test, pg, {
  provisioning: { firstPollMs: 2_000, maxPollMs: 2_000, reminderMs: 60_000, deadlineMs: 120_000 },
  simProvisioning: TIMES,
});

test.serial('a bought product is read until LIVE, and /metrics counts it and its time to LIVE', async (t) => {
  await onBoth(servers.engines, async (api, server) => {
    await submit(t, api, 'RS-PROV-LIVE', { size: 'MVE 4/16' });
    const live = await settledIn(api, 'RS-PROV-LIVE', 'LIVE');
    t.deepEqual(
      live.provisioning.statuses.map((seen: { status: string }) => seen.status),
      ['DEPLOYABLE', 'CONFIGURED', 'LIVE'],
      server,
    );
    t.deepEqual(
      live.timeline.map((line: { state: string }) => line.state).slice(-3),
      ['BOUGHT', 'PROVISIONING', 'LIVE'],
      server,
    );
    const metrics = String((await api.call('GET', '/metrics')).body);
    t.regex(metrics, /^mve_orders\{state="LIVE"\} 1$/m, server);
    t.regex(metrics, /^mve_products\{provisioning_status="LIVE"\} 1$/m, server);
    t.regex(metrics, /^mve_provisioning_time_to_live_seconds\{quantile="0\.5"\} [3-9]\.\d+$/m, server);
    t.regex(metrics, /^mve_provisioning_live_orders_7d 1$/m, server);
  });
  await assertSameHistories(t, servers.engines, ['RS-PROV-LIVE']);
});

test.serial('a product the provider fails at once ends the order PROVISIONING_FAILED at the first read', async (t) => {
  await onBoth(servers.engines, async (api, server) => {
    api.sim.setProvisioning({ configuredAfterMs: 0, liveAfterMs: 0 });
    api.sim.injectFault({ kind: 'provisioning', outcome: 'fail', status: 'CANCELLED' });
    try {
      await submit(t, api, 'RS-PROV-FAILED', { size: 'MVE 4/16' });
      const failed = await settledIn(api, 'RS-PROV-FAILED', 'PROVISIONING_FAILED');
      t.regex(failed.lastError.message, /as CANCELLED/, server);
      t.is(failed.product.provisioningStatus, 'CANCELLED', server);
    } finally {
      api.sim.setProvisioning(TIMES);
    }
  });
  await assertSameHistories(t, servers.engines, ['RS-PROV-FAILED']);
});

test.serial('an API without the product read: the order ends at BOUGHT after one read', async (t) => {
  await onBoth(servers.engines, async (api, server) => {
    api.sim.setProductRead('not-allowed');
    try {
      await submit(t, api, 'RS-PROV-NOREAD', { size: 'MVE 4/16' });
      const bought = await settledIn(api, 'RS-PROV-NOREAD', 'BOUGHT');
      t.is(bought.provisioning, undefined, server);
      t.is(
        api.sim.state().calls.product,
        3 + 1 + 1,
        `${server}: one read for this order, after the other orders' three and one`,
      );
    } finally {
      api.sim.setProductRead('offered');
    }
  });
  await assertSameHistories(t, servers.engines, ['RS-PROV-NOREAD']);
});

test.serial('every history of this file replays on the current code, on both servers', async (t) => {
  await assertEveryHistoryReplays(t, servers.engines, 3);
});
