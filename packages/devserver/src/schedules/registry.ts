/**
 * The server's schedules, by namespace and id: created, found, deleted (or gone after their retention), listed
 * newest first, written to a durable store whenever they change, and brought back from it on start — where each
 * catches up on the action times it missed while the server was down, within its catchup window.
 */
import type { EngineContext } from '../engine/context.js';
import { notFound } from '../errors.js';
import type { StoredSchedule } from '../store.js';
import { fromRecord, toRecord } from './record.js';
import type { ScheduleRecord } from './record.js';
import { Scheduler } from './scheduler.js';
import type { ScheduleData, SchedulePatch, SchedulerHost } from './scheduler.js';

const key = (namespace: string, scheduleId: string) => `${namespace}\u0000${scheduleId}`;

export class Schedules {
  private readonly byKey = new Map<string, Scheduler>();
  private readonly host: SchedulerHost;

  constructor(private readonly ctx: EngineContext) {
    this.host = {
      ctx,
      changed: (scheduler) => {
        const { namespace, scheduleId } = scheduler.data;
        ctx.store.scheduleChanged?.(namespace, scheduleId, () => toRecord(scheduler.data));
      },
      expired: (scheduler) => this.delete(scheduler),
    };
  }

  get(namespace: string, scheduleId: string): Scheduler | undefined {
    return this.byKey.get(key(namespace, scheduleId));
  }

  /** NOT_FOUND when there is no such schedule. */
  require(namespace: string, scheduleId: string): Scheduler {
    const scheduler = this.get(namespace, scheduleId);
    if (!scheduler) throw notFound('schedule not found');
    return scheduler;
  }

  /** A new schedule takes its first pass at once, with the create request's patch (trigger, backfills). */
  create(data: ScheduleData, initialPatch?: SchedulePatch): Scheduler {
    const scheduler = new Scheduler(data, this.host);
    this.byKey.set(key(data.namespace, data.scheduleId), scheduler);
    scheduler.wake(initialPatch ? { patch: initialPatch } : {});
    return scheduler;
  }

  delete(scheduler: Scheduler): void {
    const { namespace, scheduleId } = scheduler.data;
    scheduler.stop();
    this.byKey.delete(key(namespace, scheduleId));
    this.ctx.store.scheduleDeleted?.(namespace, scheduleId);
  }

  /** A namespace's schedules, the newest first (the real server's visibility order). */
  inNamespace(namespace: string): Scheduler[] {
    return [...this.byKey.values()]
      .filter((s) => s.data.namespace === namespace)
      .sort((a, b) => b.data.createTime - a.data.createTime);
  }

  /** Brings back the schedules a durable store kept; each catches up at once. */
  resume(stored: StoredSchedule[]): number {
    for (const { record } of stored) {
      const scheduler = new Scheduler(fromRecord(record as ScheduleRecord), this.host);
      this.byKey.set(key(scheduler.data.namespace, scheduler.data.scheduleId), scheduler);
    }
    for (const scheduler of this.byKey.values()) scheduler.wake();
    return stored.length;
  }

  /** Server shutdown: no more timers or watches. */
  stop(): void {
    for (const scheduler of this.byKey.values()) scheduler.stop();
  }
}
