/** temporal.api.operatorservice.v1.OperatorService: custom search attributes (Add / List / Remove). */
import type proto from '@temporalio/proto';
import { alreadyExists, invalidArgument, notFound } from '../errors.js';
import type { EngineContext } from '../engine/context.js';
import {
  fromIndexedValueType,
  isValidAttributeName,
  SYSTEM_SEARCH_ATTRIBUTES,
  toIndexedValueType,
} from '../visibility/index.js';
import type { RequestOf, ServiceHandlers } from './grpc-server.js';

type V1 = typeof proto.temporal.api.operatorservice.v1;
type Req<K extends keyof V1> = RequestOf<V1[K]>;

export function operatorServiceHandlers(ctx: EngineContext): ServiceHandlers {
  return {
    AddSearchAttributes: (req: Req<'AddSearchAttributesRequest'>) => {
      const record = ctx.requireNamespace(req.namespace);
      const additions = Object.entries(req.searchAttributes ?? {});
      if (!additions.length) throw invalidArgument('searchAttributes must name at least one attribute to add');
      const checked = additions.map(([name, indexedType]) => {
        if (!isValidAttributeName(name))
          throw invalidArgument(
            `search attribute name ${JSON.stringify(name)} must start with a letter and hold only letters, digits and _`,
          );
        if (SYSTEM_SEARCH_ATTRIBUTES[name])
          throw invalidArgument(`search attribute ${name} is a system attribute and cannot be added`);
        const type = fromIndexedValueType(indexedType);
        if (!type) throw invalidArgument(`search attribute ${name}: unknown type ${indexedType}`);
        const existing = record.searchAttributes.get(name);
        if (existing && existing !== type)
          throw alreadyExists(`search attribute ${name} already exists with type ${existing}`);
        return [name, type] as const;
      });
      for (const [name, type] of checked) record.searchAttributes.set(name, type);
      ctx.store.namespaceChanged?.(record);
      ctx.log(`search attributes added in ${record.name}: ${checked.map(([n, t]) => `${n}=${t}`).join(', ')}`);
      return {};
    },
    ListSearchAttributes: (req: Req<'ListSearchAttributesRequest'>) => {
      const record = ctx.requireNamespace(req.namespace);
      return {
        customAttributes: Object.fromEntries(
          [...record.searchAttributes].map(([name, type]) => [name, toIndexedValueType(type)]),
        ),
        systemAttributes: Object.fromEntries(
          Object.entries(SYSTEM_SEARCH_ATTRIBUTES).map(([name, type]) => [name, toIndexedValueType(type)]),
        ),
        storageSchema: {},
      };
    },
    RemoveSearchAttributes: (req: Req<'RemoveSearchAttributesRequest'>) => {
      const record = ctx.requireNamespace(req.namespace);
      const names = req.searchAttributes ?? [];
      for (const name of names)
        if (!record.searchAttributes.has(name))
          throw notFound(`search attribute ${name} is not registered in namespace ${record.name}`);
      for (const name of names) record.searchAttributes.delete(name);
      ctx.store.namespaceChanged?.(record);
      return {};
    },
  };
}
