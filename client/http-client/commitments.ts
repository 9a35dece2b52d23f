// `GET /api/v1/commitments` as a caller asks it; the answer's types are its schema's (client/http/schemas.ts).

/** Which commitments: the environment's (production by default), in a month (`YYYY-MM`), of a team, in a currency. */
export interface CommitmentsQuery {
  environment?: 'staging' | 'production';
  month?: string;
  team?: string;
  currency?: string;
  /** Orders behind the figures per page (JSON: at most 500; CSV: at most 10,000). */
  limit?: number;
  cursor?: string;
  /** Renewals: the terms ending within this many days of `asOf` (1 to 366; default 90). */
  renewalDays?: number;
}

export type { CommittedOrder, Commitments, Renewal, TeamCommitmentFigures } from '../http/schemas.js';

/** The orders behind the figures as the API's CSV, and the cursor of the rows after them (null: none). */
export interface CommitmentsCsv {
  csv: string;
  nextCursor: string | null;
}
