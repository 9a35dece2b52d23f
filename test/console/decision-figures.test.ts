/**
 * The team's figures beside the price in a real browser (Debian's chromium, playwright-core) against the real engine
 * and API, at a laptop's and a phone's width: the inbox row says what would remain or that the order is over budget,
 * the decision page shows the team, its run-rate, approved this month, budget and what would remain, with over budget
 * said in words, and a vote keeps the figures its approver was shown.
 */
import anyTest, { type TestFn } from 'ava';
import { namedRequest } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { joinTeams, networkTeam, teamedPolicies } from '../helpers/teams.js';
import {
  misfits,
  screenshotPath,
  signedIn,
  startConsole,
  VIEWPORTS,
  waitForApiState,
  type ConsoleHarness,
} from './harness.js';

const test = anyTest as TestFn<{ harness: ConsoleHarness }>;
const pg = usePostgres(test);

/** Staging's rules, with team "network" allowed 3000 AUD of new commitments a month and a run-rate of 4000 AUD. */
const TEAMED_POLICIES = teamedPolicies({
  version: 'test-console-figures-1',
  teams: [networkTeam({ monthlyNew: { AUD: 3000 }, runRateCap: { AUD: 4000 } })],
});

test.before(async (t) => {
  const harness = await startConsole(pg, { engine: { policies: TEAMED_POLICIES } });
  t.context.harness = harness;
  await joinTeams(harness.api.repository, { alice: 'network' });
  // One that fits (1618.20 of 3000 AUD), and one that would take the team over this month's budget (3236.40 AUD).
  for (const [ticketId, size] of [
    ['FIG-FITS', 'MVE 8/32'],
    ['FIG-OVER', 'MVE 16/64'],
  ]) {
    const response = await harness.api.call('POST', '/api/v1/orders', {
      as: 'alice',
      body: namedRequest(ticketId, { size }),
    });
    if (response.status !== 201) throw new Error(`submit ${ticketId}: ${response.status}`);
    await waitForApiState(harness.api, ticketId, 'AWAITING_APPROVAL');
  }
});
test.after.always(async (t) => {
  await t.context.harness?.stop();
});

for (const viewport of Object.keys(VIEWPORTS) as Array<keyof typeof VIEWPORTS>) {
  const { width, height } = VIEWPORTS[viewport];
  test.serial(`the inbox and the decision page show the team's figures at ${width}×${height}`, async (t) => {
    const { harness } = t.context;
    const { context, page, problems } = await signedIn(harness, 'fiona', { viewport });
    try {
      await page.goto(harness.url + '/');
      const fits = page.locator('[data-testid=inbox-row][data-ticket=FIG-FITS]').getByTestId('inbox-budget');
      const over = page.locator('[data-testid=inbox-row][data-ticket=FIG-OVER]').getByTestId('inbox-budget');
      t.is(await fits.getAttribute('data-over-budget'), 'false');
      t.is(await fits.innerText(), "network: 1,381.80 AUD left after (month's budget)");
      t.is(await over.getAttribute('data-over-budget'), 'true');
      t.is(await over.innerText(), "network: over budget by 236.40 AUD (month's budget)", 'in words, not colour only');
      t.is(await misfits(page), '', `the inbox at ${width}×${height}`);
      const inboxShot = screenshotPath(`pages/inbox-budget-${viewport}.png`);
      if (inboxShot) await page.screenshot({ path: inboxShot, fullPage: true });

      await page.locator('[data-testid=inbox-row][data-ticket=FIG-OVER]').getByRole('link').click();
      await page.waitForURL(/\/orders\/FIG-OVER\./);
      const block = page.getByTestId('decision-form').getByTestId('budget-figures');
      t.is(await block.getAttribute('data-over-budget'), 'true');
      t.is(await block.getByTestId('budget-team').innerText(), 'Network engineering (network)');
      t.is(await block.getByTestId('budget-run-rate').innerText(), '0.00 AUD a month');
      t.regex(await block.getByTestId('budget-approved').innerText(), /^0\.00 AUD \(\d{4}-\d{2}, UTC\)$/);
      t.is(
        await block.getByTestId('budget-limits').innerText(),
        "3,000.00 AUD this month's budget for new commitments; 4,000.00 AUD the run-rate cap",
      );
      t.is(
        await block.getByTestId('budget-remaining').innerText(),
        "236.40 AUD over this month's budget for new commitments; 763.60 AUD of the run-rate cap",
      );
      t.regex(
        await block.getByTestId('over-budget').innerText(),
        /^Over budget\. 3,236\.40 AUD a month would take team network over its budget for new commitments this month of 3,000\.00 AUD \(3,236\.40 AUD with this order, 236\.40 AUD over\)$/,
      );
      t.is(await misfits(page), '', `the decision page at ${width}×${height}`);
      t.deepEqual(problems, [], 'no console error');
      const orderShot = screenshotPath(`order-budget-${viewport}.png`);
      if (orderShot) await page.screenshot({ path: orderShot, fullPage: true });
    } finally {
      await context.close();
    }
  });
}

test.serial('a vote keeps the figures its approver was shown, and the order page lists them with it', async (t) => {
  const { harness } = t.context;
  const { context, page, problems } = await signedIn(harness, 'fiona');
  try {
    await page.goto(harness.url + '/');
    await page.locator('[data-testid=inbox-row][data-ticket=FIG-FITS]').getByRole('link').click();
    await page.waitForURL(/\/orders\/FIG-FITS\./);
    t.is(
      await page.getByTestId('budget-remaining').innerText(),
      "1,381.80 AUD of this month's budget for new commitments; 2,381.80 AUD of the run-rate cap",
    );
    await page.getByTestId('approve-button').click();
    await page.getByTestId('order-state').filter({ hasText: 'BOUGHT' }).waitFor({ timeout: 30_000 });
    const figures = page.getByTestId('vote-row').getByTestId('vote-figures');
    await figures.waitFor({ timeout: 10_000 });
    t.is(await figures.innerText(), "network: 1,381.80 AUD left after (month's budget)");
    t.is(await page.getByTestId('budget-figures').count(), 0, 'a bought order awaits no decision');
    t.deepEqual(problems, [], 'no console error');
  } finally {
    await context.close();
  }
});
