/**
 * The notice after a vote, in a real browser against the real engine: it says what became of the vote from the order
 * as it is, and follows it. After the last approval the price is checked again before buying; a 10 % rise sends the
 * order back for approval at the new price, and the notice says so instead of promising a buy.
 */
import anyTest, { type TestFn } from 'ava';
import { sydneyRequest } from '../helpers/orders.js';
import { usePostgres } from '../helpers/postgres.js';
import { signedIn, startConsole, waitForApiState, type ConsoleHarness } from './harness.js';

const test = anyTest as TestFn<{ harness: ConsoleHarness }>;
const pg = usePostgres(test);

test.before(async (t) => {
  t.context.harness = await startConsole(pg);
});
test.after.always(async (t) => {
  await t.context.harness?.stop();
});

const CHECKED_AGAIN =
  /^You approved 1,618\.20 AUD a month, the last approval needed\. Before it is bought its price is checked again: unless the price changed beyond what the approval covers, it is bought; if it did, it comes back for approval at the new price\.$/;
const BACK_FOR_APPROVAL =
  /^You approved 1,618\.20 AUD a month, the last approval needed\. Checked again before buying, its price is now 1,780\.02 AUD a month, which your approval does not cover: the order is back in AWAITING_APPROVAL and waits for approval at the new price\.$/;

test.serial(
  'the last approval, then a 10 % rise when the price is checked again: the notice says the order is back for approval',
  async (t) => {
    const { harness } = t.context;
    const { sim } = harness.api;
    const submitted = await harness.api.call('POST', '/api/v1/orders', {
      as: 'alice',
      body: sydneyRequest('VOTE-1', { size: 'MVE 8/32' }),
    });
    t.is(submitted.status, 201, JSON.stringify(submitted.body));
    await waitForApiState(harness.api, 'VOTE-1', 'AWAITING_APPROVAL');
    const { context, page, problems } = await signedIn(harness, 'fiona');
    try {
      await page.goto(`${harness.url}/orders/VOTE-1`);
      t.is(await page.getByTestId('approve-button').innerText(), 'Approve 1,618.20 AUD a month');
      // The provider's price rises 10 % before the check that comes after the approval.
      sim.setPriceFactor(1.1);
      await page.getByTestId('approve-button').click();
      await page.getByTestId('flash').waitFor();
      // The notice and the state as the page first shows them, read together: the vote's answer usually comes once
      // the price was checked again, and the page says what came of it; before, the notice says what happens next.
      const [firstFlash, firstState] = await page
        .locator('[data-testid=flash], [data-testid=order-state]')
        .allTextContents();
      t.log(`first shown in ${firstState}`);
      t.regex(firstFlash, firstState === 'AWAITING_APPROVAL' ? BACK_FOR_APPROVAL : CHECKED_AGAIN);

      // The page follows the order by itself: the notice tells the change of course, and the form the new price.
      const flash = page.getByTestId('flash');
      await flash.filter({ hasText: 'back in AWAITING_APPROVAL' }).waitFor({ timeout: 30_000 });
      t.regex(await flash.innerText(), BACK_FOR_APPROVAL);
      t.is(await flash.getAttribute('class'), 'notice info', 'a change of course, not a success');
      t.is(await page.getByTestId('order-state').innerText(), 'AWAITING_APPROVAL');
      await page.getByTestId('approve-button').filter({ hasText: '1,780.02' }).waitFor({ timeout: 10_000 });

      // Approved again at the new price, it is bought; the notice follows it there.
      await page.getByTestId('approve-button').click();
      await flash.filter({ hasText: 'It was bought' }).waitFor({ timeout: 30_000 });
      t.is(
        await flash.innerText(),
        'You approved 1,780.02 AUD a month, the last approval needed. It was bought at 1,780.02 AUD a month.',
      );
      t.is(await flash.getAttribute('class'), 'notice ok');
      t.is(await page.getByTestId('order-state').innerText(), 'BOUGHT');

      // Shown once: a page loaded afterwards has no notice.
      await page.reload();
      t.is(await page.getByTestId('flash').count(), 0);
      t.deepEqual(problems, [], 'no console error');
    } finally {
      await context.close();
      sim.setPriceFactor(1);
    }
  },
);

test.serial(
  'the notice after a first approval follows the order: another approver decides, and it says it was bought',
  async (t) => {
    const { harness } = t.context;
    const submitted = await harness.api.call('POST', '/api/v1/orders', {
      as: 'alice',
      body: sydneyRequest('VOTE-2', { size: 'MVE 16/64' }),
    });
    t.is(submitted.status, 201, JSON.stringify(submitted.body));
    await waitForApiState(harness.api, 'VOTE-2', 'AWAITING_APPROVAL');
    const { context, page, problems } = await signedIn(harness, 'fiona');
    try {
      await page.goto(`${harness.url}/orders/VOTE-2`);
      await page.getByTestId('approve-button').click();
      const flash = page.getByTestId('flash');
      t.is(await flash.innerText(), 'You approved 3,236.40 AUD a month. It waits for 1 more approval.');

      // dave gives the second approval elsewhere; fiona's page, left open, tells her what came of hers.
      const second = await harness.api.call('POST', '/api/v1/orders/VOTE-2/approve', {
        as: 'dave',
        body: { monthlyRate: 3236.4, currency: 'AUD' },
      });
      t.is(second.status, 200, JSON.stringify(second.body));
      await flash.filter({ hasText: 'It was bought' }).waitFor({ timeout: 30_000 });
      t.is(await flash.innerText(), 'You approved 3,236.40 AUD a month. It was bought at 3,236.40 AUD a month.');
      t.is(await page.getByTestId('order-state').innerText(), 'BOUGHT');

      // Any other page drops the notice: back on the order, there is none.
      await page.goto(`${harness.url}/`);
      await page.goto(`${harness.url}/orders/VOTE-2`);
      t.is(await page.getByTestId('flash').count(), 0);
      t.deepEqual(problems, [], 'no console error');
    } finally {
      await context.close();
    }
  },
);
