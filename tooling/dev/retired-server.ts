/**
 * The Temporal-compatible server dev embedded until it ran Temporal's own: retired since, its code gone. An earlier dev
 * left its state in a schema of its own in dev's database, holding the tables RETIRED_TABLES (earlier-orders.ts finds
 * it by them: the schema's name could be chosen).
 */
export const RETIRED_TABLES = ['namespaces', 'executions', 'history_events'] as const;
/** The last commit whose dev ran that server (`npm start -- --temporal embedded`): where its orders can be finished. */
export const LAST_EMBEDDED_COMMIT = 'a1ac6c9';
