/**
 * How a bought product comes to life: DEPLOYABLE when created, CONFIGURED after `configuredAfterMs`, LIVE after
 * `liveAfterMs`, both counted from its creation. A product's course is fixed when it is bought (a later change of
 * the times, or a provisioning fault armed later, leaves it alone), and its status follows from the clock.
 */
import { z } from 'zod';

/** The provider's statuses of a product that will not be live; a `fail` fault ends a product in one of them. */
export const SIM_FAILED_STATUSES = ['CANCELLED', 'DECOMMISSIONED'] as const;
export type SimFailedStatus = (typeof SIM_FAILED_STATUSES)[number];
export type SimProvisioningStatus = 'DEPLOYABLE' | 'CONFIGURED' | 'LIVE' | SimFailedStatus;

const afterMs = z
  .number()
  .int('must be a whole number of milliseconds')
  .min(0, 'must be at least 0')
  .max(86_400_000, 'must be at most 86400000 (a day)');

export const provisioningTimesSchema = z
  .strictObject({ configuredAfterMs: afterMs, liveAfterMs: afterMs })
  .refine((times) => times.liveAfterMs >= times.configuredAfterMs, {
    path: ['liveAfterMs'],
    message: 'must be at least configuredAfterMs',
  });
export type SimProvisioningTimes = z.infer<typeof provisioningTimesSchema>;

/** A product's course: its times, and the status it ends in (CONFIGURED for one stuck there). */
export interface SimTimeline extends SimProvisioningTimes {
  endsAs: 'LIVE' | 'CONFIGURED' | SimFailedStatus;
}

/** What a provisioning fault (faults.ts) makes of a product. */
export type ProvisioningMishap = { outcome: 'stuck' } | { outcome: 'fail'; status: SimFailedStatus };

export function timelineOf(times: SimProvisioningTimes, fault: ProvisioningMishap | undefined): SimTimeline {
  const endsAs = fault === undefined ? 'LIVE' : fault.outcome === 'stuck' ? 'CONFIGURED' : fault.status;
  return { ...times, endsAs };
}

/** The status at `now` of a product created at `createdAtMs`. */
export function statusAt(timeline: SimTimeline, createdAtMs: number, now: number): SimProvisioningStatus {
  const age = now - createdAtMs;
  if (age < timeline.configuredAfterMs) return 'DEPLOYABLE';
  if (age < timeline.liveAfterMs) return 'CONFIGURED';
  return timeline.endsAs;
}
