// The state file's module alone, not client/dev's index: an order command must not load the whole engine.
import { devDataDir, readDevState, type DevState, type DevStateLookup } from './dev-state.js';

/** Nothing to talk to, or no way to say who is asking: the message says what to start or set. The CLI exits 2 on it. */
export class NotConfiguredError extends Error {
  override readonly name = 'NotConfiguredError';
}

export const API_URL_VARIABLE = 'MVE_API_URL';
export const TOKEN_VARIABLE = 'MVE_TOKEN';

export interface ClientSettings {
  /** The mve-orders HTTP API: MVE_API_URL, else the running dev's. */
  apiUrl: string;
  /** The bearer token: the `--as` user's (dev), else MVE_TOKEN; undefined when neither gives one. */
  token: string | undefined;
  /** Where the token came from, for messages: `--as alice`, `MVE_TOKEN`, or none. */
  tokenSource: string | undefined;
  /** The running `mve-orders dev` the settings came from (no MVE_API_URL), if they did. */
  dev: DevState | undefined;
}

export interface ClientSettingsOptions {
  /** `--as <user>`: a seeded user of the running dev, whose token (from dev.json) is used. Dev only. */
  as?: string | undefined;
}

/**
 * How a CLI order command or a script reaches the engine: through the HTTP API, as the holder of a token.
 * With MVE_API_URL set (a real deployment), the token is MVE_TOKEN and `--as` is refused. Without it, the
 * state file of the `mve-orders dev` running on this data folder names the API, and `--as <user>` picks one
 * of its seeded users' tokens; MVE_TOKEN still works there. Nothing here needs Temporal, codec keys or a
 * database.
 */
export async function loadClientSettings(
  env: NodeJS.ProcessEnv = process.env,
  options: ClientSettingsOptions = {},
): Promise<ClientSettings> {
  const as = options.as?.trim() || undefined;
  const envToken = env[TOKEN_VARIABLE]?.trim() || undefined;
  const apiUrl = env[API_URL_VARIABLE]?.trim();
  if (apiUrl) {
    if (as !== undefined) {
      throw new NotConfiguredError(
        `--as ${as} picks a seeded user of \`mve-orders dev\` and works only with it; with ${API_URL_VARIABLE} set, set ${TOKEN_VARIABLE} to your own token (an API token mvo_… from \`mve-orders tokens create\`, or an OIDC access token) instead`,
      );
    }
    checkUrl(apiUrl, API_URL_VARIABLE);
    return { apiUrl, token: envToken, tokenSource: envToken ? TOKEN_VARIABLE : undefined, dev: undefined };
  }
  const lookup = await readDevState(devDataDir(env));
  if (!lookup.found) throw new NotConfiguredError(notRunningMessage(lookup));
  const dev = lookup.state;
  if (!dev.http?.url) {
    throw new NotConfiguredError(
      `the running mve-orders dev (pid ${dev.pid}) has no HTTP API in ${dev.dataDir}/dev.json (it is older than this CLI); restart it with \`npm start\``,
    );
  }
  if (as === undefined)
    return { apiUrl: dev.http.url, token: envToken, tokenSource: envToken ? TOKEN_VARIABLE : undefined, dev };
  const user = (dev.users ?? []).find((candidate) => candidate.id.toLowerCase() === as.toLowerCase());
  if (!user) {
    throw new NotConfiguredError(
      `--as ${as}: no such user in the running mve-orders dev; its users are ${describeDevUsers(dev)}`,
    );
  }
  return { apiUrl: dev.http.url, token: user.token, tokenSource: `--as ${user.id}`, dev };
}

/** What to do when a command needs a token and has none: exactly what to set or add. */
export function missingTokenMessage(settings: ClientSettings): string {
  if (settings.dev) {
    return (
      `say who you are: add --as <user> to act as a seeded user of the running mve-orders dev ` +
      `(${describeDevUsers(settings.dev)}), e.g. --as ${settings.dev.users?.[0]?.id ?? 'alice'}; or set ${TOKEN_VARIABLE} to an API token`
    );
  }
  return `say who you are: set ${TOKEN_VARIABLE} to your token for ${settings.apiUrl} (an API token mvo_… from \`mve-orders tokens create\`, or an OIDC access token)`;
}

/** "alice (requester), fiona (finance-approver), …" */
export function describeDevUsers(dev: DevState): string {
  const users = dev.users ?? [];
  return users.length === 0
    ? '(none: restart it with `npm start`)'
    : users.map((user) => `${user.id} (${user.roles.join(',')})`).join(', ');
}

function checkUrl(url: string, variable: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new NotConfiguredError(
      `${variable} must be the http(s) URL of the mve-orders API, e.g. https://orders.example.com or http://127.0.0.1:8080`,
    );
  }
}

function notRunningMessage(lookup: Exclude<DevStateLookup, { found: true }>): string {
  const start = `start the engine with \`npm start\` (mve-orders dev) in another terminal, or set ${API_URL_VARIABLE} (and ${TOKEN_VARIABLE}) to use a real deployment's API`;
  switch (lookup.reason) {
    case 'absent':
      return `no API to talk to: ${API_URL_VARIABLE} is not set and no mve-orders dev is running (no ${lookup.path}); ${start}`;
    case 'stale':
      return `no API to talk to: the mve-orders dev that wrote ${lookup.path} (pid ${lookup.pid}) is no longer running; ${start}`;
    case 'unreadable':
      return `no API to talk to: ${lookup.path} cannot be read as a dev state file; ${start}`;
  }
}
