import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ApiInvalidResponseError,
  ApiNetworkError,
  createTokenProvider,
  createTransport,
  Secret,
  type TokenProvider,
} from '../../infra/ordering-api/index.js';
import { startSimulator, type Simulator } from '../../tooling/sim/index.js';

/** A provider for the simulator's primary key whose clock the test moves. */
async function providerWithClock(
  tokenTtlSeconds: number,
): Promise<{ sim: Simulator; provider: TokenProvider; clock: { now: number } }> {
  const sim = await startSimulator({ tokenTtlSeconds });
  const clock = { now: Date.now() };
  const transport = createTransport({ connectTimeoutMs: 5_000, responseTimeoutMs: 15_000 });
  const provider = createTokenProvider({
    environment: 'staging',
    authUrl: sim.authUrl,
    clientId: sim.clientId,
    clientSecret: new Secret(sim.clientSecret),
    transport,
    now: () => clock.now,
    refreshMarginMs: 60_000,
  });
  return { sim, provider, clock };
}

test('a token is reused until expires_in minus the margin, then fetched anew', async (t) => {
  const { sim, provider, clock } = await providerWithClock(3600);
  t.teardown(() => sim.close());
  const first = await provider.getToken();
  clock.now += 3_539_000; // 1 s before the refresh point (3600 s - 60 s margin)
  t.is(await provider.getToken(), first);
  clock.now += 2_000;
  const second = await provider.getToken();
  t.not(second.reveal(), first.reveal());
  t.is(provider.requestCount, 2);
  t.is(sim.state().tokensIssued, 2);
});

test('a short-lived token is used for most of its life (the margin is capped at a tenth of it)', async (t) => {
  const { sim, provider, clock } = await providerWithClock(10);
  t.teardown(() => sim.close());
  const first = await provider.getToken();
  clock.now += 8_900;
  t.is(await provider.getToken(), first);
  clock.now += 200;
  t.not(await provider.getToken(), first);
});

test('concurrent callers share one token request', async (t) => {
  const { sim, provider } = await providerWithClock(3600);
  t.teardown(() => sim.close());
  const tokens = await Promise.all(Array.from({ length: 20 }, () => provider.getToken()));
  t.true(tokens.every((token) => token === tokens[0]));
  t.is(sim.state().tokensIssued, 1);
});

test('invalidate drops only the token it names, so late 401s do not cause extra fetches', async (t) => {
  const { sim, provider } = await providerWithClock(3600);
  t.teardown(() => sim.close());
  const old = await provider.getToken();
  provider.invalidate(old);
  const fresh = await provider.getToken();
  provider.invalidate(old); // a second caller that also saw a 401 with the old token
  t.is(await provider.getToken(), fresh);
  t.is(provider.requestCount, 2);
});

test('a failed token request is not cached: the next call tries again', async (t) => {
  const { sim, provider } = await providerWithClock(3600);
  t.teardown(() => sim.close());
  sim.injectFault({ kind: 'drop', endpoint: 'token' });
  const error = await t.throwsAsync(provider.getToken(), { instanceOf: ApiNetworkError });
  t.is(error.call, 'token');
  t.true(error.retrySafe);
  await t.notThrowsAsync(provider.getToken());
  t.is(provider.requestCount, 2);
});

test('a token response without access_token or a positive lifetime is an invalid response, not a cached token', async (t) => {
  const bodies = [{ access_token: 'x', expires_in: 0, token_type: 'Bearer' }, { expires_in: 3600 }];
  const server = createServer((_req, res) => res.end(JSON.stringify(bodies.shift())));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const transport = createTransport({ connectTimeoutMs: 5_000, responseTimeoutMs: 15_000 });
  t.teardown(() => {
    transport.close();
    server.closeAllConnections();
    server.close();
  });
  const provider = createTokenProvider({
    environment: 'staging',
    authUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    clientId: 'k',
    clientSecret: new Secret('secret-value'),
    transport,
  });
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const error = await t.throwsAsync(provider.getToken(), { instanceOf: ApiInvalidResponseError });
    t.is(error.call, 'token');
  }
  t.is(provider.requestCount, 2);
});
