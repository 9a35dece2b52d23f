/**
 * The console's lists at every width between a phone's and a wide screen's, in chromium, without an engine: the views
 * rendered from orders as the API lists them, longer than the browser tests' (a ticket system's ids, a full name, the
 * API's errors with their trace ids), and checked as the browser tests check a page (scripts/page-fit.ts). The browser
 * tests check every page at 1280×800 and 390×844 against the real engine; this checks the widths between, where a
 * table with many columns is cards side by side.
 */
import anyTest, { type TestFn } from 'ava';
import type { Browser } from 'playwright-core';
import { html } from '../../client/console/html.js';
import { inboxView, myOrdersView, type InboxItem } from '../../client/console/inbox/view.js';
import { page as layout } from '../../client/console/layout.js';
import type { ListedOrder } from '../../client/console/listed-orders.js';
import type { ConsoleSession, ConsoleUser } from '../../client/console/sessions.js';
import { launchChromium, misfits } from './harness.js';

const test = anyTest as TestFn<{ browser: Browser }>;

test.before(async (t) => {
  t.context.browser = await launchChromium();
});
test.after.always(async (t) => {
  await t.context.browser?.close();
});

const WIDTHS = [360, 390, 480, 641, 768, 900, 1024, 1120, 1180, 1280, 1440, 1920];
const NOW = Date.parse('2026-11-29T14:00:00Z');
const TRACE = '7f3c9a1e-5b2d-4c8f-9e0a-1b2c3d4e5f60';
const REQUESTER = 'alexandra.konstantinopoulou';

const errors = {
  FAILED: `POST /v3/networkdesign/validate (staging) was rejected (400): Validation failed: vendorConfig.mveLabel: size "MVE 32/128" needs 32 vCPU; location 201 (Equinix SY3, Mascot NSW 2020) offers at most 16; vendorConfig.imageId: image 4711 (Fortinet FortiGate-VM 7.4.3 build 2573) needs at least 8 vCPU [trace id ${TRACE}]`,
  BUY_UNCERTAIN: `POST /v4/networkdesign/buy (production) got no response: connection to https://api-staging.provider.example.net:443 lost (ECONNRESET) after 30000 ms. The outcome is unknown: the order may have been placed [trace id ${TRACE}]`,
  PROVISIONING_STALLED:
    'product 0c354ebc-0b41-46bd-989a-ecfb5205ee14 is not LIVE 2 h after the buy (still CONFIGURED); ops must check it with the provider',
} as Record<string, string>;

function listed(ticketId: string, state: string): ListedOrder {
  const message = errors[state];
  return {
    orderId: `${ticketId}.0123456789`,
    ticketId,
    environment: 'production',
    requestedBy: REQUESTER,
    submittedBy: 'servicenow-ticket-bot',
    state,
    quote: { monthlyRate: 123456.78, currency: 'AUD' },
    lastError: message ? { message, at: '2026-11-29T13:38:00Z' } : null,
    createdAt: '2026-11-29T13:37:00Z',
    updatedAt: '2026-11-29T13:38:00Z',
  };
}

const ORDERS = [
  listed('SNOW-CHG0045821-NETWORK-EDGE-SYD-PRIMARY-FIREWALL', 'FAILED'),
  listed('SNOW-CHG0045822-NETWORK-EDGE-MEL-SECONDARY', 'BUY_UNCERTAIN'),
  listed('SNOW-CHG0045823', 'PROVISIONING_STALLED'),
  listed('SNOW-CHG0045824', 'AWAITING_APPROVAL'),
  listed('WEB-1', 'LIVE'),
];

/** The team's figures beside a price of 123456.78 AUD: the first row would take it over its budgets, the second not. */
function figures(over: boolean): NonNullable<InboxItem['budget']> {
  return {
    team: 'network-edge-engineering-sydney',
    teamName: 'Network edge engineering, Sydney',
    currency: 'AUD',
    month: '2026-11',
    timeZone: 'Australia/Sydney',
    asOf: '2026-11-29T13:37:00Z',
    runRate: '1234567.89',
    approvedNotBought: '0',
    approvedThisMonth: over ? '9000000' : '0',
    budget: { monthlyNew: '9000000', runRateCap: '2000000' },
    price: '123456.78',
    remainingAfter: over
      ? { monthlyNew: '-123456.78', runRateCap: '641975.33' }
      : { monthlyNew: '8876543.22', runRateCap: '641975.33' },
    overBudget: over
      ? {
          reason:
            '123456.78 AUD a month would take team network-edge-engineering-sydney over its budget for new commitments this month of 9000000 AUD (9123456.78 AUD with this order, 123456.78 AUD over)',
          overruns: [{ limit: 'monthlyNew', budget: '9000000', withOrder: '9123456.78', over: '123456.78' }],
        }
      : null,
  };
}

const INBOX: InboxItem[] = ['SNOW-CHG0045825-NETWORK-EDGE-SYD-PRIMARY-FIREWALL', 'WEB-2'].map((ticketId, index) => ({
  orderId: `${ticketId}.0123456789`,
  ticketId,
  requestedBy: REQUESTER,
  environment: 'production',
  ordered: { size: 'MVE 16/64', place: 'Equinix SY3 Mascot, Sydney, AU', term: 36, productName: 'syd-edge-fw' },
  monthlyRate: 123456.78,
  currency: 'AUD',
  team: 'network-edge-engineering-sydney',
  budget: figures(index === 0),
  tier: 'finance',
  approvalsNeeded: 2,
  approvalsGiven: 0,
  stillNeeded: 2,
  deadline: '2026-12-02T13:37:00Z',
  waitingSince: '2026-11-29T13:37:00Z',
}));

function user(id: string, roles: string[]): ConsoleUser {
  const approve = roles.includes('finance-approver');
  return {
    id,
    qualifiedId: id,
    roles,
    via: 'token',
    can: { submit: !approve, approve, seeAllOrders: false, resolveBuys: false, readHistoryPayloads: false },
  };
}

function rendered(body: ReturnType<typeof html>, who: ConsoleUser): string {
  const session: ConsoleSession = { id: 's', csrf: 'c', createdAt: NOW, lastSeenAt: NOW, user: who };
  return layout({ title: 'Orders', session, nonce: 'n', body, current: 'inbox' });
}

const PAGES = {
  inbox: rendered(inboxView(INBOX, NOW, html``), user('fiona', ['finance-approver'])),
  orders: rendered(myOrdersView(user(REQUESTER, ['requester']), ORDERS, html``), user(REQUESTER, ['requester'])),
};

for (const [name, text] of Object.entries(PAGES)) {
  test(`the ${name} list fits every width from ${WIDTHS[0]} to ${WIDTHS.at(-1)} px`, async (t) => {
    const context = await t.context.browser.newContext({ viewport: { width: WIDTHS[0], height: 800 } });
    try {
      const page = await context.newPage();
      await page.setContent(text);
      for (const width of WIDTHS) {
        await page.setViewportSize({ width, height: 800 });
        t.is(await misfits(page), '', `${name} at ${width} px`);
      }
    } finally {
      await context.close();
    }
  });
}
