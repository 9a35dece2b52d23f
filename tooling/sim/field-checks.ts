/**
 * Checks the named fields of one JSON object against their rules: present when required, absent where
 * they do not apply, given together with their partner, and a good value. The order object's own fields
 * (spec 2.3) and each kind's vendorConfig fields (2.5) are both checked this way.
 */
import { pathOf, type SimIssue } from './issues.js';
import type { ValueRule } from './value-rules.js';

/** A fact about the other fields of the same object, with the words that say it in a message. */
export interface FieldCondition {
  says: string;
  holds(fields: Record<string, unknown>): boolean;
}

export interface FieldRule {
  name: string;
  /** `true`, `false`, or required only while a condition holds (K6's central management fields). */
  required: boolean | FieldCondition;
  /** The field may be given only while this holds (K6 fmcNatId applies only when managed centrally). */
  appliesWhen?: FieldCondition;
  /** A field that must be given together with this one (K12's activation token and URI). */
  comesWith?: string;
  value: ValueRule;
}

/** `owner` ends the "is required" message, e.g. " for kind K1 (key-only router)". */
export function checkFields(
  fields: Record<string, unknown>,
  rules: readonly FieldRule[],
  basePath: string,
  owner = '',
): SimIssue[] {
  const issues: SimIssue[] = [];
  for (const rule of rules) {
    const path = pathOf(basePath, rule.name);
    if (fields[rule.name] === undefined) {
      if (rule.required === true) {
        issues.push({ path, rule: 'required', message: `${rule.name} is required${owner}` });
      } else if (rule.required !== false && rule.required.holds(fields)) {
        issues.push({ path, rule: 'required-when', message: `${rule.name} is required when ${rule.required.says}` });
      }
      continue;
    }
    if (rule.appliesWhen && !rule.appliesWhen.holds(fields)) {
      issues.push({ path, rule: 'not-applicable', message: `${rule.name} applies only when ${rule.appliesWhen.says}` });
    }
    if (rule.comesWith !== undefined && fields[rule.comesWith] === undefined) {
      issues.push({
        path: pathOf(basePath, rule.comesWith),
        rule: 'required-with',
        message: `${rule.comesWith} is required when ${rule.name} is given`,
      });
    }
    const refusal = rule.value(fields[rule.name]);
    if (refusal) issues.push({ path, rule: refusal.rule, message: `${rule.name} ${refusal.problem}` });
  }
  return issues;
}

/** One issue per field the object has beyond `known`. */
export function unknownFields(
  fields: Record<string, unknown>,
  known: readonly string[],
  basePath: string,
  hint = '',
): SimIssue[] {
  return Object.keys(fields)
    .filter((name) => !known.includes(name))
    .map((name) => ({
      path: pathOf(basePath, name),
      rule: 'unknown-field',
      message: `${name} is not a field here${hint}`,
    }));
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
