/** Public face of domain/: appliance kinds, the kind map, catalog selection, checks, the order builder, secrets. */
export { LEGACY_SIZE_LABELS, SIZE_LABELS } from '../schemas/index.js';
export type { LegacySize, SizeLabel } from '../schemas/index.js';
export type { Issue } from './issues.js';
export { joinPath, ROOT_PATH } from './issues.js';
export type { Selection } from './result.js';
export { APPLIANCE_KINDS, COMMON_VENDOR_FIELDS, isKindId, KIND_IDS } from './kinds.js';
export type { ApplianceKind, Condition, FieldFormat, FieldSpec, KindId } from './kinds.js';
export {
  DEFAULT_KIND_MAP,
  KIND_MAP_ENV,
  KindMapError,
  kindMapFileSchema,
  kindsForFamily,
  kindMapFromText,
  mergeKindMap,
} from './kind-map.js';
export type { KindMap, KindMapEntry, KindMapFile } from './kind-map.js';
export { resolveKind } from './resolve-kind.js';
export type { KindEvidence, KindResolution, KindScope } from './resolve-kind.js';
export { isLocationUsable, selectLocation } from './select-location.js';
export { selectImage } from './select-image.js';
export type { CatalogImage } from './select-image.js';
export { compareVersions } from './versions.js';
export { checkOrderRequest } from './check-request.js';
export type { CheckOptions, RequestCheck } from './check-request.js';
export { checkOrderObject } from './check-order.js';
export type { OrderCheck, OrderImageFacts } from './check-order.js';
export { buildOrder, OrderBuildError, productNameOf, resolveOrderKind } from './build-order.js';
export type { BuiltOrder, OrderKind } from './build-order.js';
export { isSecretField, REDACTED, redactOrderRequest, redactVendorConfig } from './secrets.js';
export { canonicalJson, isRecord } from './json.js';
export { orderIdFor, orderIdOfWorkflow, orderWorkflowId, submitterNamespace } from './order-id.js';
export {
  canTransition,
  CANCELLABLE_STATES,
  describeDuration,
  DURATION_RULE,
  durationSchema,
  FINAL_STATES,
  hasEnded,
  ORDER_STATES,
  pollDelay,
  verdictOf,
} from './lifecycle/index.js';
export type { OrderState, ProvisioningPlan } from './lifecycle/index.js';
