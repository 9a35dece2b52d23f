import type { ApiClient } from '../../../infra/ordering-api/index.js';

/** Runs `use` with a client of the API configured by MVE_* variables, closing it afterwards. */
export async function withConfiguredClient<T>(use: (client: ApiClient) => Promise<T>): Promise<T> {
  const { createApiClient, loadApiConfig } = await import('../../../infra/ordering-api/index.js');
  const client = createApiClient({ config: loadApiConfig(process.env) });
  try {
    return await use(client);
  } finally {
    client.close();
  }
}
