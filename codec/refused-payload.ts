/**
 * What a worker's codec gives a workflow instead of a payload it refuses as data (not encrypted with the payload
 * codec, or altered): this object, holding the codec's reason and nothing of what was sent. Workflow code refuses it
 * as the message it stands for (docs/security.md, "The codec"). Imports nothing: the workflow sandbox bundles it.
 */
export interface RefusedPayload {
  refusedPayload: string;
}

/** The codec's reason when `value` stands for a refused payload; undefined for anything else. */
export function refusedPayloadReason(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const reason = (value as Partial<RefusedPayload>).refusedPayload;
  return typeof reason === 'string' ? reason : undefined;
}
