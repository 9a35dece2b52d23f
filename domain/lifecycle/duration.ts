import { z } from 'zod';

/**
 * Durations in a policy file or a variable are written for people ("72h", "30m", "2d") or as plain milliseconds.
 * Parsed, they are milliseconds only, so the workflow adds them to epoch-ms times with no parsing.
 */
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

const DURATION_TEXT = /^(\d+)(ms|s|m|h|d|w)$/;

export const DURATION_RULE = 'a positive whole number of milliseconds, or text like "90s", "30m", "72h", "3d", "1w"';

/** A duration's schema (the policy's, the provisioning follow-up's). */
export function durationSchema() {
  return z.union([z.number(), z.string()]).transform((value, ctx) => {
    const ms = typeof value === 'number' ? value : textToMs(value);
    if (ms === undefined || !Number.isSafeInteger(ms) || ms <= 0) {
      ctx.addIssue({ code: 'custom', message: `must be ${DURATION_RULE}` });
      return z.NEVER;
    }
    return ms;
  });
}

function textToMs(text: string): number | undefined {
  const match = DURATION_TEXT.exec(text.trim());
  if (!match) return undefined;
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** A span of time, coarsely: "2 d 23 h", "5 h 10 min", "12 min", "40 s". */
export function describeDuration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  if (d > 0) return `${d} d${h ? ` ${h} h` : ''}`;
  if (h > 0) return `${h} h${m ? ` ${m} min` : ''}`;
  if (m > 0) return `${m} min`;
  return `${s} s`;
}
