import { createApiClient, loadApiConfig, type ApiClient } from '../../../infra/ordering-api/index.js';

/** Left-aligned columns under a header, for the catalog listings (`locations`, `images`). */
export function formatTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** Runs `use` with a client of the API configured by MVE_* variables, closing it afterwards. */
export async function withConfiguredClient<T>(use: (client: ApiClient) => Promise<T>): Promise<T> {
  const client = createApiClient({ config: loadApiConfig(process.env) });
  try {
    return await use(client);
  } finally {
    client.close();
  }
}
