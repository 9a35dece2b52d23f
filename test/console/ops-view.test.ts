/**
 * The ops view's "needs attention" lists, rendered from orders as the API lists them (no server): what ops read for
 * an order whose provisioning failed with no error recorded.
 */
import test from 'ava';
import { opsView, type Attention } from '../../client/console/ops/view.js';
import type { ListedOrder } from '../../client/console/listed-orders.js';
import { html } from '../../client/console/html.js';

const NOW = Date.parse('2026-11-29T12:00:00Z');

function failedProvisioning(product: ListedOrder['product']): ListedOrder {
  return {
    orderId: 'PROV-9.0123456789',
    ticketId: 'PROV-9',
    environment: 'staging',
    requestedBy: 'alice',
    submittedBy: 'ticket-bot',
    state: 'PROVISIONING_FAILED',
    quote: { monthlyRate: 120, currency: 'USD' },
    product,
    lastError: null,
    createdAt: '2026-11-29T10:00:00Z',
    updatedAt: '2026-11-29T11:00:00Z',
  };
}

function render(order: ListedOrder): string {
  const attention: Attention = {
    uncertain: [],
    failed: [],
    expiring: [],
    shortOfApprovers: [],
    provisioningEnded: [order],
    provisioningSlow: [],
  };
  return String(
    opsView({
      filters: {},
      orders: [],
      nextCursor: null,
      attention,
      now: NOW,
      expiryWarningMs: 3_600_000,
      slowProvisioningMs: 3_600_000,
      flash: html``,
    }),
  );
}

test('a failed provisioning with no error names its product as markup, not as escaped tags', (t) => {
  const page = render(failedProvisioning({ technicalServiceUid: 'f3a1-uid', provisioningStatus: 'DECOMMISSIONED' }));
  t.regex(page, /product <code>f3a1-uid<\/code> is DECOMMISSIONED/);
  t.notRegex(page, /&lt;code&gt;/);
});

test('a failed provisioning with no product and no error says "its product"', (t) => {
  t.regex(render(failedProvisioning(null)), /its product is not live/);
});

test('a failed order names its trace id once, though the API put it in the message too', (t) => {
  const trace = '36550749-1219-49d2-97f0-e579683136db';
  const order: ListedOrder = {
    ...failedProvisioning(null),
    state: 'FAILED',
    lastError: {
      message: `POST /v3/networkdesign/validate (staging) was rejected (400): size "MVE 32/128" needs 32 vCPU [trace id ${trace}]`,
      at: '2026-11-29T11:00:00Z',
      traceId: trace,
    },
  };
  const page = String(
    opsView({
      filters: {},
      orders: [order],
      nextCursor: null,
      attention: {
        uncertain: [],
        failed: [order],
        expiring: [],
        shortOfApprovers: [],
        provisioningEnded: [],
        provisioningSlow: [],
      },
      now: NOW,
      expiryWarningMs: 3_600_000,
      slowProvisioningMs: 3_600_000,
      flash: html``,
    }),
  );
  const item = /<li data-testid="attention-failed"[^>]*>.*?<\/li>/s.exec(page)?.[0] ?? '';
  t.regex(item, /needs 32 vCPU<\/span> <span class="muted">trace id <code data-testid="attention-failed-trace">/);
  t.is(item.split(trace).length - 1, 1, item);
  // The list's text names it once too (its title, the whole error on hover, once as well).
  const listed = /<span class="clamp"[^>]*data-testid="listed-error">(.*?)<\/span><\/td>/s.exec(page)?.[1] ?? '';
  t.is(listed.split(trace).length - 1, 1, listed);
});

test("an uncertain buy sends ops to the provider portal; to the simulator's state only when dev said where it is", (t) => {
  const uncertain: ListedOrder = { ...failedProvisioning(null), state: 'BUY_UNCERTAIN' };
  const item = (providerPortal?: { label: string; url: string }) =>
    /<li data-testid="attention-uncertain"[^>]*>.*?<\/li>/s.exec(
      String(
        opsView({
          filters: {},
          orders: [],
          nextCursor: null,
          attention: {
            uncertain: [uncertain],
            failed: [],
            expiring: [],
            shortOfApprovers: [],
            provisioningEnded: [],
            provisioningSlow: [],
          },
          now: NOW,
          expiryWarningMs: 3_600_000,
          slowProvisioningMs: 3_600_000,
          flash: html``,
          ...(providerPortal ? { providerPortal } : {}),
        }),
      ),
    )?.[0] ?? '';
  t.regex(item(), /\. Check the provider's portal and resolve it\.<\/li>$/);
  t.notRegex(item(), /_sim|href="http/);
  t.regex(
    item({ label: "the API simulator's /_sim/state", url: 'http://127.0.0.1:8090/_sim/state' }),
    /Check the provider's portal \(here: <a href="http:\/\/127\.0\.0\.1:8090\/_sim\/state" data-testid="provider-portal">the API simulator&#39;s \/_sim\/state<\/a>\) and resolve it\./,
  );
});
