import type { TransitionOutcome } from '../../../infra/db/index.js';
import type { JournalEntry } from '../../../workflows/order/activity-types.js';
import { transitionRecord, writeEntry } from './entries.js';
import type { EntryTarget, TransitionEntry } from './types.js';

/** How one entry's write ended: undefined when written, else what refused or failed it. */
export type EntryWritten = { error: unknown } | undefined;

/**
 * The entries in order, cut where a write must wait for the ones before it: after each buy intent (what follows an
 * intent is written only once the intent is), and before a policy entry that carries its rules (storing them takes a
 * transaction of its own, on another connection, which the order's row must already be in).
 */
export function segments(entries: JournalEntry[]): JournalEntry[][] {
  const cut: JournalEntry[][] = [[]];
  for (const entry of entries) {
    if (entry.type === 'policy' && entry.policy && cut.at(-1)!.length > 0) cut.push([]);
    cut.at(-1)!.push(entry);
    if (entry.type === 'buy-intent') cut.push([]);
  }
  return cut.filter((segment) => segment.length > 0);
}

/**
 * Starts the writes of a segment together, in order; its transitions go as one statement, started where the first
 * of them stands (the order's row then moves once, not once per change). Resolves with each entry's refusal, if any.
 */
export function writeSegment(target: EntryTarget, segment: JournalEntry[]): Promise<EntryWritten[]> {
  const { records, run } = target;
  const transitions = segment.filter((entry): entry is TransitionEntry => entry.type === 'transition');
  let together: Promise<TransitionOutcome[]> | undefined;
  return Promise.all(
    segment.map((entry): Promise<EntryWritten> => {
      if (entry.type !== 'transition')
        return writeEntry(target, entry).then(
          () => undefined,
          (error: unknown) => ({ error }),
        );
      together ??= records.recordTransitions(
        transitions.map((transition) => transitionRecord(run.workflowId, transition)),
      );
      const at = transitions.indexOf(entry);
      return together.then(
        (outcomes) => ('refused' in outcomes[at] ? { error: outcomes[at].refused } : undefined),
        (error: unknown) => ({ error }),
      );
    }),
  );
}
