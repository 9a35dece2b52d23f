/**
 * Picks the appliance kind for a vendorConfig among the kinds an image family allows (all kinds when the
 * family is not known). The supplied field names choose first; when several kinds fit, the one whose rules
 * (field formats, size, vNIC count) all pass wins; an explicit `kind` hint settles the rest. A field every
 * candidate refuses for the same reason is the requester's mistake whatever the kind: it is named, never hidden
 * behind the ambiguity.
 */
import { issue, type Issue } from './issues.js';
import { KIND_MAP_ENV, kindsForFamily, type KindMap } from './kind-map.js';
import { checkSizeForKind, checkVendorConfig, checkVnicCount } from './kind-rules.js';
import { APPLIANCE_KINDS, COMMON_VENDOR_FIELDS, isKindId, KIND_IDS, type KindId } from './kinds.js';

export interface KindEvidence {
  config: Record<string, unknown>;
  /** Size label, when known: some kinds restrict sizes (K6, K15). */
  size?: string;
  /** Where the size was given (`size`, `productSize`, `vendorConfig.mveLabel`), for an issue naming it; `size`. */
  sizePath?: string;
  /** vNIC count, when given. */
  vnicCount?: number;
  /** The request's explicit `kind`, if any. */
  hint?: unknown;
}

export interface KindScope {
  allowed: readonly KindId[];
  /** Human name of the image family the kinds come from, e.g. `Cisco C8000`; absent when unknown. */
  family?: string;
}

/** Refused: the issues to report, in the shape of every other check's (path, rule, message); at least one. */
export type KindResolution = { ok: true; kind: KindId } | { ok: false; issues: Issue[] };

export const ALL_KINDS: KindScope = { allowed: KIND_IDS };

type ScopeResult = { ok: true; value: KindScope } | { ok: false; issue: Issue };

/** The kinds an image family allows, from the kind map; every kind when the family is not known yet. */
export function kindScope(
  family: { vendor: string; product: string } | undefined,
  kindMap: KindMap,
  path = 'image',
): ScopeResult {
  if (family === undefined) return { ok: true, value: ALL_KINDS };
  const kinds = kindsForFamily(kindMap, family.vendor, family.product);
  const name = `${family.vendor} / ${family.product}`;
  if (kinds) return { ok: true, value: { allowed: kinds, family: name } };
  const entry = JSON.stringify({ vendor: family.vendor, product: family.product, kinds: ['K…'] });
  return {
    ok: false,
    issue: issue(
      path,
      'kind-unknown-image',
      `no appliance kind is known for image family ${name}; add ${entry} to the kind-map file named by ${KIND_MAP_ENV} (docs/order-request.md)`,
    ),
  };
}

export function resolveKind(evidence: KindEvidence, scope: KindScope): KindResolution {
  if (evidence.hint !== undefined) return resolveHint(evidence.hint, scope);
  if (scope.allowed.length === 1) return { ok: true, kind: scope.allowed[0] };

  const supplied = Object.keys(evidence.config).filter(
    (name) => !(COMMON_VENDOR_FIELDS as readonly string[]).includes(name),
  );
  const accepting = scope.allowed.filter((kind) => supplied.every((name) => hasField(kind, name)));
  const fitting = accepting.filter((kind) => requiredFields(kind).every((name) => evidence.config[name] !== undefined));
  // With no complete fit, a single kind that at least knows every supplied field is the evident intent:
  // choosing it lets the checks say which of its fields is missing.
  const candidates = fitting.length > 0 ? fitting : accepting;
  if (candidates.length === 1) return { ok: true, kind: candidates[0] };
  if (candidates.length === 0) return { ok: false, issues: [noMatch(scope)] };

  const refusals = candidates.map((kind) => ({ kind, issues: ruleIssues(kind, evidence) }));
  const clean = refusals.filter((refusal) => refusal.issues.length === 0);
  if (clean.length === 1) return { ok: true, kind: clean[0].kind };
  if (clean.length > 1) return { ok: false, issues: [ambiguous(candidates, scope)] };
  return resolveByCommonFaults(refusals, scope);
}

interface Refusal {
  kind: KindId;
  issues: Issue[];
}

/**
 * No candidate passes every rule. The faults every candidate finds alike (same path, same rule) are the request's
 * whatever the kind: when exactly one candidate finds nothing else, it is the kind, and its checks name those faults;
 * otherwise they are reported as they are, beside the ambiguity that remains once they are mended. With no common
 * fault the kinds are told apart by nothing the requester got wrong everywhere: the ambiguity alone.
 */
function resolveByCommonFaults(refusals: readonly Refusal[], scope: KindScope): KindResolution {
  const common = commonFaults(refusals);
  const candidates = refusals.map((refusal) => refusal.kind);
  if (common.length === 0) return { ok: false, issues: [ambiguous(candidates, scope)] };
  const keys = new Set(common.map(faultKey));
  const cleanOtherwise = refusals.filter((refusal) => refusal.issues.every((found) => keys.has(faultKey(found))));
  if (cleanOtherwise.length === 1) return { ok: true, kind: cleanOtherwise[0].kind };
  const remaining = cleanOtherwise.length > 1 ? cleanOtherwise.map((refusal) => refusal.kind) : candidates;
  return { ok: false, issues: [...common, ambiguous(remaining, scope)] };
}

const faultKey = (found: Issue) => `${found.rule} ${found.path}`;

/**
 * The issues every refusal holds (by path and rule), in the first one's order; where the kinds word one differently
 * (each names its own limit), every wording, once each.
 */
function commonFaults(refusals: readonly Refusal[]): Issue[] {
  const [first, ...others] = refusals;
  const common: Issue[] = [];
  for (const found of first.issues) {
    const key = faultKey(found);
    if (common.some((kept) => faultKey(kept) === key)) continue;
    if (!others.every((refusal) => refusal.issues.some((other) => faultKey(other) === key))) continue;
    const alike = refusals.flatMap((refusal) => refusal.issues.filter((other) => faultKey(other) === key));
    const messages = [...new Set(alike.map((other) => other.message))];
    common.push(issue(found.path, found.rule, messages.join('; and ')));
  }
  return common;
}

function resolveHint(hint: unknown, scope: KindScope): KindResolution {
  if (!isKindId(hint))
    return { ok: false, issues: [issue('kind', 'kind-unknown', `kind must be one of ${KIND_IDS.join(', ')}`)] };
  if (!scope.allowed.includes(hint)) {
    return {
      ok: false,
      issues: [
        issue(
          'kind',
          'kind-not-allowed',
          `kind ${hint} is not allowed for image family ${scope.family ?? '(unknown)'}, which allows ${scope.allowed.join(', ')}`,
        ),
      ],
    };
  }
  return { ok: true, kind: hint };
}

function hasField(kind: KindId, name: string): boolean {
  return APPLIANCE_KINDS[kind].fields.some((field) => field.name === name);
}

function requiredFields(kind: KindId): string[] {
  return APPLIANCE_KINDS[kind].fields.filter((field) => field.presence === 'required').map((field) => field.name);
}

/** What the kind's rules find wrong: its fields' formats and conditions, its sizes, its vNIC range. */
function ruleIssues(kind: KindId, evidence: KindEvidence): Issue[] {
  return [
    ...checkVendorConfig(kind, evidence.config, 'order'),
    ...(evidence.size === undefined ? [] : checkSizeForKind(kind, evidence.size, evidence.sizePath ?? 'size')),
    ...(evidence.vnicCount === undefined ? [] : checkVnicCount(kind, evidence.vnicCount)),
  ];
}

function noMatch(scope: KindScope): Issue {
  if (scope.family === undefined) {
    return issue(
      'vendorConfig',
      'kind-no-match',
      'vendorConfig fields match no appliance kind; see docs/order-request.md for each kind\'s fields, or add "kind"',
    );
  }
  const needs = scope.allowed.map((kind) => `${kind} needs ${requiredFields(kind).join(' + ')}`).join('; ');
  return issue(
    'vendorConfig',
    'kind-no-match',
    `vendorConfig fits none of the kinds image family ${scope.family} allows: ${needs}`,
  );
}

function ambiguous(candidates: readonly KindId[], scope: KindScope): Issue {
  const where =
    scope.family === undefined
      ? 'name the image by {vendor, product, version} (or check with --images), or add "kind"'
      : 'add "kind"';
  return issue(
    'vendorConfig',
    'kind-ambiguous',
    `vendorConfig fits kinds ${candidates.join(', ')} alike; ${where} with one of them`,
  );
}
