import type { Sql } from '../connection.js';
import { RepositoryError } from '../errors.js';
import { runKey, text } from '../schemas.js';
import { operation } from '../validate.js';

/** A run the workers admitted: the chain's first run, or the one run that continued from an admitted run. */
export interface AdmittedRun {
  workflowId: string;
  runId: string;
  firstRunId: string;
  continuedFromRunId: string | null;
}

export type AdmitRunOutcome =
  | { admitted: true }
  /** Another run is admitted in this run's place: the run after `continuedFromRunId` (or the first) already is. */
  | { admitted: false; holder: string };

/** Each ticket's one line of runs the workers act for. */
export interface AdmittedRuns {
  /**
   * Admits a run into its chain's one line of runs, once: `admitted: false` names the run already admitted in its
   * place. Admitting an admitted run again is a no-op.
   */
  admitRun(input: AdmittedRun): Promise<AdmitRunOutcome>;
  /** The admitted run, or null when the workers never admitted it. */
  getAdmittedRun(input: { workflowId: string; runId: string }): Promise<AdmittedRun | null>;
  /** The chain's latest admitted run (the one no admitted run continued from), or null when none was admitted. */
  latestAdmittedRun(workflowId: string): Promise<AdmittedRun | null>;
  /** When the workers began to admit runs here (migration 0018 applied); null before it. */
  admissionsSince(): Promise<Date | null>;
}

/** An `admitted_runs` row. */
interface AdmittedRunRow {
  workflow_id: string;
  run_id: string;
  first_run_id: string;
  continued_from_run_id: string | null;
}

const admittedRunInput = runKey.extend({ firstRunId: text(255), continuedFromRunId: text(255).nullable() });

export function createAdmittedRuns(sql: Sql): AdmittedRuns {
  return {
    admitRun: (input) =>
      operation('admitRun', admittedRunInput, input, async (run) => {
        const [inserted] = await sql`
          INSERT INTO admitted_runs (workflow_id, run_id, first_run_id, continued_from_run_id)
          VALUES (${run.workflowId}, ${run.runId}, ${run.firstRunId}, ${run.continuedFromRunId})
          ON CONFLICT DO NOTHING RETURNING 1`;
        if (inserted) return { admitted: true };
        const [holder] = await sql<Array<Pick<AdmittedRunRow, 'run_id'>>>`
          SELECT run_id FROM admitted_runs WHERE workflow_id = ${run.workflowId}
            AND (run_id = ${run.runId} OR coalesce(continued_from_run_id, '') = ${run.continuedFromRunId ?? ''})
          ORDER BY run_id = ${run.runId} DESC LIMIT 1`;
        if (!holder) throw new RepositoryError('conflict', `admitRun: run ${run.runId} could not be admitted`);
        return holder.run_id === run.runId ? { admitted: true } : { admitted: false, holder: holder.run_id };
      }),

    getAdmittedRun: (input) =>
      operation('getAdmittedRun', runKey, input, async ({ workflowId, runId }) => {
        const [row] = await sql<AdmittedRunRow[]>`
          SELECT * FROM admitted_runs WHERE workflow_id = ${workflowId} AND run_id = ${runId}`;
        return row ? toAdmittedRun(row) : null;
      }),

    latestAdmittedRun: (workflowId) =>
      operation('latestAdmittedRun', text(300), workflowId, async (id) => {
        const [row] = await sql<AdmittedRunRow[]>`
          SELECT * FROM admitted_runs a WHERE a.workflow_id = ${id}
            AND NOT EXISTS (SELECT 1 FROM admitted_runs b WHERE b.workflow_id = a.workflow_id
                                                           AND b.continued_from_run_id = a.run_id)`;
        return row ? toAdmittedRun(row) : null;
      }),

    admissionsSince: async () => {
      const [row] = await sql<Array<{ applied_at: Date }>>`
        SELECT applied_at FROM schema_migrations WHERE name = '0018_activity_evidence.sql'`;
      return row ? row.applied_at : null;
    },
  };
}

function toAdmittedRun(row: AdmittedRunRow): AdmittedRun {
  return {
    workflowId: row.workflow_id,
    runId: row.run_id,
    firstRunId: row.first_run_id,
    continuedFromRunId: row.continued_from_run_id ?? null,
  };
}
