/**
 * vNICs (spec 2.7): a list of 1 to 5 objects whose only field is an optional `description`, beside
 * vendorConfig; each kind narrows the count (2.5). Omitted, the kind's minimum is allocated, so an order
 * without `vnics` is fine.
 */
import { APPLIANCE_KIND_RULES, type SimKindId } from './appliance-kinds.js';
import { isJsonObject, unknownFields } from './field-checks.js';
import { pathOf, type SimIssue } from './issues.js';

const MAX_VNICS = 5;

/** The shape of the list; the count the kind allows is vnicCountIssues'. */
export function vnicListIssues(vnics: unknown, path: string): SimIssue[] {
  if (!Array.isArray(vnics)) return [{ path, rule: 'type', message: 'vnics must be an array of vNIC objects' }];
  if (vnics.length < 1 || vnics.length > MAX_VNICS) {
    return [
      {
        path,
        rule: 'vnics-count',
        message: `vnics must hold 1 to ${MAX_VNICS} vNICs, not ${vnics.length} (omit it to get the kind's minimum)`,
      },
    ];
  }
  return vnics.flatMap((vnic, index): SimIssue[] => {
    const at = pathOf(path, index);
    if (!isJsonObject(vnic)) return [{ path: at, rule: 'type', message: 'a vNIC must be an object' }];
    const issues = unknownFields(vnic, ['description'], at, ' (a vNIC has only a description)');
    if (vnic['description'] !== undefined && typeof vnic['description'] !== 'string') {
      issues.push({ path: pathOf(at, 'description'), rule: 'type', message: 'description must be a string' });
    }
    return issues;
  });
}

export function vnicCountIssues(kind: SimKindId, count: number, path: string): SimIssue[] {
  const { min, max } = APPLIANCE_KIND_RULES[kind].vnics;
  const range = `${min === max ? `exactly ${min}` : `${min} to ${max}`} vNIC${max === 1 ? '' : 's'}`;
  if (count < min) return [{ path, rule: 'vnics-min', message: `kind ${kind} needs ${range}; ${count} given` }];
  if (count > max) return [{ path, rule: 'vnics-max', message: `kind ${kind} takes ${range}; ${count} given` }];
  return [];
}
