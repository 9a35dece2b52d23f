/**
 * The randomised fault campaign (test/chaos/campaign.ts, `npm run chaos`) in the suite, small and short: a few
 * orders, 20 s of faults, worker kills and one kill of the Temporal server, then every order must settle with no double
 * buy and none lost, and re-sending every ticket must start nothing.
 */
import test from 'ava';
import { campaignPassed, formatReport, runChaos } from '../chaos/campaign.js';
import { usePostgres } from '../helpers/postgres.js';

const pg = usePostgres(test);

test('a seeded fault campaign: nothing lost, nothing bought twice, nothing left unsettled', async (t) => {
  t.timeout(150_000);
  const seed = Number(process.env['CHAOS_SEED'] ?? 7);
  const report = await runChaos({ seed, seconds: 20, orders: 6, db: await pg.database(), drainSeconds: 90 });
  t.log(formatReport(report));
  t.is(report.orders, 6);
  t.is(report.doubleBuys, 0);
  t.is(report.lost, 0);
  t.is(report.unsettled, 0);
  t.is(report.startedAgain, 0);
  t.is(report.temporalKills, 1);
  t.true(report.workerKills >= 1);
  t.true(report.bought >= 1);
  t.true(campaignPassed(report));
});
