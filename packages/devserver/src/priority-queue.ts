/**
 * A binary min-heap whose entries can be removed wherever they are (an indexed heap): push, pop and remove
 * cost O(log n), peek O(1). Each entry knows its place in the heap, so removal needs no search.
 */
export interface HeapEntry<T> {
  readonly value: T;
  /** Its index in the heap; -1 once popped or removed. */
  index: number;
}

export class PriorityQueue<T> {
  private readonly heap: HeapEntry<T>[] = [];

  /** `before(a, b)`: whether `a` comes out first. Ties must be broken by the caller for a stable order. */
  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.heap.length;
  }

  peek(): T | undefined {
    return this.heap[0]?.value;
  }

  push(value: T): HeapEntry<T> {
    const entry = { value, index: this.heap.length };
    this.heap.push(entry);
    this.siftUp(entry.index);
    return entry;
  }

  pop(): T | undefined {
    const top = this.heap[0];
    if (top) this.remove(top);
    return top?.value;
  }

  /** Takes the entry out; false when it already was. */
  remove(entry: HeapEntry<T>): boolean {
    const i = entry.index;
    if (this.heap[i] !== entry) return false;
    entry.index = -1;
    const last = this.heap.pop()!;
    if (last === entry) return true;
    this.place(last, i);
    // the entry moved into the hole may belong above it or below it
    this.siftUp(i);
    this.siftDown(last.index);
    return true;
  }

  clear(): void {
    for (const entry of this.heap) entry.index = -1;
    this.heap.length = 0;
  }

  private place(entry: HeapEntry<T>, i: number): void {
    this.heap[i] = entry;
    entry.index = i;
  }

  private siftUp(i: number): void {
    const entry = this.heap[i]!;
    while (i > 0) {
      const parentIndex = (i - 1) >> 1;
      const parent = this.heap[parentIndex]!;
      if (!this.before(entry.value, parent.value)) break;
      this.place(parent, i);
      i = parentIndex;
    }
    this.place(entry, i);
  }

  private siftDown(i: number): void {
    const entry = this.heap[i]!;
    const n = this.heap.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && this.before(this.heap[right]!.value, this.heap[left]!.value) ? right : left;
      if (!this.before(this.heap[child]!.value, entry.value)) break;
      this.place(this.heap[child]!, i);
      i = child;
    }
    this.place(entry, i);
  }
}
