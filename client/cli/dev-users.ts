// Apart from their tokens (./users.ts), so that the CLI's help can name them without loading the HTTP API.
/** The people and systems of `mve-orders dev`, each with an API token kept for the data folder's life (dev only). */
export const DEV_USERS = [
  { id: 'alice', roles: ['requester'] },
  { id: 'fiona', roles: ['finance-approver'] },
  { id: 'dave', roles: ['finance-director'] },
  { id: 'olga', roles: ['ops'] },
  { id: 'ticket-bot', roles: ['ticket-system'] },
] as const;
