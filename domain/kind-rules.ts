/** The per-kind rules of spec 2.5-2.7, driven by the kinds table: vendorConfig fields, vNIC counts, sizes. */
import { checkFieldFormat } from './field-formats.js';
import { issue, joinPath, type Issue } from './issues.js';
import { APPLIANCE_KINDS, COMMON_VENDOR_FIELDS, type Condition, type FieldSpec, type KindId } from './kinds.js';

/**
 * `request`: the ticket's vendorConfig, where imageId/mveLabel/productSize are the engine's to fill in.
 * `order`: the order object's vendorConfig, where they belong (and the order schema checks them).
 */
export type VendorConfigContext = 'request' | 'order';

export function checkVendorConfig(
  kind: KindId,
  config: Record<string, unknown>,
  context: VendorConfigContext,
  basePath = 'vendorConfig',
): Issue[] {
  const spec = APPLIANCE_KINDS[kind];
  const issues: Issue[] = [];
  for (const name of Object.keys(config)) {
    const problem = strayFieldProblem(kind, name, context);
    if (problem) issues.push(issue(joinPath(basePath, name), problem[0], problem[1]));
  }
  for (const field of spec.fields) issues.push(...checkField(kind, field, config, basePath));
  return issues;
}

function strayFieldProblem(kind: KindId, name: string, context: VendorConfigContext): [string, string] | null {
  if ((COMMON_VENDOR_FIELDS as readonly string[]).includes(name)) {
    if (context === 'order') return null;
    const source = name === 'imageId' ? 'the image' : 'size';
    return ['engine-field', `${name} is filled in by the engine from ${source}; remove it from vendorConfig`];
  }
  if (APPLIANCE_KINDS[kind].fields.some((field) => field.name === name)) return null;
  if (name === 'vendor')
    return ['unknown-field', 'vendor is not a vendorConfig field: the image alone chooses the vendor (spec 2.4)'];
  const known = APPLIANCE_KINDS[kind].fields.map((field) => field.name).join(', ');
  return [
    'unknown-field',
    `${name} is not a field of kind ${kind} (${APPLIANCE_KINDS[kind].title}); its fields are ${known}`,
  ];
}

function checkField(kind: KindId, field: FieldSpec, config: Record<string, unknown>, basePath: string): Issue[] {
  const path = joinPath(basePath, field.name);
  const present = config[field.name] !== undefined;
  if (!present) {
    if (field.presence === 'required')
      return [issue(path, 'required', `${field.name} is required for kind ${kind} (${field.rule})`)];
    if (typeof field.presence === 'object' && holds(field.presence.requiredWhen, config)) {
      return [
        issue(
          path,
          'required-when',
          `${field.name} is required when ${describe(field.presence.requiredWhen)} (${field.rule})`,
        ),
      ];
    }
    return [];
  }
  const issues: Issue[] = [];
  if (field.onlyWhen && !holds(field.onlyWhen, config)) {
    issues.push(
      issue(
        path,
        'only-when',
        `${field.name} applies only when ${describe(field.onlyWhen)}; remove it or change ${field.onlyWhen.field}`,
      ),
    );
  }
  for (const partner of field.requiresAlso ?? []) {
    if (config[partner] === undefined) {
      issues.push(
        issue(
          joinPath(basePath, partner),
          'requires-together',
          `${partner} is required when ${field.name} is given (they come together)`,
        ),
      );
    }
  }
  const problem = checkFieldFormat(field.format, config[field.name]);
  if (problem) issues.push(issue(path, problem.rule, `${field.name} ${problem.problem}`));
  return issues;
}

function holds(condition: Condition, config: Record<string, unknown>): boolean {
  return config[condition.field] === condition.equals;
}

function describe(condition: Condition): string {
  return `${condition.field} is ${String(condition.equals)}`;
}

/** The kind's vNIC range; `undefined` (omitted) is fine here and reported as a warning by the caller. */
export function checkVnicCount(kind: KindId, count: number, path = 'vnics'): Issue[] {
  const { min, max, minDocumented } = APPLIANCE_KINDS[kind].vnics;
  if (count < min) {
    const assumed = minDocumented ? '' : ' (the spec does not state this minimum; 1 is assumed)';
    return [
      issue(path, 'vnics-min', `kind ${kind} needs at least ${min} vNIC${plural(min)}${assumed}; ${count} given`),
    ];
  }
  if (count > max)
    return [issue(path, 'vnics-max', `kind ${kind} allows at most ${max} vNIC${plural(max)}; ${count} given`)];
  return [];
}

/** The warning for omitted vnics: the API allocates the kind's minimum, which cannot be changed later. */
export function omittedVnicsWarning(kind: KindId, path = 'vnics'): Issue {
  const { min, minDocumented } = APPLIANCE_KINDS[kind].vnics;
  const count = minDocumented
    ? `${min} vNIC${plural(min)}`
    : `its minimum (not stated by the spec for ${kind}; at least ${min})`;
  return issue(
    path,
    'vnics-default',
    `vnics omitted: the API allocates kind ${kind}'s minimum of ${count}; the count cannot be changed after creation`,
  );
}

export function checkSizeForKind(kind: KindId, label: string, path: string): Issue[] {
  const sizes = APPLIANCE_KINDS[kind].sizes;
  if (sizes?.only && !(sizes.only as readonly string[]).includes(label)) {
    return [
      issue(
        path,
        'size-not-for-kind',
        `size "${label}" is not supported by kind ${kind}; supported: ${sizes.only.join(', ')}`,
      ),
    ];
  }
  if (sizes?.never && (sizes.never as readonly string[]).includes(label)) {
    return [issue(path, 'size-not-for-kind', `size "${label}" is not supported by kind ${kind}`)];
  }
  return [];
}

function plural(count: number): string {
  return count === 1 ? '' : 's';
}
