/**
 * Reading an order in the Temporal Web UI (the one `temporal server start-dev` serves, in a playwright-core page),
 * as ops do: found by its TicketId search attribute, its history oldest first, its first event (the start, with the
 * request) opened. The browser test of the Web UI (test/console/temporal-ui.test.ts) and the walkthrough share it.
 */
import type { Page } from 'playwright-core';

export interface WebUiOrder {
  uiUrl: string;
  namespace: string;
  ticketId: string;
  orderId: string;
}

/**
 * The order found in the UI by its search attribute, as ops search it: the URL of its history, oldest first (the
 * start on top). The run is the one the search lists first, which the link names.
 */
export async function historyInWebUi(page: Page, { uiUrl, namespace, ticketId, orderId }: WebUiOrder): Promise<string> {
  const workflows = `${uiUrl}/namespaces/${namespace}/workflows`;
  await page.goto(`${workflows}?query=${encodeURIComponent(`TicketId="${ticketId}"`)}`);
  const workflowId = `mve-order-${orderId}`;
  await page.getByRole('link', { name: workflowId }).first().click();
  // The workflow's page names its run: /workflows/<workflow id>/<run id>/...
  const opened = new RegExp(`/workflows/${encodeURIComponent(workflowId)}/([^/?]+)`);
  await page.waitForURL(opened);
  const runId = opened.exec(page.url())![1];
  return `${workflows}/${encodeURIComponent(workflowId)}/${runId}/history?sort=ascending`;
}

/** The first event of the history at `historyUrl` (the order's start, with the request), opened: its text as shown. */
export async function startedEvent(page: Page, historyUrl: string): Promise<string> {
  await page.goto(historyUrl);
  const first = page.getByTestId('event-summary-row').first();
  await first.waitFor();
  await first.click();
  const details = page.getByTestId('event-summary-table');
  await details.getByText('Original Execution Run ID').waitFor();
  // Decoding is asynchronous: wait for it to have answered, either way.
  await page
    .locator('[data-testid="data-encoder-status-error"], [data-testid="data-encoder-status-success"]')
    .waitFor();
  await page.waitForLoadState('networkidle');
  return details.innerText();
}
