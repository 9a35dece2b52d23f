/**
 * A list kept in order, as a B+-tree keeps its leaves: sorted chunks of at most MAX_CHUNK items. Insert and delete
 * cost O(log n + MAX_CHUNK) however long the list is, and reading resumes after any key (a page cursor) in
 * O(log n). Keys must be unique (two items that compare equal are the same item); the list must not change while
 * it is being read.
 */
const MAX_CHUNK = 512;

export class SortedList<T, K> {
  private readonly chunks: T[][] = [];
  private count = 0;

  constructor(
    private readonly keyOf: (item: T) => K,
    private readonly compare: (a: K, b: K) => number,
  ) {}

  get size(): number {
    return this.count;
  }

  insert(item: T): void {
    const key = this.keyOf(item);
    const c = Math.min(this.chunkFrom(key, false), this.chunks.length - 1);
    if (c < 0) {
      this.chunks.push([item]);
    } else {
      const chunk = this.chunks[c]!;
      chunk.splice(this.indexFrom(chunk, key, false), 0, item);
      if (chunk.length > MAX_CHUNK) this.chunks.splice(c + 1, 0, chunk.splice(MAX_CHUNK / 2));
    }
    this.count++;
  }

  /** Takes the item out (found by its key); false when it is not in the list. */
  delete(item: T): boolean {
    const key = this.keyOf(item);
    const c = this.chunkFrom(key, false);
    const chunk = this.chunks[c];
    if (!chunk) return false;
    const i = this.indexFrom(chunk, key, false);
    if (chunk[i] !== item) return false;
    chunk.splice(i, 1);
    if (!chunk.length) this.chunks.splice(c, 1);
    this.count--;
    return true;
  }

  /** The items in order: all of them, or those after `key`. */
  *after(key?: K): Generator<T, void, undefined> {
    let c = key === undefined ? 0 : this.chunkFrom(key, true);
    let i = key === undefined || c >= this.chunks.length ? 0 : this.indexFrom(this.chunks[c]!, key, true);
    for (; c < this.chunks.length; c++, i = 0) {
      const chunk = this.chunks[c]!;
      for (; i < chunk.length; i++) yield chunk[i]!;
    }
  }

  /** The first chunk whose last item is at or after `key` (strictly after, with `strictly`); chunks.length when none. */
  private chunkFrom(key: K, strictly: boolean): number {
    return firstIndex(this.chunks.length, (c) => this.isFrom(this.chunks[c]!.at(-1)!, key, strictly));
  }

  /** The first index of `chunk` at or after `key` (strictly after, with `strictly`). */
  private indexFrom(chunk: T[], key: K, strictly: boolean): number {
    return firstIndex(chunk.length, (i) => this.isFrom(chunk[i]!, key, strictly));
  }

  private isFrom(item: T, key: K, strictly: boolean): boolean {
    const order = this.compare(this.keyOf(item), key);
    return strictly ? order > 0 : order >= 0;
  }
}

/** Binary search: the first index in [0, length) for which `holds` is true (it holds for every index after it), or length. */
function firstIndex(length: number, holds: (index: number) => boolean): number {
  let low = 0;
  let high = length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (holds(middle)) high = middle;
    else low = middle + 1;
  }
  return low;
}
