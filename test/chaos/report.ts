/** What both campaigns are given and count, and the pieces of their printed report. */
import type { TemporalKind } from '../topology/temporal-part.js';
import type { OrderState } from '../../domain/lifecycle/index.js';
import type { TestDatabase } from '../helpers/postgres.js';

export interface ChaosOptions {
  seed: number;
  /** How long faults, kills and submissions go on (the drain afterwards is bounded separately). */
  seconds: number;
  orders: number;
  /** A migrated database (campaign.ts only); by default one is made on an embedded PostgreSQL (or DATABASE_URL). */
  db?: TestDatabase;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** Upper bound of the drain after the campaign, in seconds (default 150; 300 with --topology). */
  drainSeconds?: number;
  /** With --topology: Temporal's kind (default: TOPOLOGY_TEMPORAL, else start-dev). */
  temporal?: TemporalKind;
}

export interface ChaosTally {
  seed: number;
  seconds: number;
  orders: number;
  sizes: Record<string, number>;
  bought: number;
  finalStates: Partial<Record<OrderState, number>>;
  faults: Record<string, number>;
  workerKills: number;
  buyInFlightKills: number;
  uncertainResolved: { created: number; notCreated: number };
  /** Votes the engine took. */
  votes: number;
  /** Votes sent again after an attempt whose answer was lost, which the engine had already counted. */
  votesAlreadyCounted: number;
  resent: number;
  startedAgain: number;
  doubleBuys: number;
  lost: number;
  unsettled: number;
  problems: string[];
  elapsedSeconds: number;
}

export function newTally(options: { seed: number; seconds: number; orders: number }): ChaosTally {
  return {
    seed: options.seed,
    seconds: options.seconds,
    orders: options.orders,
    sizes: {},
    bought: 0,
    finalStates: {},
    faults: {},
    workerKills: 0,
    buyInFlightKills: 0,
    uncertainResolved: { created: 0, notCreated: 0 },
    votes: 0,
    votesAlreadyCounted: 0,
    resent: 0,
    startedAgain: 0,
    doubleBuys: 0,
    lost: 0,
    unsettled: 0,
    problems: [],
    elapsedSeconds: 0,
  };
}

export function countOne(record: Record<string, number>, name: string): void {
  record[name] = (record[name] ?? 0) + 1;
}

/** `name count, name count`, or `none`. */
export function list(record: Record<string, number | undefined>): string {
  return (
    Object.entries(record)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ') || 'none'
  );
}

/** The bots' work and how the orders ended. */
export function outcomeLines(tally: ChaosTally): string[] {
  return [
    `votes by the approval bot: ${tally.votes}; uncertain buys resolved by ops: ${tally.uncertainResolved.created} created, ${tally.uncertainResolved.notCreated} not created`,
    `final states: ${list(tally.finalStates)}`,
    `re-sent tickets: ${tally.resent}, started again: ${tally.startedAgain}`,
  ];
}

export function problemLines(tally: ChaosTally): string[] {
  return tally.problems.map((problem) => `  problem: ${problem}`);
}

/** The figures a run is judged by, one a line, values aligned. */
export function countLines(rows: ReadonlyArray<readonly [string, number]>): string[] {
  return rows.map(([label, value]) => `${`${label}:`.padEnd(23)}${value}`);
}
