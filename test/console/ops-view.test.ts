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
