import test from 'ava';
import { ConfigError } from '../../config/env.js';
import { servedEnvironmentsFromEnv } from '../../config/served-environments.js';

test('MVE_ENVIRONMENTS: both by default; a list, trimmed and without repeats', (t) => {
  t.deepEqual(servedEnvironmentsFromEnv({}), ['staging', 'production']);
  t.deepEqual(servedEnvironmentsFromEnv({ MVE_ENVIRONMENTS: 'staging' }), ['staging']);
  t.deepEqual(servedEnvironmentsFromEnv({ MVE_ENVIRONMENTS: ' production , staging,production' }), [
    'production',
    'staging',
  ]);
});

test('MVE_ENVIRONMENTS: an unknown or an empty list is a ConfigError naming the variable', (t) => {
  for (const value of ['prod', 'staging,qa', '', ' , ']) {
    const error = t.throws(() => servedEnvironmentsFromEnv({ MVE_ENVIRONMENTS: value }), { instanceOf: ConfigError });
    t.regex(error.message, /MVE_ENVIRONMENTS: must list environments/, value);
  }
  t.regex(t.throws(() => servedEnvironmentsFromEnv({ MVE_ENVIRONMENTS: 'staging,qa' })).message, /\(not qa\)/);
});
