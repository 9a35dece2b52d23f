import type { ApiClient, ApiConfig } from '../../../infra/ordering-api/index.js';
import { devDataDir, readDevState } from '../dev-state.js';
import { NotConfiguredError } from '../settings.js';

const CATALOG_VARIABLES = 'MVE_API_BASE_URL, MVE_AUTH_URL, MVE_ENVIRONMENT, MVE_CLIENT_ID and MVE_CLIENT_SECRET';

/** The ordering API whose catalog `locations` and `images` list, and how the listing names it. */
export interface CatalogSource {
  config: ApiConfig;
  /** e.g. "the simulator of the running mve-orders dev (http://127.0.0.1:4010/staging)". */
  describe: string;
}

/**
 * The API configured by the MVE_* variables when MVE_API_BASE_URL is set; otherwise the simulator of the
 * `mve-orders dev` running on this data folder, with its Read Only key (from dev.json). A dev that uses a real
 * ordering API keeps that API's key to itself, so listing its catalog needs the variables.
 */
export async function catalogSource(env: NodeJS.ProcessEnv): Promise<CatalogSource> {
  const { ApiConfigError, loadApiConfig } = await import('../../../infra/ordering-api/index.js');
  const fromVariables = (): CatalogSource => {
    const config = loadApiConfig(env);
    return { config, describe: `${config.baseUrl} (MVE_API_BASE_URL)` };
  };
  if (env['MVE_API_BASE_URL']?.trim()) return fromVariables();
  const lookup = await readDevState(devDataDir(env));
  if (lookup.found) {
    const { api, pid } = lookup.state;
    if (!api.catalogKey) {
      throw new NotConfiguredError(
        `the running mve-orders dev (pid ${pid}) orders from ${api.baseUrl}, whose key it does not share; set ${CATALOG_VARIABLES} to list that API's catalog`,
      );
    }
    const config = loadApiConfig({
      MVE_API_BASE_URL: api.baseUrl,
      MVE_AUTH_URL: api.catalogKey.authUrl,
      MVE_ENVIRONMENT: api.environment,
      MVE_CLIENT_ID: api.catalogKey.clientId,
      MVE_CLIENT_SECRET: api.catalogKey.clientSecret,
    });
    return { config, describe: `the simulator of the running mve-orders dev (${api.baseUrl})` };
  }
  try {
    return fromVariables();
  } catch (error) {
    if (!(error instanceof ApiConfigError)) throw error;
    throw new NotConfiguredError(
      `no ordering API to list: no mve-orders dev is running (start one with \`npm start\`: its simulator is listed), and ${error.message.replace(/^The/, 'the')}`,
    );
  }
}

/** Runs `use` with a client of the catalog's API (see catalogSource), closing it afterwards. */
export async function withCatalogClient<T>(use: (client: ApiClient, source: CatalogSource) => Promise<T>): Promise<T> {
  const source = await catalogSource(process.env);
  const { createApiClient } = await import('../../../infra/ordering-api/index.js');
  const client = createApiClient({ config: source.config });
  try {
    return await use(client, source);
  } finally {
    client.close();
  }
}
