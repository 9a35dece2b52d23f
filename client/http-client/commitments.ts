// `GET /api/v1/commitments` as a caller sees it (client/http/schemas.ts, commitmentsResponse, is the server's side).

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

/** Amounts are exact decimal strings, never converted between currencies. */
export interface TeamCommitmentFigures {
  /** null: orders charged to no team. */
  team: string | null;
  name: string | null;
  currency: string;
  runRate: string;
  runningOrders: number;
  approvedThisMonth: string;
  approvedOrders: number;
  /** Approved and not bought yet, in any month: the run-rate cap counts them. */
  approvedNotBought: string;
  budget: { monthlyNew: string | null; runRateCap: string | null };
  /** Budget less what counts against it (the run-rate cap: run-rate and approved not bought); negative when over it. */
  remaining: { monthlyNew: string | null; runRateCap: string | null };
}

export interface CommittedOrder {
  orderId: string;
  ticketId: string;
  team: string | null;
  state: string;
  currency: string;
  monthlyRate: string;
  termMonths: number;
  termTotal: string;
  boughtAt: string | null;
  termEndsAt: string | null;
  approvedAt: string | null;
  inRunRate: boolean;
  approvedThisMonth: boolean;
}

export interface Renewal {
  orderId: string;
  ticketId: string;
  team: string | null;
  currency: string;
  monthlyRate: string;
  termMonths: number;
  boughtAt: string;
  termEndsAt: string;
  daysLeft: number;
}

export interface Commitments {
  environment: 'staging' | 'production';
  month: string;
  timeZone: string;
  monthStart: string;
  monthEnd: string;
  asOf: string;
  teams: TeamCommitmentFigures[];
  orders: CommittedOrder[];
  nextCursor: string | null;
  renewalDays: number;
  renewals: Renewal[];
  moreRenewals: boolean;
}

/** The orders behind the figures as the API's CSV, and the cursor of the rows after them (null: none). */
export interface CommitmentsCsv {
  csv: string;
  nextCursor: string | null;
}
