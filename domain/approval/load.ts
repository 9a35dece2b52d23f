import type { z } from 'zod';
import { defaultApprovalPolicies } from './defaults.js';
import {
  DEFAULT_POLICY_VERSION,
  policySchemas,
  UNVERSIONED_POLICY,
  type ApprovalPolicies,
  type ApprovalPolicy,
} from './policy.js';

/** Names of the environment variables that override the shipped policy (see docs/approval-policy.md). */
export const POLICY_FILE_VARIABLE = 'MVE_APPROVAL_POLICY_FILE';
export const POLICY_JSON_VARIABLE = 'MVE_APPROVAL_POLICY';

export interface PolicyIssue {
  /** Field path in the policy document, e.g. `production.tiers[1].roles`. */
  path: string;
  message: string;
}

/** An invalid policy: the message lists every field at fault and the rule it breaks. */
export class ApprovalPolicyError extends Error {
  override name = 'ApprovalPolicyError';
  constructor(
    readonly source: string,
    readonly issues: readonly PolicyIssue[],
  ) {
    super(
      `invalid approval policy (${source}): ${issues.map((issue) => `${issue.path}: ${issue.message}`).join('; ')}`,
    );
  }
}

/** Checks one environment's policy, e.g. the one a workflow was started with. */
export function parseApprovalPolicy(value: unknown, source = 'approval policy'): ApprovalPolicy {
  return parseWith(policySchemas().policy, value, source);
}

/** The policies a worker enforces, with the version label of the document they came from. */
export interface PoliciesInForce {
  version: string;
  /** Where they came from: `defaults`, `file <path>` or the variable's name. */
  source: string;
  policies: ApprovalPolicies;
}

/**
 * The policies in force: the shipped defaults, with each environment named in the override replacing that
 * environment's policy whole (no field-by-field merge, so what the file says is all that applies).
 * I/O is injected (the caller passes `process.env` and a file reader) so this stays usable anywhere.
 */
export function loadApprovalPolicies(
  env: Readonly<Record<string, string | undefined>>,
  readTextFile: (path: string) => string,
  defaults: ApprovalPolicies = defaultApprovalPolicies(),
): PoliciesInForce {
  const file = env[POLICY_FILE_VARIABLE]?.trim();
  const json = env[POLICY_JSON_VARIABLE]?.trim();
  if (file && json) {
    throw new ApprovalPolicyError('environment', [
      { path: POLICY_FILE_VARIABLE, message: `set only one of ${POLICY_FILE_VARIABLE} and ${POLICY_JSON_VARIABLE}` },
    ]);
  }
  if (!file && !json) return { version: DEFAULT_POLICY_VERSION, source: 'defaults', policies: defaults };

  const source = file ? `file ${file}` : POLICY_JSON_VARIABLE;
  let text: string;
  try {
    text = file ? readTextFile(file) : json!;
  } catch (error) {
    throw new ApprovalPolicyError(source, [{ path: '(file)', message: `cannot be read: ${(error as Error).message}` }]);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new ApprovalPolicyError(source, [
      { path: '(document)', message: `must be JSON: ${(error as Error).message}` },
    ]);
  }
  const { version, ...override } = parseWith(policySchemas().override, document, source);
  return { version: version ?? UNVERSIONED_POLICY, source, policies: { ...defaults, ...definedOnly(override) } };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function parseWith<S extends z.ZodType>(schema: S, value: unknown, source: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new ApprovalPolicyError(
    source,
    result.error.issues.map((issue) => ({ path: formatPath(issue.path), message: messageOf(issue) })),
  );
}

/** The rule an issue breaks; for a key of a record (a currency), the key's own rule rather than zod's "Invalid key". */
function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_key' && issue.issues.length > 0) return issue.issues[0].message;
  return issue.message;
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(document)';
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}
