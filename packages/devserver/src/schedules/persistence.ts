/**
 * Schedules in the durable store (../persistence/postgres-store.ts): the table's rows (namespace, schedule id,
 * the schedule's JSON record), the marks of what changed, and one commit's writes — taken in the same instant
 * and the same transaction as the runs', so a started workflow and the schedule that started it are written
 * together; put back when the commit fails.
 */
import type postgres from 'postgres';
import type { StoredSchedule } from '../store.js';

type Key = string;
interface Mark {
  namespace: string;
  scheduleId: string;
  record?: () => object;
}

const keyOf = (namespace: string, scheduleId: string): Key => `${namespace}\u0000${scheduleId}`;

export interface ScheduleWrites {
  empty: boolean;
  queries(tx: postgres.TransactionSql, table: postgres.Helper<string>): postgres.PendingQuery<postgres.Row[]>[];
  /** The commit failed: the marks go back (unless changed since), for the next commit. */
  restore(): void;
}

export class ScheduleRows {
  private readonly changed = new Map<Key, Mark>();
  private readonly deleted = new Map<Key, Mark>();
  /** What the store found on open. */
  loaded: StoredSchedule[] = [];

  markChanged(namespace: string, scheduleId: string, record: () => object): void {
    const key = keyOf(namespace, scheduleId);
    this.deleted.delete(key);
    this.changed.set(key, { namespace, scheduleId, record });
  }

  markDeleted(namespace: string, scheduleId: string): void {
    const key = keyOf(namespace, scheduleId);
    this.changed.delete(key);
    this.deleted.set(key, { namespace, scheduleId });
  }

  get pending(): boolean {
    return this.changed.size > 0 || this.deleted.size > 0;
  }

  /** Takes every mark, and the records as they are now. */
  take(): ScheduleWrites {
    const changed = [...this.changed];
    const deleted = [...this.deleted];
    this.changed.clear();
    this.deleted.clear();
    const rows = changed.map(([, mark]) => ({
      namespace: mark.namespace,
      schedule_id: mark.scheduleId,
      state: mark.record!(),
    }));
    return {
      empty: !rows.length && !deleted.length,
      queries: (tx, table) => [
        ...deleted.map(
          ([, { namespace, scheduleId }]) =>
            tx`DELETE FROM ${table} WHERE namespace = ${namespace} AND schedule_id = ${scheduleId}`,
        ),
        ...rows.map(
          (row) => tx`
            INSERT INTO ${table} (namespace, schedule_id, state) VALUES (${row.namespace}, ${row.schedule_id}, ${tx.json(row.state as postgres.JSONValue)})
            ON CONFLICT (namespace, schedule_id) DO UPDATE SET state = excluded.state`,
        ),
      ],
      restore: () => {
        for (const [key, mark] of changed)
          if (!this.changed.has(key) && !this.deleted.has(key)) this.changed.set(key, mark);
        for (const [key, mark] of deleted)
          if (!this.changed.has(key) && !this.deleted.has(key)) this.deleted.set(key, mark);
      },
    };
  }

  async load(sql: postgres.Sql, table: postgres.Helper<string>): Promise<void> {
    const rows = await sql<
      { namespace: string; schedule_id: string; state: object }[]
    >`SELECT namespace, schedule_id, state FROM ${table} ORDER BY namespace, schedule_id`;
    this.loaded = rows.map((row) => ({ namespace: row.namespace, scheduleId: row.schedule_id, record: row.state }));
  }
}
