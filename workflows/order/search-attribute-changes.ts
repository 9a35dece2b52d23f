import type { SearchAttributeUpdatePair } from '@temporalio/common';
import { upsertSearchAttributes } from '@temporalio/workflow';

/**
 * The order's search attributes, changed as it goes and published together at checkpoints: a step costs one upsert
 * however many changes it made, and a key changed twice is published once, with its last value.
 */
export class SearchAttributeChanges {
  private readonly changes = new Map<string, SearchAttributeUpdatePair>();

  set(pair: SearchAttributeUpdatePair): void {
    this.changes.set(pair.key.name, pair);
  }

  publish(): void {
    if (this.changes.size === 0) return;
    upsertSearchAttributes([...this.changes.values()]);
    this.changes.clear();
  }

  get empty(): boolean {
    return this.changes.size === 0;
  }
}
