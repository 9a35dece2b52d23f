/**
 * The provisioning follow-up on Temporal's own server: a bought product read on a durable timer until LIVE; a product
 * the provider fails; an API that does not offer the product read. The simulator's statuses change two seconds away
 * from each read, so each read sees the status the test expects even on a loaded machine.
 */
import anyTest, { type TestFn } from 'ava';
import { usePostgres } from '../helpers/postgres.js';
import { assertEveryHistoryReplays, settledIn, submit, useApiEngine } from './fixtures/scenario-engine.js';

const test = anyTest as TestFn<unknown>;
const pg = usePostgres(test);

/** A read at the buy, then every 4 s: CONFIGURED at 2 s and LIVE at 6 s fall between reads. */
const POLL_MS = 4_000;
const TIMES = { configuredAfterMs: 2_000, liveAfterMs: 6_000 };
const engine = useApiEngine(test, pg, {
  provisioning: { firstPollMs: POLL_MS, maxPollMs: POLL_MS, reminderMs: 60_000, deadlineMs: 120_000 },
  simProvisioning: TIMES,
});

test.serial('a bought product is read until LIVE, and /metrics counts it and its time to LIVE', async (t) => {
  const { api } = engine;
  await submit(t, api, 'RS-PROV-LIVE', { size: 'MVE 4/16' });
  const live = await settledIn(api, 'RS-PROV-LIVE', 'LIVE');
  t.deepEqual(
    live.provisioning?.statuses.map((seen) => seen.status),
    ['DEPLOYABLE', 'CONFIGURED', 'LIVE'],
  );
  t.deepEqual(live.timeline?.map((line) => line.state).slice(-3), ['BOUGHT', 'PROVISIONING', 'LIVE']);
  const metrics = String((await api.call('GET', '/metrics')).body);
  t.regex(metrics, /^mve_orders\{state="LIVE"\} 1$/m);
  t.regex(metrics, /^mve_products\{provisioning_status="LIVE"\} 1$/m);
  const toLive = Number(/^mve_provisioning_time_to_live_seconds\{quantile="0\.5"\} (\S+)$/m.exec(metrics)?.[1]);
  // LIVE is seen at the third read, two polls after the first; the upper bound only allows for a loaded machine.
  t.true(toLive >= (2 * POLL_MS) / 1000 && toLive < 60, `time to LIVE: ${toLive} s`);
  t.regex(metrics, /^mve_provisioning_live_orders_7d 1$/m);
});

test.serial('a product the provider fails at once ends the order PROVISIONING_FAILED at the first read', async (t) => {
  const { api } = engine;
  api.sim.setProvisioning({ configuredAfterMs: 0, liveAfterMs: 0 });
  api.sim.injectFault({ kind: 'provisioning', outcome: 'fail', status: 'CANCELLED' });
  try {
    await submit(t, api, 'RS-PROV-FAILED', { size: 'MVE 4/16' });
    const failed = await settledIn(api, 'RS-PROV-FAILED', 'PROVISIONING_FAILED');
    t.regex(failed.lastError?.message ?? '', /as CANCELLED/);
    t.is(failed.product?.provisioningStatus, 'CANCELLED');
  } finally {
    api.sim.setProvisioning(TIMES);
  }
});

test.serial('an API without the product read: the order ends at BOUGHT after one read', async (t) => {
  const { api } = engine;
  api.sim.setProductRead('not-allowed');
  try {
    await submit(t, api, 'RS-PROV-NOREAD', { size: 'MVE 4/16' });
    const bought = await settledIn(api, 'RS-PROV-NOREAD', 'BOUGHT');
    t.is(bought.provisioning, undefined);
    t.is(api.sim.state().calls.product, 3 + 1 + 1, "one read for this order, after the other orders' three and one");
  } finally {
    api.sim.setProductRead('offered');
  }
});

test.serial('every history of this file replays on the current workflow code', async (t) => {
  await assertEveryHistoryReplays(t, engine.api, 3);
});
