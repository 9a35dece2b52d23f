import { z } from 'zod';
import { durationSchema } from '../lifecycle/index.js';
import { checkTeams, teamSchemas } from './teams.js';

/**
 * The approval policy as data: one per environment. Written in JSON by people (durations as text), parsed here
 * into a plain, JSON-serialisable value (durations in milliseconds) that the workflow carries in its input.
 * Parsing a parsed policy again gives the same policy, so the workflow may re-check what it was given.
 */

export const ENVIRONMENTS = ['staging', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Most reminders one approval round may schedule: each one is a timer and events in the order's history. */
export const MAX_REMINDERS = 50;

function buildPolicySchemas() {
  const currencyCode = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter upper-case currency code (ISO 4217)');
  const amount = z.number().finite().nonnegative();
  const amountsByCurrency = z.record(currencyCode, amount);
  const duration = durationSchema();
  const teamFields = teamSchemas(amountsByCurrency);

  const tierSchema = z.strictObject({
    name: z.string().min(1, 'must not be empty'),
    roles: z.array(z.string().min(1, 'must not be empty')).min(1, 'must name at least one approver role'),
    approvals: z.number().int('must be a whole number').min(1, 'must be at least 1'),
    /** Highest monthlyRate (inclusive) this tier covers, per currency. The top tier has none. */
    upTo: amountsByCurrency.optional(),
  });

  const policyShape = z.strictObject({
    /** When true every order needs a human vote: amounts under the auto-approve line take the lowest tier. */
    alwaysRequireHuman: z.boolean().default(false),
    /** A monthlyRate strictly below this line, in that currency, is approved without a human. */
    autoApproveBelow: amountsByCurrency,
    /** Ordered from the lowest amounts to the highest; the last one takes the rest and unknown currencies. */
    tiers: z.array(tierSchema).min(1, 'must have at least one tier'),
    /** How long an approval round may wait for votes before the order expires. */
    deadline: duration,
    reminders: z
      .strictObject({
        /** Remind approvers this long before the deadline (each entry one reminder). */
        beforeDeadline: z.array(duration).default([]),
        /** Also remind every so often from the start of the round. */
        every: duration.optional(),
      })
      .default({ beforeDeadline: [] }),
    /** A re-validated quote may rise this much over the approved one and still be bought without a new vote. */
    maxRiseWithoutApproval: z
      .strictObject({
        /** Absolute rise allowed, per currency; a currency not listed has no absolute allowance. */
        amount: amountsByCurrency.default({}),
        /** Rise allowed as a percentage of the approved monthlyRate. */
        percent: z.number().finite().nonnegative().optional(),
      })
      .default({ amount: {} }),
    /** A quote older than this is validated again before buying. */
    maxQuoteAge: duration,
    /**
     * While fewer approvers could vote on a round than its tier needs, the order reads the approver directory again
     * this often (at least 1 s), so a role given meanwhile counts. Absent: 15 minutes (`DEFAULT_DIRECTORY_RECHECK_MS`),
     * kept out of the parsed policy so a policy without it hashes as it always did.
     */
    directoryRecheck: duration
      .refine((ms) => ms >= 1000, 'must be at least 1s: each read of the directory is events in the order history')
      .optional(),
    /**
     * The teams (cost centres) orders are charged to, with their budgets (./teams.ts). Absent: orders belong to no
     * team. Like every optional field here, absent fields stay out of the parsed policy, so its hash is as before.
     */
    teams: teamFields.teams.optional(),
    /** The IANA time zone whose calendar months the teams' monthly budgets run by; required with teams. */
    budgetTimeZone: teamFields.budgetTimeZone.optional(),
    /** What an order that would take its team over a budget needs: a tier of this policy, or refusal. */
    overBudget: teamFields.overBudget.optional(),
  });

  const policy = policyShape.superRefine((policy, ctx) => {
    checkTiers(policy, ctx);
    checkReminders(policy, ctx);
    checkTeams(policy, ctx);
  });

  const policies = z.strictObject({ staging: policy, production: policy });
  /**
   * An override names one or both environments; each one named replaces that environment's policy whole.
   * `version` labels the document (recorded on every order it governs, with the policy's content hash).
   */
  const override = policies.partial().extend({
    version: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').optional(),
  });
  return { policy, policies, override };
}

/** What the tier checks read of a policy. */
interface TieredPolicy {
  autoApproveBelow: Record<string, number>;
  tiers: ReadonlyArray<{ name: string; upTo?: Record<string, number> | undefined }>;
}

/** Tier names are unique; every tier but the last has limits, rising in order from the auto-approve line. */
function checkTiers(policy: TieredPolicy, ctx: z.RefinementCtx): void {
  const lastIndex = policy.tiers.length - 1;
  const names = new Set<string>();
  policy.tiers.forEach((tier, index) => {
    if (names.has(tier.name)) {
      ctx.addIssue({
        code: 'custom',
        path: ['tiers', index, 'name'],
        message: `must be unique; "${tier.name}" is used twice`,
      });
    }
    names.add(tier.name);
    if (index === lastIndex) {
      if (tier.upTo !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['tiers', index, 'upTo'],
          message:
            'must be absent on the last tier: it takes every amount above the tiers below it, and unknown currencies',
        });
      }
      return;
    }
    if (tier.upTo === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['tiers', index, 'upTo'],
        message: 'is required on every tier but the last',
      });
      return;
    }
    checkTierLimits(policy, index, tier.upTo, ctx);
  });
}

/** The limits of the tier at `index` (not the last): one per auto-approve currency, each above the one below it. */
function checkTierLimits(
  policy: TieredPolicy,
  index: number,
  upTo: Record<string, number>,
  ctx: z.RefinementCtx,
): void {
  for (const currency of Object.keys(policy.autoApproveBelow)) {
    if (upTo[currency] === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['tiers', index, 'upTo', currency],
        message: `is required: ${currency} has an auto-approve line, so every tier but the last needs a limit in it`,
      });
    }
  }
  for (const [currency, limit] of Object.entries(upTo)) {
    const line = policy.autoApproveBelow[currency];
    if (line === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['tiers', index, 'upTo', currency],
        message: `names a currency with no line in autoApproveBelow; add ${currency} there (0 for none)`,
      });
      continue;
    }
    const floor = index === 0 ? line : policy.tiers[index - 1].upTo?.[currency];
    const floorName = index === 0 ? `autoApproveBelow.${currency}` : `tiers[${index - 1}].upTo.${currency}`;
    const rising = index === 0 ? limit >= line : floor === undefined || limit > floor;
    if (!rising) {
      ctx.addIssue({
        code: 'custom',
        path: ['tiers', index, 'upTo', currency],
        message: `must be ${index === 0 ? 'at least' : 'greater than'} ${floorName} (${floor}); tiers rise in order`,
      });
    }
  }
}

/** Reminders fall inside the round, and not too many of them. */
function checkReminders(
  policy: { deadline: number; reminders: { beforeDeadline: number[]; every?: number | undefined } },
  ctx: z.RefinementCtx,
): void {
  for (const [index, before] of policy.reminders.beforeDeadline.entries()) {
    if (before >= policy.deadline) {
      ctx.addIssue({
        code: 'custom',
        path: ['reminders', 'beforeDeadline', index],
        message: `must be shorter than the deadline (${policy.deadline} ms), or it would fall before the round starts`,
      });
    }
  }
  const every = policy.reminders.every;
  if (every !== undefined && Math.ceil(policy.deadline / every) - 1 > MAX_REMINDERS) {
    ctx.addIssue({
      code: 'custom',
      path: ['reminders', 'every'],
      message: `gives more than ${MAX_REMINDERS} reminders before the deadline; choose a longer interval`,
    });
  }
}

type PolicySchemas = ReturnType<typeof buildPolicySchemas>;
let built: PolicySchemas | undefined;

/**
 * The schemas of one environment's policy, of the policies of both, and of an override document: built on first use
 * and kept. The workflow sandbox shares this module between order runs (workflows/shared-libraries.ts) instead of
 * building them again for each, and freezes what a shared module exports: behind a function, the schemas stay out of
 * its reach (zod adds members to a schema as they are first used). They are the same for every run, so sharing
 * them cannot make two runs decide differently.
 */
export function policySchemas(): PolicySchemas {
  built ??= buildPolicySchemas();
  return built;
}

export type ApprovalPolicy = z.output<PolicySchemas['policy']>;
export type ApprovalPolicyInput = z.input<PolicySchemas['policy']>;
export type ApprovalTierPolicy = ApprovalPolicy['tiers'][number];
export type ApprovalTeam = NonNullable<ApprovalPolicy['teams']>[number];
export type TeamBudget = NonNullable<ApprovalTeam['budget']>;

/** The policy of each environment. */
export type ApprovalPolicies = z.output<PolicySchemas['policies']>;

/** The version recorded for the shipped defaults, and for an override document that names none. */
export const DEFAULT_POLICY_VERSION = 'default';
export const UNVERSIONED_POLICY = 'unversioned';
