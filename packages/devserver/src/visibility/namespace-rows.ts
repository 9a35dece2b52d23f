/**
 * The visibility rows of one namespace, kept from call to call so that a List or Count costs what its answer
 * costs, not what the namespace holds:
 *
 * - each execution's row is decoded once, and again only when the engine reports a change to the execution that
 *   alters it (status, close time, search attributes: the rest of a row is fixed for the life of a run);
 * - rows are kept in list order, so a page is read from its cursor with no sorting;
 * - for an attribute queried with = or IN (Keyword, KeywordList, ExecutionStatus), rows are also kept by value,
 *   each value's rows in list order: built the first time a query asks, then kept up to date.
 *
 * A query's Lookup picks the narrowest of those; the rows it yields are a superset of the matches, in list order,
 * and the caller still tests each with the query.
 */
import type { Execution } from '../execution.js';
import type { PackedSearchAttributes } from '../packed-message.js';
import type { NamespaceRecord } from '../store.js';
import { SortedList } from '../sorted-list.js';
import { compareListOrder } from './query.js';
import type { IndexedAttribute, ListOrderKey, Lookup, VisibilityRow } from './query.js';
import { toVisibilityRow } from './rows.js';

export interface IndexedRow {
  readonly execution: Execution;
  readonly row: VisibilityRow;
}

/** A row and what it was built from (compared by identity: an upsert replaces the search attributes object). */
interface Entry extends IndexedRow {
  readonly status: number;
  readonly closeTime: number | undefined;
  readonly searchAttributes: PackedSearchAttributes;
}

type OrderedEntries = SortedList<Entry, ListOrderKey>;
const orderedEntries = (): OrderedEntries =>
  new SortedList<Entry, ListOrderKey>((entry) => entry.row, compareListOrder);

/** Where a lookup's rows come from, and how many there are (to pick the narrowest). */
interface Source {
  size: number;
  read(after: ListOrderKey | undefined): Iterable<Entry>;
}

export class NamespaceRows {
  private readonly entries = new Map<Execution, Entry>();
  private readonly ordered = orderedEntries();
  private readonly byAttribute = new Map<string, AttributeIndex>();
  private readonly changed = new Set<Execution>();

  /** `executions`: the namespace's runs now; `isStored`: whether a run is still kept (not forgotten by retention). */
  constructor(
    private readonly namespace: NamespaceRecord,
    executions: Iterable<Execution>,
    private readonly isStored: (execution: Execution) => boolean,
  ) {
    for (const execution of executions) this.add(execution);
  }

  /** The run was created, changed or forgotten: its row is brought up to date before the next read. */
  markChanged(execution: Execution): void {
    this.changed.add(execution);
  }

  /** The rows that may satisfy `lookup` (every row without one), in list order, after `cursor` when given. */
  candidates(lookup: Lookup | undefined, cursor?: ListOrderKey): Iterable<IndexedRow> {
    this.applyChanges();
    const source = lookup && this.sourceOf(lookup);
    if (!source || source.size >= this.ordered.size) return this.ordered.after(cursor);
    return source.read(cursor);
  }

  private applyChanges(): void {
    for (const execution of this.changed) {
      const entry = this.entries.get(execution);
      if (!this.isStored(execution)) {
        if (entry) this.remove(entry);
      } else if (!entry || !isCurrent(entry)) {
        if (entry) this.remove(entry);
        this.add(execution);
      }
      // after the update: a row that cannot be built (a bad payload) fails this read and the next ones, as it did before
      this.changed.delete(execution);
    }
  }

  private add(execution: Execution): void {
    const entry: Entry = {
      execution,
      row: toVisibilityRow(execution, this.namespace),
      status: execution.status,
      closeTime: execution.closeTime,
      searchAttributes: execution.searchAttributes,
    };
    this.entries.set(execution, entry);
    this.ordered.insert(entry);
    for (const index of this.byAttribute.values()) index.add(entry);
  }

  private remove(entry: Entry): void {
    this.entries.delete(entry.execution);
    this.ordered.delete(entry);
    for (const index of this.byAttribute.values()) index.remove(entry);
  }

  private sourceOf(lookup: Lookup): Source {
    switch (lookup.kind) {
      case 'equals': {
        const index = this.indexOf(lookup.attribute);
        const lists = [...new Set(lookup.values)]
          .map((value) => index.withValue(value))
          .filter((list) => list !== undefined);
        return union(lists.map((list) => ({ size: list.size, read: (after) => list.after(after) })));
      }
      case 'all':
        return lookup.operands
          .map((operand) => this.sourceOf(operand))
          .reduce((narrowest, source) => (source.size < narrowest.size ? source : narrowest));
      case 'any':
        return union(lookup.operands.map((operand) => this.sourceOf(operand)));
    }
  }

  /** The index of an attribute, built from every row the first time a query asks for it. */
  private indexOf(attribute: IndexedAttribute): AttributeIndex {
    let index = this.byAttribute.get(attribute.name);
    if (!index) {
      index = new AttributeIndex(attribute);
      for (const entry of this.entries.values()) index.add(entry);
      this.byAttribute.set(attribute.name, index);
    }
    return index;
  }
}

function isCurrent(entry: Entry): boolean {
  const { execution } = entry;
  return (
    entry.status === execution.status &&
    entry.closeTime === execution.closeTime &&
    entry.searchAttributes === execution.searchAttributes
  );
}

/** An attribute's rows by value, each value's rows in list order. */
class AttributeIndex {
  private readonly lists = new Map<string, OrderedEntries>();

  constructor(private readonly attribute: IndexedAttribute) {}

  withValue(value: string): OrderedEntries | undefined {
    return this.lists.get(value);
  }

  add(entry: Entry): void {
    for (const key of this.keysOf(entry)) {
      let list = this.lists.get(key);
      if (!list) this.lists.set(key, (list = orderedEntries()));
      list.insert(entry);
    }
  }

  remove(entry: Entry): void {
    for (const key of this.keysOf(entry)) {
      const list = this.lists.get(key);
      list?.delete(entry);
      if (list?.size === 0) this.lists.delete(key);
    }
  }

  /** Each value once (a KeywordList may repeat one). */
  private keysOf(entry: Entry): Set<string> {
    return new Set(this.attribute.keysOf(entry.row));
  }
}

/** Rows in any of the sources, in list order, each once. */
function union(sources: Source[]): Source {
  if (sources.length === 1) return sources[0]!;
  return {
    size: sources.reduce((total, source) => total + source.size, 0),
    read: (after) => mergeInOrder(sources.map((source) => source.read(after))),
  };
}

function* mergeInOrder(sources: Iterable<Entry>[]): Generator<Entry, void, undefined> {
  const iterators = sources.map((source) => source[Symbol.iterator]());
  const heads: (Entry | void)[] = iterators.map((iterator) => iterator.next().value);
  let last: Entry | undefined;
  for (;;) {
    let first = -1;
    heads.forEach((head, i) => {
      if (head && (first < 0 || compareListOrder(head.row, heads[first]!.row) < 0)) first = i;
    });
    if (first < 0) return;
    const entry = heads[first]!;
    heads[first] = iterators[first]!.next().value;
    // a row in two sources comes up twice in a row
    if (entry !== last) yield entry;
    last = entry;
  }
}
