import test from 'ava';
import { inspect } from 'node:util';
import { ApiConfigError, DEFAULT_RESPONSE_TIMEOUT_MS, loadApiConfig, Secret } from '../../infra/ordering-api/index.js';

const STAGING = {
  MVE_API_BASE_URL: 'https://api-staging.example.test/',
  MVE_AUTH_URL: 'https://auth-staging.example.test',
  MVE_ENVIRONMENT: 'staging',
  MVE_CLIENT_ID: 'key-1',
  MVE_CLIENT_SECRET: 'super-secret-value',
};

test('a complete staging configuration loads, with default timeouts and no trailing slash', (t) => {
  const config = loadApiConfig(STAGING);
  t.is(config.baseUrl, 'https://api-staging.example.test');
  t.is(config.environment, 'staging');
  t.is(config.responseTimeoutMs, DEFAULT_RESPONSE_TIMEOUT_MS);
  t.is(config.clientSecret.reveal(), 'super-secret-value');
});

test('every missing variable is named at once', (t) => {
  const error = t.throws(() => loadApiConfig({}), { instanceOf: ApiConfigError });
  for (const name of ['MVE_API_BASE_URL', 'MVE_AUTH_URL', 'MVE_ENVIRONMENT', 'MVE_CLIENT_ID', 'MVE_CLIENT_SECRET']) {
    t.true(
      error.problems.some((problem) => problem.startsWith(`${name} is not set`)),
      name,
    );
  }
});

test('bad values are named with their rule, and the secret is never echoed', (t) => {
  const error = t.throws(
    () =>
      loadApiConfig({
        ...STAGING,
        MVE_API_BASE_URL: 'ftp://nope',
        MVE_ENVIRONMENT: 'prod',
        MVE_RESPONSE_TIMEOUT_MS: 'soon',
        MVE_CLIENT_SECRET: 'super-secret-value',
      }),
    { instanceOf: ApiConfigError },
  );
  t.regex(error.message, /MVE_API_BASE_URL must be an http\(s\) URL/);
  t.regex(error.message, /MVE_ENVIRONMENT must be "staging" or "production"/);
  t.regex(error.message, /MVE_RESPONSE_TIMEOUT_MS must be a whole number of milliseconds/);
  t.false(error.message.includes('super-secret-value'));
});

test('production must be switched on explicitly', (t) => {
  const production = { ...STAGING, MVE_ENVIRONMENT: 'production' };
  const error = t.throws(() => loadApiConfig(production), { instanceOf: ApiConfigError });
  t.regex(error.message, /MVE_ALLOW_PRODUCTION=true/);
  t.is(loadApiConfig({ ...production, MVE_ALLOW_PRODUCTION: 'true' }).environment, 'production');
});

test('a secret stays hidden when printed, logged or serialised', (t) => {
  const secret = new Secret('hunter2-hunter2');
  const shown = [
    String(secret),
    // eslint-disable-next-line @typescript-eslint/restrict-template-expressions -- a Secret in a template is the case under test
    `${secret}`,
    JSON.stringify({ secret }),
    inspect({ secret }),
    inspect(loadApiConfig(STAGING)),
  ];
  t.true(shown.every((text) => !text.includes('hunter2') && !text.includes('super-secret-value')));
  t.is(secret.reveal(), 'hunter2-hunter2');
});
