/**
 * Task matching: one FIFO queue per (kind, namespace, task queue). A task is a function that builds the
 * poll response at hand-over time, or returns null when it has gone stale (its run closed, the attempt
 * moved on); stale tasks are skipped. Polls with nothing to take wait (long poll) and are answered empty
 * when the long-poll window ends; a poll its caller abandoned is dropped so no task goes to a dead poller.
 * A queue remembers when it was last polled, so that a sticky queue whose worker has gone can be passed over.
 */
/** `sticky`: a worker's own workflow task queue, for the runs it has cached (see engine/sticky.ts). */
export type TaskKind = 'workflow' | 'activity' | 'sticky';
export type Task<R> = (pollerIdentity: string) => R | null;

interface Poller<R> {
  identity: string;
  deliver(response: R): void;
  answerEmpty(): void;
}

class TaskQueue<R> {
  readonly tasks: Task<R>[] = [];
  readonly pollers: Poller<R>[] = [];
  /** When a poll last arrived or ended (real time): whether a worker is still there. */
  lastPollAt = 0;
}

export interface PollOptions {
  identity: string;
  /** Called when the caller goes away, to drop the poll. */
  onCancel(listener: () => void): void;
}

export class Matching {
  private readonly queues = new Map<string, TaskQueue<unknown>>();
  private readonly idleAnswers = new Set<() => void>();

  constructor(private readonly longPollMs: number) {}

  offer<R>(kind: TaskKind, namespace: string, queueName: string, task: Task<R>): void {
    const queue = this.queue<R>(kind, namespace, queueName);
    while (queue.pollers.length) {
      const poller = queue.pollers.shift()!;
      const response = task(poller.identity);
      if (response === null) {
        queue.pollers.unshift(poller);
        return;
      }
      poller.deliver(response);
      return;
    }
    queue.tasks.push(task);
  }

  /** Resolves with a task's response, or with `empty` when the long poll ends without one. */
  poll<R>(kind: TaskKind, namespace: string, queueName: string, options: PollOptions, empty: R): Promise<R> {
    const queue = this.queue<R>(kind, namespace, queueName);
    queue.lastPollAt = Date.now();
    while (queue.tasks.length) {
      const response = queue.tasks.shift()!(options.identity);
      if (response !== null) return Promise.resolve(response);
    }
    return new Promise<R>((resolve) => {
      let done = false;
      const finish = (response: R) => {
        if (done) return;
        done = true;
        queue.lastPollAt = Date.now();
        clearTimeout(timer);
        this.idleAnswers.delete(answerEmpty);
        const i = queue.pollers.indexOf(poller);
        if (i >= 0) queue.pollers.splice(i, 1);
        resolve(response);
      };
      const answerEmpty = () => finish(empty);
      const poller: Poller<R> = { identity: options.identity, deliver: finish, answerEmpty };
      const timer = setTimeout(answerEmpty, this.longPollMs);
      this.idleAnswers.add(answerEmpty);
      options.onCancel(answerEmpty);
      queue.pollers.push(poller);
    });
  }

  /** Whether a worker polls the queue now, or did within the last `windowMs`. */
  hasRecentPoller(kind: TaskKind, namespace: string, queueName: string, windowMs: number): boolean {
    const queue = this.queues.get(queueKey(kind, namespace, queueName));
    return queue !== undefined && (queue.pollers.length > 0 || Date.now() - queue.lastPollAt < windowMs);
  }

  /** Drops a queue, its tasks and its worker (a worker shutting down its sticky queue); waiting polls are answered empty. */
  unload(kind: TaskKind, namespace: string, queueName: string): void {
    const key = queueKey(kind, namespace, queueName);
    const queue = this.queues.get(key);
    this.queues.delete(key);
    for (const poller of [...(queue?.pollers ?? [])]) poller.answerEmpty();
  }

  /** Answers every waiting poll empty (server shutdown). */
  releaseAll(): void {
    for (const answer of [...this.idleAnswers]) answer();
  }

  private queue<R>(kind: TaskKind, namespace: string, name: string): TaskQueue<R> {
    const key = queueKey(kind, namespace, name);
    let queue = this.queues.get(key);
    if (!queue) this.queues.set(key, (queue = new TaskQueue<unknown>()));
    return queue as TaskQueue<R>;
  }
}

const queueKey = (kind: TaskKind, namespace: string, name: string) => `${kind}\u0000${namespace}\u0000${name}`;
