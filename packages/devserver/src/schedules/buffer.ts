/**
 * The overlap policies, as the real scheduler applies them to its buffer of pending starts: what to start now,
 * what stays buffered, what is skipped, and whether the running workflow must be cancelled or terminated first.
 * A start's policy is resolved against the schedule's when it is processed, so an update changes buffered ones.
 */
import { api } from '../proto.js';

export const OverlapPolicy = api.enums.v1.ScheduleOverlapPolicy;

export interface BufferedStart {
  /** The time the spec gave (epoch ms): the workflow id and TemporalScheduledStartTime come from it. */
  nominal: number;
  /** The time with jitter. */
  actual: number;
  /** UNSPECIFIED means the schedule's policy at the time it is processed. */
  overlapPolicy: number;
  /** Triggered or backfilled: not subject to pause, remaining actions or the catchup window. */
  manual: boolean;
}

export interface BufferDecision {
  /** ALLOW_ALL starts, all started at once. */
  overlapping: BufferedStart[];
  /** The one start that may run now, when nothing is running. */
  nonOverlapping?: BufferedStart;
  buffer: BufferedStart[];
  cancelRunning: boolean;
  terminateRunning: boolean;
  skipped: number;
}

export function decideBuffer(
  buffer: BufferedStart[],
  running: boolean,
  resolve: (policy: number) => number,
): BufferDecision {
  const decision: BufferDecision = {
    overlapping: [],
    buffer: [],
    cancelRunning: false,
    terminateRunning: false,
    skipped: 0,
  };
  for (const start of buffer) {
    const policy = resolve(start.overlapPolicy);
    if (policy === OverlapPolicy.SCHEDULE_OVERLAP_POLICY_ALLOW_ALL) {
      decision.overlapping.push(start);
      continue;
    }
    if (!running && !decision.nonOverlapping) {
      decision.nonOverlapping = start;
      continue;
    }
    switch (policy) {
      case OverlapPolicy.SCHEDULE_OVERLAP_POLICY_SKIP:
        decision.skipped++;
        break;
      case OverlapPolicy.SCHEDULE_OVERLAP_POLICY_BUFFER_ONE:
        if (decision.buffer.length) decision.skipped++;
        else decision.buffer.push(start);
        break;
      case OverlapPolicy.SCHEDULE_OVERLAP_POLICY_BUFFER_ALL:
        decision.buffer.push(start);
        break;
      case OverlapPolicy.SCHEDULE_OVERLAP_POLICY_CANCEL_OTHER:
      case OverlapPolicy.SCHEDULE_OVERLAP_POLICY_TERMINATE_OTHER:
        if (running) {
          // stop what runs; this start waits until it has closed
          if (policy === OverlapPolicy.SCHEDULE_OVERLAP_POLICY_CANCEL_OTHER) decision.cancelRunning = true;
          else decision.terminateRunning = true;
          decision.buffer.push(start);
        } else {
          // only the start chosen a moment ago overlaps: this one replaces it
          decision.nonOverlapping = start;
        }
        break;
    }
  }
  // whatever is about to be stopped would stop the ALLOW_ALL starts too: don't start them
  if (decision.cancelRunning || decision.terminateRunning) decision.overlapping = [];
  return decision;
}
