/**
 * Long polls on state: a caller waits until a condition on some key holds (new history events, an update
 * reaching a stage) or the wait times out. Changes are announced per key; conditions are re-checked after
 * the current batch of changes, so a waiter sees a complete batch of events.
 */
interface Waiter {
  ready: () => boolean;
  resolve: (timedOut: boolean) => void;
}

export class Watchers {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly dirty = new Set<string>();
  private flushScheduled = false;
  /** Called after each batch of changes is announced (time skipping waits for what the waiters then do). */
  afterAnnounce: () => void = () => {};

  /** Changes are made but not yet announced: a waiter (a schedule watching a run) has still to react. */
  get announcing(): boolean {
    return this.flushScheduled;
  }

  /** Resolves false once `ready()` holds, or true when `timeoutMs` passes first. */
  waitUntil(
    key: string,
    ready: () => boolean,
    timeoutMs: number,
    onCancel?: (listener: () => void) => void,
  ): Promise<boolean> {
    if (ready()) return Promise.resolve(false);
    return new Promise((resolve) => {
      let set = this.waiters.get(key);
      if (!set) this.waiters.set(key, (set = new Set()));
      const waiters = set;
      const finish = (timedOut: boolean) => {
        clearTimeout(timer);
        waiters.delete(waiter);
        if (!waiters.size) this.waiters.delete(key);
        resolve(timedOut);
      };
      const waiter: Waiter = { ready, resolve: finish };
      const timer = setTimeout(() => finish(true), timeoutMs);
      waiters.add(waiter);
      onCancel?.(() => finish(true));
    });
  }

  changed(key: string): void {
    if (!this.waiters.has(key)) return;
    this.dirty.add(key);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      const keys = [...this.dirty];
      this.dirty.clear();
      for (const k of keys) for (const w of [...(this.waiters.get(k) ?? [])]) if (w.ready()) w.resolve(false);
      this.afterAnnounce();
    });
  }

  /** Ends every wait (server shutdown). */
  releaseAll(): void {
    for (const set of [...this.waiters.values()]) for (const w of [...set]) w.resolve(true);
  }
}
