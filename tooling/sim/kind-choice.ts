/**
 * Which kind an order is. The image decides (spec 2.5), so a family of one kind is that kind. A family
 * with several modes (a router that takes `sshPublicKey` in one and `cloudInit` in the other) is told
 * by the order's fields: the mode whose rules all pass; else the only mode that knows every field given,
 * or the only one whose required fields are all there, so that its own rules can say what is wrong.
 */
import { APPLIANCE_KIND_RULES, type SimKindId } from './appliance-kinds.js';
import type { SimIssue } from './issues.js';
import { COMMON_VENDOR_FIELDS, kindFieldIssues, requiredFieldsOf } from './kind-fields.js';

export type KindChoice = { ok: true; kind: SimKindId } | { ok: false; issue: SimIssue };

export function chooseKind(
  allowed: readonly SimKindId[],
  vendorConfig: Record<string, unknown>,
  basePath: string,
  imageId: number,
): KindChoice {
  if (allowed.length === 1) return { ok: true, kind: allowed[0] };
  const passing = allowed.find((kind) => kindFieldIssues(kind, vendorConfig, basePath).length === 0);
  if (passing) return { ok: true, kind: passing };
  const given = Object.keys(vendorConfig).filter((name) => !COMMON_VENDOR_FIELDS.includes(name));
  const knowing = allowed.filter((kind) =>
    given.every((name) => APPLIANCE_KIND_RULES[kind].fields.some((field) => field.name === name)),
  );
  if (knowing.length === 1) return { ok: true, kind: knowing[0] };
  const complete = allowed.filter((kind) => requiredFieldsOf(kind).every((name) => vendorConfig[name] !== undefined));
  if (complete.length === 1) return { ok: true, kind: complete[0] };
  const modes = allowed.map((kind) => `${kind} needs ${requiredFieldsOf(kind).join(' and ')}`).join('; ');
  return {
    ok: false,
    issue: {
      path: basePath,
      rule: 'kind-no-match',
      message: `vendorConfig fits none of the kinds image ${imageId} can be: ${modes}`,
    },
  };
}
