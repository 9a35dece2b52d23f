/**
 * The Temporal-compatible server dev embedded until it ran Temporal's own: retired since, its code gone. An earlier dev
 * left its state in the schema `devserver` of dev's database (earlier-orders.ts reads it).
 */
export const RETIRED_SCHEMA = 'devserver';
/** The last commit whose dev ran that server (`npm start -- --temporal embedded`): where its orders can be finished. */
export const LAST_EMBEDDED_COMMIT = 'a1ac6c9';
