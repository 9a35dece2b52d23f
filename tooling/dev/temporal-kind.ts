/**
 * Which Temporal dev starts (`--temporal`): Temporal's single-process server, `temporal server start-dev` (the default),
 * or a cluster shaped like production, each service a process of its own, its state in PostgreSQL
 * (tooling/temporal/cluster). Light on purpose: the dev command validates its option with it before anything loads.
 */
export const DEV_TEMPORAL_KINDS = ['start-dev', 'cluster'] as const;
export type DevTemporalKind = (typeof DEV_TEMPORAL_KINDS)[number];

/** The kind named, or an error that lists the kinds. */
export function devTemporalKind(value: string): DevTemporalKind {
  if ((DEV_TEMPORAL_KINDS as readonly string[]).includes(value)) return value as DevTemporalKind;
  throw new Error(`--temporal must be one of ${DEV_TEMPORAL_KINDS.join(', ')}: not ${JSON.stringify(value)}`);
}
