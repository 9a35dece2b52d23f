/**
 * One value loaded on demand and kept for `ttlMs`. Callers that miss at the same time share one load;
 * a failed load is not kept, so the next caller tries again.
 */
export class SharedTtlCache<T> {
  #value: { data: T; expiresAt: number } | undefined;
  #loading: Promise<T> | undefined;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<T> {
    if (this.#value && this.now() < this.#value.expiresAt) return Promise.resolve(this.#value.data);
    this.#loading ??= this.load()
      .then((data) => {
        this.#value = { data, expiresAt: this.now() + this.ttlMs };
        return data;
      })
      .finally(() => {
        this.#loading = undefined;
      });
    return this.#loading;
  }

  /** Milliseconds since the value now held was loaded (Infinity when none is held). */
  age(): number {
    return this.#value ? this.now() - (this.#value.expiresAt - this.ttlMs) : Number.POSITIVE_INFINITY;
  }

  /** The next get() loads afresh (e.g. after the catalog said an id does not exist). */
  invalidate(): void {
    this.#value = undefined;
  }
}
