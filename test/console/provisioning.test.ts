/**
 * The console shows the follow-up of a bought MVE, in a real browser against the real engine, whose workers follow
 * products on a plan of seconds (the simulator's product is CONFIGURED after 2 s, LIVE after 5 s): the order page's
 * "Provisioning" section for an order that went LIVE, one the provider failed and one that stalled, and the ops
 * view's attention items for them.
 */
import anyTest, { type TestFn } from 'ava';
import type { ApiOrder, OrderHistory } from '../../client/http-client/index.js';
import type { ProvisioningPlan } from '../../domain/lifecycle/index.js';
import { namedRequest, productsFor } from '../helpers/api.js';
import { usePostgres } from '../helpers/postgres.js';
import { json } from '../helpers/json.js';
import { waitFor } from '../helpers/wait.js';
import {
  attributesOf,
  screenshotPath,
  signedIn,
  startConsole,
  VIEWPORTS,
  waitForApiState,
  misfits,
  type ConsoleHarness,
  type PageElement,
} from './harness.js';

const test = anyTest as TestFn<{ harness: ConsoleHarness }>;
const pg = usePostgres(test);

/** Reads every second at most, reminders every 6 s, stalled 15 s after the buy. */
const PLAN: ProvisioningPlan = { firstPollMs: 300, maxPollMs: 1_000, reminderMs: 6_000, deadlineMs: 15_000 };

test.before(async (t) => {
  t.context.harness = await startConsole(pg, {
    engine: { provisioning: PLAN, simProvisioning: { configuredAfterMs: 2_000, liveAfterMs: 5_000 } },
  });
});
test.afterEach.always((t) => {
  t.context.harness?.api.sim.clearFaults();
  t.context.harness?.api.sim.setProductRead('offered');
  if (t.context.harness) t.context.harness.clock.offsetMs = 0;
});
test.after.always(async (t) => {
  await t.context.harness?.stop();
});

/** An order alice asks for, under the test policy's approval line: it is bought at once. */
async function submit(harness: ConsoleHarness, ticketId: string) {
  const response = await harness.api.call('POST', '/api/v1/orders', {
    as: 'alice',
    body: namedRequest(ticketId, { size: 'MVE 4/16' }),
  });
  if (response.status !== 201)
    throw new Error(`submit ${ticketId}: ${response.status} ${JSON.stringify(response.body)}`);
}

function productOf(harness: ConsoleHarness, ticketId: string) {
  const products = productsFor(harness.api, ticketId);
  if (products.length !== 1) throw new Error(`${ticketId} has ${products.length} products, not one`);
  return products[0];
}

test.serial(
  'the order page follows a bought MVE until it is LIVE, with how long each status lasted; one the API cannot follow reads as bought',
  async (t) => {
    const { harness } = t.context;
    const { context, page, problems } = await signedIn(harness, 'alice');
    try {
      await submit(harness, 'PROV-1');
      await page.goto(`${harness.url}/orders/PROV-1`);
      // Without a reload: the section appears once the follow-up begins, and the page follows the order to LIVE.
      await page.getByTestId('order-state').filter({ hasText: 'LIVE' }).waitFor({ timeout: 30_000 });
      const section = page.getByTestId('provisioning');
      await section.getByTestId('provisioning-step').nth(2).waitFor({ timeout: 10_000 });
      t.regex(await page.locator('[data-live=summary]').innerText(), /LIVE\s+bought and live/);
      t.regex(await section.getByTestId('provisioning-status').innerText(), /^LIVE, \d+ s after the buy \(since /);
      // each step's status and how long it lasted (its last cell)
      const steps = await section
        .getByTestId('provisioning-step')
        .evaluateAll((rows: PageElement[]) =>
          rows.map((row) => [row.getAttribute('data-status'), row.lastElementChild?.textContent ?? ''] as const),
        );
      t.deepEqual(
        steps.map(([status]) => status),
        ['DEPLOYABLE', 'CONFIGURED', 'LIVE'],
      );
      t.regex(steps[0][1], /^[1-5] s$/, 'DEPLOYABLE until the provider configured it (2 s)');
      t.regex(steps[1][1], /^[1-5] s$/, 'CONFIGURED until it went live (3 s later)');
      t.regex(steps[2][1], /^\d+ s so far$/);
      t.is(await section.getByTestId('provisioning-deadline').count(), 0, 'a live MVE has no deadline to meet');
      t.is(await section.getByTestId('provisioning-notice').count(), 0);
      t.is(await page.getByTestId('last-error').count(), 0);
      const uid = productOf(harness, 'PROV-1').technicalServiceUid;
      t.is(await page.getByTestId('product-uid').innerText(), `${uid} (LIVE)`);
      t.regex(
        await page.getByTestId('timeline').innerText(),
        new RegExp(`product ${uid} is CONFIGURED \\(DEPLOYABLE for \\d+ s\\)`),
        "the follow-up's notes are in the timeline",
      );

      harness.api.sim.setProductRead('not-found');
      await submit(harness, 'PROV-2');
      await waitFor(
        async () => {
          const history = await harness.api.call('GET', '/api/v1/orders/PROV-2/history?events=false', { as: 'olga' });
          return history.status === 200 &&
            json<OrderHistory>(history).timeline.some((line) => line.text.includes('does not offer the product read'))
            ? true
            : undefined;
        },
        30_000,
        'PROV-2 ends at BOUGHT',
      );
      await page.goto(`${harness.url}/orders/PROV-2`);
      t.is(await page.getByTestId('order-state').innerText(), 'BOUGHT');
      t.regex(await page.locator('[data-live=summary]').innerText(), /BOUGHT\s+bought\s*$/);
      t.is(await page.getByTestId('provisioning').count(), 0, 'no provisioning section: the order is as it was');
      t.regex(await page.getByTestId('product-uid').innerText(), /\(DEPLOYABLE\)$/);
      t.deepEqual(problems, [], 'no console error');
    } finally {
      await context.close();
    }
  },
);

test.serial(
  'a product the provider fails: the page says what happened and what to check with the provider; ops find it',
  async (t) => {
    const { harness } = t.context;
    harness.api.sim.injectFault({ kind: 'provisioning', outcome: 'fail', status: 'DECOMMISSIONED' });
    await submit(harness, 'PROV-3');
    await waitForApiState(harness.api, 'PROV-3', 'PROVISIONING_FAILED');
    const product = productOf(harness, 'PROV-3');
    const { context, page, problems } = await signedIn(harness, 'olga');
    try {
      await page.goto(`${harness.url}/orders/PROV-3`);
      t.regex(await page.locator('[data-live=summary]').innerText(), /ops must check it with the provider/);
      const notice = page.getByTestId('provisioning-notice');
      t.is(await notice.getAttribute('data-state'), 'PROVISIONING_FAILED');
      const words = await notice.innerText();
      t.regex(
        words,
        new RegExp(`^Provisioning failed: the API reports product ${product.technicalServiceUid} as DECOMMISSIONED\\.`),
      );
      t.regex(words, new RegExp(`Check with the provider, for product ${product.technicalServiceUid}, bought as `));
      t.regex(words, /why it failed, and whether anything is charged for it/);
      t.is(
        await notice.getByTestId('bought-under-name').innerText(),
        product.serviceName,
        'the name it was bought under',
      );
      t.is(await page.getByTestId('last-error').count(), 0, 'the notice tells the error, once');
      t.regex(await page.getByTestId('provisioning-status').innerText(), /^DECOMMISSIONED, \d+ s after the buy/);
      t.deepEqual(await attributesOf(page.getByTestId('provisioning-step'), 'data-status'), [
        'DEPLOYABLE',
        'CONFIGURED',
        'DECOMMISSIONED',
      ]);
      t.is(await page.getByTestId('provisioning-deadline').count(), 0);

      await page.goto(`${harness.url}/ops`);
      const item = page.locator('[data-testid=attention-provisioning-failed][data-ticket=PROV-3]');
      t.regex(await item.innerText(), /^PROV-3 \(staging, alice\): provisioning failed .*as DECOMMISSIONED\. Check it/);
      t.regex(
        await page.locator('tbody', { has: page.locator('[data-testid=ops-row][data-ticket=PROV-3]') }).innerText(),
        /PROVISIONING_FAILED[\s\S]*Last error: [\s\S]*as DECOMMISSIONED/,
        'the list shows the state and, under it, why',
      );
      await item.getByRole('link', { name: 'PROV-3' }).click();
      await page.waitForURL(/\/orders\/PROV-3\.[0-9a-f]{10}$/);
      t.deepEqual(problems, [], 'no console error');
    } finally {
      await context.close();
    }
  },
);

test.serial(
  'a product stuck in CONFIGURED: slow under "needs attention", reminded, then stalled at the deadline',
  async (t) => {
    const { harness } = t.context;
    harness.api.sim.injectFault({ kind: 'provisioning', outcome: 'stuck' });
    await submit(harness, 'PROV-4');
    await waitFor(
      async () => {
        const order = json<ApiOrder>(await harness.api.call('GET', '/api/v1/orders/PROV-4', { as: 'olga' }));
        return order.state === 'PROVISIONING' && order.provisioning?.status === 'CONFIGURED' ? true : undefined;
      },
      30_000,
      'PROV-4 CONFIGURED',
    );
    const { context, page, problems } = await signedIn(harness, 'olga');
    try {
      await page.goto(`${harness.url}/orders/PROV-4`);
      t.regex(
        await page.locator('[data-live=summary]').innerText(),
        /PROVISIONING\s+bought; being set up by the provider/,
      );
      t.regex(await page.getByTestId('provisioning-status').innerText(), /^CONFIGURED for \d+ s \(since /);
      t.regex(await page.getByTestId('provisioning-deadline').innerText(), /\(\d+ s left\) to be live/);

      // Slow: not yet; seen 31 minutes later (the console's clock moved on), unchanged since, it is.
      await page.goto(`${harness.url}/ops`);
      t.is(await page.locator('[data-testid=attention-provisioning-slow]').count(), 0);
      harness.clock.offsetMs = 31 * 60_000;
      await page.goto(`${harness.url}/ops`);
      t.regex(
        await page.locator('[data-testid=attention-provisioning-slow][data-ticket=PROV-4]').innerText(),
        /^PROV-4 \(staging, alice\): product \S+ CONFIGURED, no change for 3[12] min\./,
      );
      harness.clock.offsetMs = 0;

      const stalled = await waitForApiState(harness.api, 'PROV-4', 'PROVISIONING_STALLED');
      t.is(stalled.provisioning?.remindersSent, 2, 'reminded at 6 and 12 s; the deadline at 15 s ends it');
      const uid = productOf(harness, 'PROV-4').technicalServiceUid;
      await page.goto(`${harness.url}/orders/PROV-4`);
      const notice = page.getByTestId('provisioning-notice');
      t.is(await notice.getAttribute('data-state'), 'PROVISIONING_STALLED');
      t.regex(
        await notice.innerText(),
        new RegExp(
          `^Provisioning stalled: product ${uid} is not LIVE 15 s after the buy \\(still CONFIGURED\\); ops must check it with the provider\\. The order stopped following the product at its deadline`,
        ),
      );
      t.regex(await notice.innerText(), /: its status now, and when it will be live or why it is not\.$/);
      t.regex(await page.getByTestId('provisioning-status').innerText(), /^CONFIGURED for at least 1\d s/);
      t.regex(await page.getByTestId('provisioning-deadline').innerText(), /\(deadline passed \d+ s ago\)$/);
      t.is(
        await page.getByTestId('provisioning-reminders').innerText(),
        '2 sent while it was not live (each is in the timeline)',
      );
      t.regex(
        await page.getByTestId('provisioning-step').last().innerText(),
        /CONFIGURED[\s\S]*at least 1\d s$/,
        'the last status lasted at least until the last read',
      );
      t.is(
        (await page.getByTestId('timeline').innerText()).match(/reminder \d: product \S+ is not LIVE yet \(CONFIGURED/g)
          ?.length,
        2,
      );

      await page.goto(`${harness.url}/ops`);
      t.regex(
        await page.locator('[data-testid=attention-provisioning-stalled][data-ticket=PROV-4]').innerText(),
        /^PROV-4 \(staging, alice\): not live by its deadline, product \S+ still CONFIGURED \(stalled .*\)\. Check it with the provider\.$/,
      );
      t.is(await page.locator('[data-testid=attention-provisioning-slow]').count(), 0, 'no longer provisioning');
      t.is(await page.locator('[data-testid=attention-provisioning-failed][data-ticket=PROV-3]').count(), 1);
      t.deepEqual(problems, [], 'no console error');
    } finally {
      await context.close();
    }
  },
);

test.serial(
  'an uncertain buy ops settle once the product is LIVE: the page tells it from the settlement, with no unknown outcome left',
  async (t) => {
    const { harness } = t.context;
    harness.api.sim.injectFault({ kind: 'apply-then-drop', endpoint: 'buy' });
    await submit(harness, 'PROV-SETTLED');
    await waitForApiState(harness.api, 'PROV-SETTLED', 'BUY_UNCERTAIN');
    await waitFor(() => Promise.resolve(productOf(harness, 'PROV-SETTLED').provisioningStatus === 'LIVE' || undefined));
    const settled = await harness.api.call('POST', '/api/v1/orders/PROV-SETTLED/resolve-buy', {
      as: 'olga',
      body: {
        outcome: 'created',
        attempt: 1,
        technicalServiceUid: productOf(harness, 'PROV-SETTLED').technicalServiceUid,
      },
    });
    t.is(settled.status, 200, JSON.stringify(settled.body));
    await waitForApiState(harness.api, 'PROV-SETTLED', 'LIVE');
    const { context, page, problems } = await signedIn(harness, 'olga');
    try {
      await page.goto(`${harness.url}/orders/PROV-SETTLED`);
      const section = page.getByTestId('provisioning');
      t.regex(
        await section.getByTestId('provisioning-status').innerText(),
        /^LIVE, as it was when olga settled the buy \(since /,
      );
      t.regex(await section.getByTestId('provisioning-settled').innerText(), /, by olga, who found the product/);
      t.deepEqual(await attributesOf(section.getByTestId('provisioning-step'), 'data-status'), ['LIVE']);
      t.is(await page.getByTestId('last-error').count(), 0, 'the outcome is known now');
      t.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  },
);

test.serial('the provisioning pages fit a laptop and a phone, for ops and for the requester', async (t) => {
  t.timeout(5 * 60_000);
  const { harness } = t.context;
  for (const viewport of Object.keys(VIEWPORTS) as Array<keyof typeof VIEWPORTS>) {
    const { width, height } = VIEWPORTS[viewport];
    for (const user of ['olga', 'alice'] as const) {
      const { context, page, problems } = await signedIn(harness, user, { viewport });
      try {
        for (const [name, path] of [
          ['order-provisioning', '/orders/PROV-4'],
          ['order-provisioning-failed', '/orders/PROV-3'],
          ['order-live', '/orders/PROV-1'],
          user === 'olga' ? ['ops-provisioning', '/ops'] : ['orders-provisioning', '/'],
        ] as const) {
          const where = `${name} (${user}) at ${width}×${height}`;
          t.is((await page.goto(harness.url + path))?.status(), 200, where);
          await page.locator('body[data-live-updated]').waitFor({ state: 'attached', timeout: 10_000 });
          t.is(await misfits(page), '', `${where}: everything fits`);
          t.deepEqual(problems.splice(0), [], `${where}: no console error`);
          const shot = screenshotPath(`pages/${name}${user === 'olga' ? '' : `-${user}`}-${viewport}.png`);
          if (shot) await page.screenshot({ path: shot, fullPage: true });
          if (name === 'order-provisioning' && viewport === 'desktop' && user === 'olga') {
            const kept = screenshotPath('order-provisioning.png');
            if (kept) await page.screenshot({ path: kept, fullPage: true });
          }
        }
      } finally {
        await context.close();
      }
    }
  }
});
