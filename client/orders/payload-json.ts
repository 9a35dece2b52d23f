import type { Payload } from '@temporalio/common';
import { InvalidInput } from './refusals.js';

// Proto3 JSON of temporal.api.common.v1.Payload by hand: `{ metadata: { key: base64 }, data: base64 }`, both
// fields optional. Not @temporalio/common's proto-utils: with this install's two copies of protobufjs 8 (under
// @temporalio/common and @temporalio/proto) its `instanceof Type` check fails and every call throws.
const BASE64 = /^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$/;

function bytesFromJson(value: unknown, path: string): Uint8Array {
  if (typeof value !== 'string' || !BASE64.test(value)) {
    throw new InvalidInput('INVALID_INPUT', `${path}: must be base64 (proto3 JSON bytes)`, [
      { path, message: 'must be base64' },
    ]);
  }
  return Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
}

export function payloadFromJson(item: unknown, path: string): Payload {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    throw new InvalidInput('INVALID_INPUT', `${path}: must be a proto3 JSON payload { metadata, data }`, [
      { path, message: 'must be an object' },
    ]);
  }
  // Other fields (e.g. newer servers' externalPayloads) are ignored, as proto-utils' parse options did.
  const { metadata = {}, data = '' } = item as Record<string, unknown>;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    throw new InvalidInput('INVALID_INPUT', `${path}.metadata: must be an object of base64 values`, [
      { path: `${path}.metadata`, message: 'must be an object' },
    ]);
  }
  return {
    metadata: Object.fromEntries(
      Object.entries(metadata).map(([key, value]) => [key, bytesFromJson(value, `${path}.metadata.${key}`)]),
    ),
    data: bytesFromJson(data, `${path}.data`),
  };
}

export function payloadToJson(payload: Payload): { metadata: Record<string, string>; data?: string } {
  const metadata = Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [
      key,
      Buffer.from(value ?? new Uint8Array()).toString('base64'),
    ]),
  );
  const data = payload.data && payload.data.length > 0 ? Buffer.from(payload.data).toString('base64') : undefined;
  return { metadata, ...(data === undefined ? {} : { data }) };
}
