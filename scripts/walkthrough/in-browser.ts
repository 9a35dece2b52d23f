/**
 * The walk-through's look at `npm start` in a browser (Debian's chromium): every console page a seeded user reaches
 * fits a laptop and a phone, and ops read an order in the Temporal Web UI decoded, with nothing set in the UI.
 */
import type { Browser, Page } from 'playwright-core';
import { describeFitProblems, pageFitProblems } from '../page-fit.js';
import { historyInWebUi, startedEvent } from '../web-ui.js';
import { call, exampleRequest, orderWhen, simulator, userWith, type Order } from './change-of-course.js';
import type { DevState } from './npm-start.js';
import { StepFailure, type StepResult } from './shell.js';

const VIEWPORTS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

type DevUser = DevState['users'][number];

/** Signs `user` in with dev's one-click sign-in; false when the sign-in page offers no button for them. */
async function signIn(page: Page, state: DevState, user: string): Promise<boolean> {
  await page.goto(`${state.http.url}/sign-in`);
  const button = page.getByTestId(`sign-in-${user}`);
  if ((await button.count()) === 0) return false;
  await button.click();
  await page.getByTestId('signed-in-as').filter({ hasText: user }).waitFor();
  return true;
}

/** The API as `user`: the body of a GET, as JSON. */
async function apiGet<T>(state: DevState, user: DevUser, path: string): Promise<T> {
  const answer = await fetch(`${state.http.url}${path}`, { headers: { authorization: `Bearer ${user.token}` } });
  if (!answer.ok) throw new StepFailure(`GET ${path} as ${user.id} answered ${answer.status}`, await answer.text());
  return (await answer.json()) as T;
}

/** The pages `user` reaches: home, the ops view, and one order of each state they can see. */
async function pagesOf(state: DevState, user: DevUser): Promise<string[]> {
  const { orders } = await apiGet<{ orders: Array<{ orderId: string; state: string }> }>(
    state,
    user,
    '/api/v1/orders?limit=100',
  );
  const byState = new Map(orders.map((order) => [order.state, order.orderId]));
  return ['/', '/ops', ...[...byState.values()].map((orderId) => `/orders/${encodeURIComponent(orderId)}`)];
}

/** Every page each seeded user reaches, and the sign-in page, at 1280×800 and 390×844: nothing wider than the window. */
export async function consoleFits(browser: Browser, state: DevState): Promise<StepResult> {
  const problems: string[] = [];
  let checked = 0;
  const users: string[] = [];
  for (const viewport of VIEWPORTS) {
    const size = `${viewport.width}×${viewport.height}`;
    for (const user of state.users) {
      const context = await browser.newContext({ viewport });
      try {
        const page = await context.newPage();
        if (!(await signIn(page, state, user.id))) continue;
        if (!users.includes(user.id)) users.push(user.id);
        for (const path of await pagesOf(state, user)) {
          await page.goto(`${state.http.url}${path}`);
          const found = await pageFitProblems(page);
          checked += 1;
          if (found.length > 0) problems.push(`${user.id} ${path} at ${size}:\n${describeFitProblems(found)}`);
        }
      } finally {
        await context.close();
      }
    }
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await page.goto(`${state.http.url}/sign-in`);
    const found = await pageFitProblems(page);
    checked += 1;
    if (found.length > 0) problems.push(`/sign-in at ${size}:\n${describeFitProblems(found)}`);
    await context.close();
  }
  if (users.length === 0) throw new StepFailure('the sign-in page offers none of the seeded users');
  if (problems.length > 0)
    throw new StepFailure(`${problems.length} of ${checked} pages do not fit`, problems.join('\n'));
  return { note: `${checked} pages, as ${users.join(', ')}` };
}

/** dev.json's Temporal, with what the Web UI step needs of it. */
interface WebUi {
  uiUrl: string;
  namespace: string;
}

function webUiOf(state: DevState): WebUi {
  const { uiUrl, namespace } = state.temporal as { uiUrl?: string; namespace?: string };
  if (!uiUrl || !namespace) throw new StepFailure('dev.json names no Temporal Web UI (temporal.uiUrl, namespace)');
  return { uiUrl, namespace };
}

/**
 * Ops, signed in to the console, open the order of `ticketId` in the Temporal Web UI, as the README says: its first
 * event shows the request decoded, its secrets redacted, with nothing set in the UI.
 */
export async function webUiDecodes(browser: Browser, state: DevState, ticketId: string): Promise<StepResult> {
  const ops = state.users.find((user) => user.roles.includes('ops'));
  if (!ops) throw new StepFailure('dev.json names no user with the ops role');
  const { uiUrl, namespace } = webUiOf(state);
  const { orderId } = await apiGet<{ orderId: string }>(state, ops, `/api/v1/orders/${encodeURIComponent(ticketId)}`);
  const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
  try {
    const page = await context.newPage();
    if (!(await signIn(page, state, ops.id))) throw new StepFailure(`the sign-in page offers no ${ops.id}`);
    const text = await startedEvent(page, await historyInWebUi(page, { uiUrl, namespace, ticketId, orderId }));
    const decoded = text.includes(`"ticketId": "${ticketId}"`);
    const redacted = /"sshPublicKey": "\[redacted\]"/.test(text) && !/ssh-rsa AAAA/.test(text);
    if (!decoded || !redacted)
      throw new StepFailure(`the start of ${orderId} is not shown decoded with its secrets redacted`, text);
    return { note: `${orderId}: the request decoded, its secrets [redacted]`, output: text };
  } finally {
    await context.close();
  }
}

/**
 * fiona approves an order in the console as its price rises 10 % (the simulator's prices): the check before buying
 * sends it back for approval at the new price, and the notice after her vote says so, not that it goes on to be bought.
 */
export async function reQuoteNotice(browser: Browser, state: DevState, clone: string): Promise<StepResult> {
  const requester = userWith(state, 'requester');
  const approver = state.users.find((user) => user.id === 'fiona') ?? userWith(state, 'finance-approver');
  const ops = userWith(state, 'ops');
  const sim = simulator(state);
  // alice orders for herself, as the README's curl does: no requestedBy.
  const request: Record<string, unknown> = { ...exampleRequest(clone), ticketId: 'WALK-REQUOTE', size: 'MVE 16/64' };
  delete request['requestedBy'];
  const { order } = (await call(`${state.http.url}/api/v1/orders`, {
    method: 'POST',
    token: requester.token,
    body: JSON.stringify(request),
  })) as { order: Order };
  await orderWhen(state, ops, order.orderId, (now) => now.state === 'AWAITING_APPROVAL');
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    if (!(await signIn(page, state, approver.id))) throw new StepFailure(`the sign-in page offers no ${approver.id}`);
    await page.goto(`${state.http.url}/orders/${encodeURIComponent(order.orderId)}`);
    await call(`${sim}/_sim/prices`, { method: 'POST', body: JSON.stringify({ factor: 1.1 }) });
    await page.getByTestId('approve-button').click();
    const notice = page.getByTestId('flash');
    // The notice follows the order as the page refreshes: the check before buying takes a moment.
    await notice.filter({ hasText: 'back in AWAITING_APPROVAL' }).waitFor({ timeout: 120_000 });
    const text = await notice.innerText();
    const kind = (await notice.getAttribute('class')) ?? '';
    if (/goes on to be bought/.test(text) || !kind.includes('info'))
      throw new StepFailure(`the notice after the vote reads "${text}" (class ${kind})`);
    return { note: text };
  } catch (error) {
    if (error instanceof StepFailure) throw error;
    throw new StepFailure(`no notice saying the order is back in AWAITING_APPROVAL: ${String(error)}`);
  } finally {
    await call(`${sim}/_sim/prices`, { method: 'POST', body: JSON.stringify({ factor: 1 }) });
    await context.close();
  }
}
