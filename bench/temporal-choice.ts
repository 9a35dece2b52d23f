/**
 * `--temporal start-dev|cluster|both` of the benches: which Temporal they run on. `start-dev` is Temporal's
 * single-process server on SQLite (bench/temporal.ts), `cluster` the production-shaped cluster on PostgreSQL
 * (bench/cluster.ts), `both` each in turn in one invocation, so that their figures come from one run.
 */
export const TEMPORAL_KINDS = ['start-dev', 'cluster'] as const;
export type TemporalKind = (typeof TEMPORAL_KINDS)[number];

/** `--temporal`'s line of a bench's usage, in its columns. */
export const TEMPORAL_OPTION_HELP = `--temporal <kind>       start-dev (default: Temporal's single process, SQLite), cluster (a frontend, 2 history,
                          2 matching and a worker service, 16 shards, PostgreSQL) or both (each in turn)`;

/** The kinds `--temporal` names, in the order they run; a clear error for anything else. */
export function temporalKinds(value: string | undefined): TemporalKind[] {
  const text = value?.trim() || 'start-dev';
  if (text === 'both') return [...TEMPORAL_KINDS];
  if ((TEMPORAL_KINDS as readonly string[]).includes(text)) return [text as TemporalKind];
  throw new Error(`--temporal must be start-dev, cluster or both, not ${text}`);
}
