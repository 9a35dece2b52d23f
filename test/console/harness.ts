/**
 * The console in front of the real engine and API (test/helpers/api.ts), and a real browser: Debian's
 * chromium driven by playwright-core. The console is registered on its own fastify instance whose API
 * target is the engine's API app (registerConsole's `api` option), since buildApiServer's app is already
 * ready; `console-http.test.ts` checks the console registered on the same app as the API routes too.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { registerConsole, SessionStore } from '../../client/console/index.js';
import { startApiEngine, TEST_USERS, type ApiEngine, type TestUser } from '../helpers/api.js';
import type { EngineOptions } from '../helpers/orders.js';
import type { TestPostgres } from '../helpers/postgres.js';
import { simulatorPortal } from '../../tooling/dev/api.js';
import { launchChromium } from '../../scripts/chromium.js';
import { describeFitProblems, pageFitProblems } from '../../scripts/page-fit.js';

export { CHROMIUM, launchChromium } from '../../scripts/chromium.js';

/** The dev users the sign-in page offers: the test users, `aliceApprover` as `alice-approver`. */
export function devUsersOf(api: ApiEngine) {
  return (Object.keys(TEST_USERS) as TestUser[]).map((user) => ({
    id: user === 'aliceApprover' ? 'alice-approver' : user,
    roles: [...TEST_USERS[user]],
    token: api.tokens[user],
  }));
}

export interface ConsoleHarness {
  api: ApiEngine;
  app: FastifyInstance;
  url: string;
  /** The console's clock is the wall clock plus this (deadlines seen from later). */
  clock: { offsetMs: number };
  browser?: Browser;
  stop(): Promise<void>;
}

/** The console's sessions in the engine's PostgreSQL, sealed with its codec keys, as `serve` keeps them. */
export function sessionsOf(api: ApiEngine): SessionStore {
  return new SessionStore({ rows: api.repository, keys: api.keyring });
}

export async function startConsole(
  pg: TestPostgres,
  options: {
    browser?: boolean;
    worker?: boolean;
    engine?: EngineOptions;
    /** Link the console to the simulator's state as "the provider's portal", as `mve-orders dev` does. */
    simulatorPortal?: boolean;
  } = {},
): Promise<ConsoleHarness> {
  const api = await startApiEngine(pg, { ...options.engine, worker: options.worker ?? true });
  const app = Fastify({ logger: false });
  const clock = { offsetMs: 0 };
  await registerConsole(app, api.context, {
    sessions: sessionsOf(api),
    api: api.app,
    devUsers: devUsersOf(api),
    secureCookies: false,
    now: () => Date.now() + clock.offsetMs,
    ...(options.simulatorPortal ? { providerPortal: simulatorPortal(api.sim.url) } : {}),
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const browser = options.browser === false ? undefined : await launchChromium();
  return {
    api,
    app,
    url,
    clock,
    ...(browser ? { browser } : {}),
    async stop() {
      await browser?.close().catch(() => undefined);
      await app.close();
      await api.stop();
    },
  };
}

/** The sizes the console is checked at: a laptop's, and a phone's (CSS pixels). */
export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

export interface Browsing {
  context: BrowserContext;
  page: Page;
  /** What the page reported in its console as errors (Content-Security-Policy violations among them), and uncaught exceptions. */
  problems: string[];
}

/** A browser context (its own cookies) on the sign-in page, its console errors collected. */
export async function signInPage(
  harness: ConsoleHarness,
  options: { javaScriptEnabled?: boolean; viewport?: keyof typeof VIEWPORTS } = {},
): Promise<Browsing> {
  const context = await harness.browser!.newContext({
    viewport: VIEWPORTS[options.viewport ?? 'desktop'],
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`${message.location().url || page.url()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`${page.url()}: uncaught ${error.message}`));
  await page.goto(`${harness.url}/sign-in`);
  return { context, page, problems };
}

/** A browser context (its own cookies) signed in as `user` through the dev sign-in page. */
export async function signedIn(
  harness: ConsoleHarness,
  user: string,
  options: { javaScriptEnabled?: boolean; viewport?: keyof typeof VIEWPORTS } = {},
): Promise<Browsing> {
  const browsing = await signInPage(harness, options);
  const { page } = browsing;
  await page.getByTestId(`sign-in-${user}`).click();
  await page
    .getByTestId('signed-in-as')
    .filter({ hasText: user === 'alice-approver' ? 'alice' : user })
    .waitFor();
  return browsing;
}

export { waitForApiState } from '../helpers/api.js';

/** What the tests read of an element in the page: they are compiled without the DOM's types. */
export interface PageElement {
  getAttribute(name: string): string | null;
  lastElementChild: { textContent: string | null } | null;
}

/** The `name` attribute of every element `locator` finds, read at once in the page. */
export function attributesOf(locator: Locator, name: string): Promise<Array<string | null>> {
  return locator.evaluateAll(
    (elements: PageElement[], attribute: string) => elements.map((element) => element.getAttribute(attribute)),
    name,
  );
}

/**
 * What of the page does not fit its window (scripts/page-fit.ts: the page, each table's container, each table cell), one
 * line each; '' when it all fits.
 */
export async function misfits(page: Page): Promise<string> {
  return describeFitProblems(await pageFitProblems(page));
}

/**
 * Where screenshots go: docs/screenshots when CONSOLE_SCREENSHOTS=1 (or a folder it names), else nowhere. `name`
 * may name a subfolder (`pages/inbox-phone.png`).
 */
export function screenshotPath(name: string): string | undefined {
  const setting = process.env['CONSOLE_SCREENSHOTS'];
  if (!setting) return undefined;
  const file = path.join(setting === '1' ? path.resolve('docs/screenshots') : path.resolve(setting), name);
  mkdirSync(path.dirname(file), { recursive: true });
  return file;
}

/** A tiny browser: one cookie jar, no redirects followed. */
export class Client {
  cookies = new Map<string, string>();
  constructor(readonly base: string) {}
  async request(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}) {
    const response = await fetch(this.base + path, {
      method,
      redirect: 'manual',
      headers: {
        ...(this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair.split('=');
      if (/Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: response.status, headers: response.headers, text: await response.text() };
  }
  csrf(text: string): string {
    const match = /name="_csrf" value="([^"]+)"/.exec(text);
    if (!match) throw new Error('no CSRF field on the page');
    return match[1];
  }
  async signIn(user: string): Promise<void> {
    const page = await this.request('GET', '/sign-in');
    const answer = await this.request('POST', '/sign-in/dev', { _csrf: this.csrf(page.text), user, next: '/' });
    if (answer.status !== 303) throw new Error(`sign-in as ${user}: ${answer.status} ${answer.text}`);
  }
}
