import test from 'ava';
import { ConfigError } from '../../config/env.js';
import { provisioningPlanFromEnv } from '../../worker/provisioning-plan.js';

test('by default a worker follows bought products: reads every 15 s growing to 5 min, reminders every 30 min, 2 h', (t) => {
  t.deepEqual(provisioningPlanFromEnv({}), {
    firstPollMs: 15_000,
    maxPollMs: 300_000,
    reminderMs: 1_800_000,
    deadlineMs: 7_200_000,
  });
});

test('MVE_FOLLOW_PROVISIONING=false: no plan, and orders end at BOUGHT', (t) => {
  t.is(provisioningPlanFromEnv({ MVE_FOLLOW_PROVISIONING: 'false' }), undefined);
});

test('durations are read as people write them', (t) => {
  const plan = provisioningPlanFromEnv({
    MVE_PROVISIONING_DEADLINE: '6h',
    MVE_PROVISIONING_REMINDER: '45m',
    MVE_PROVISIONING_POLL: '30s',
    MVE_PROVISIONING_POLL_MAX: '10m',
  });
  t.deepEqual(plan, { firstPollMs: 30_000, maxPollMs: 600_000, reminderMs: 2_700_000, deadlineMs: 21_600_000 });
});

test('bad values are named with their rule', (t) => {
  const bad = t.throws(
    () => provisioningPlanFromEnv({ MVE_FOLLOW_PROVISIONING: 'yes', MVE_PROVISIONING_DEADLINE: 'soon' }),
    {
      instanceOf: ConfigError,
    },
  );
  t.regex(bad.message, /MVE_FOLLOW_PROVISIONING: must be true or false/);
  t.regex(bad.message, /MVE_PROVISIONING_DEADLINE: must be a positive whole number of milliseconds, or text like/);
  const inverted = t.throws(() =>
    provisioningPlanFromEnv({ MVE_PROVISIONING_POLL: '10m', MVE_PROVISIONING_POLL_MAX: '1m' }),
  );
  t.regex(inverted.message, /MVE_PROVISIONING_POLL: must not be longer than MVE_PROVISIONING_POLL_MAX/);
  const late = t.throws(() => provisioningPlanFromEnv({ MVE_PROVISIONING_POLL_MAX: '3h' }));
  t.regex(late.message, /MVE_PROVISIONING_POLL_MAX: must not be longer than MVE_PROVISIONING_DEADLINE/);
});
