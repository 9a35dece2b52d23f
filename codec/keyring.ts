import { z } from 'zod';

/** AES-256 keys are 32 bytes. */
export const KEY_BYTES = 32;

export const CODEC_KEYS_VARIABLE = 'MVE_CODEC_KEYS';

/** Bad key configuration. Messages name the entry and the rule, never the key material. */
export class CodecKeyError extends Error {
  override name = 'CodecKeyError';
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const keyEntrySchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, 'must be 1 to 64 characters of letters, digits, ".", "_" or "-"'),
  key: z.string().superRefine((text, ctx) => {
    if (!BASE64.test(text) || text.length % 4 !== 0) {
      ctx.addIssue({ code: 'custom', message: 'must be standard base64 (A-Z a-z 0-9 + /, padded with =)' });
      return;
    }
    const length = Buffer.from(text, 'base64').length;
    if (length !== KEY_BYTES) {
      ctx.addIssue({ code: 'custom', message: `must decode to ${KEY_BYTES} bytes (256 bits), not ${length}` });
    }
  }),
});

/** The JSON form of a keyring, as kept in a key file: the first key is the current one. */
export const keyringFileSchema = z.strictObject({
  keys: z
    .array(keyEntrySchema)
    .min(1, 'must hold at least one key')
    .superRefine((keys, ctx) => {
      const seen = new Set<string>();
      keys.forEach((entry, index) => {
        if (seen.has(entry.id)) {
          ctx.addIssue({
            code: 'custom',
            path: [index, 'id'],
            message: `is a duplicate: key id "${entry.id}" appears twice`,
          });
        }
        seen.add(entry.id);
      });
    }),
});

export type KeyringFile = z.input<typeof keyringFileSchema>;

/**
 * The keys the codec knows: the current one encrypts, every one (current included) decrypts, so a key can
 * be rotated by putting a new key first and keeping the old ones until no history needs them.
 * Key bytes live in a private field so that logging a keyring prints no key material.
 */
export class Keyring {
  readonly #keys: ReadonlyMap<string, Buffer>;
  readonly currentKeyId: string;

  private constructor(keys: ReadonlyMap<string, Buffer>, currentKeyId: string) {
    this.#keys = keys;
    this.currentKeyId = currentKeyId;
  }

  /** Checks a keyring document (as from a key file); `source` names it in errors, `noun` says what the keys are for. */
  static fromJson(value: unknown, source: string, noun = 'codec keys'): Keyring {
    const parsed = keyringFileSchema.safeParse(value);
    if (!parsed.success) {
      const details = parsed.error.issues.map((issue) => `${describePath(issue.path)}: ${issue.message}`).join('; ');
      throw new CodecKeyError(`invalid ${noun} (${source}): ${details}`);
    }
    const keys = new Map(parsed.data.keys.map((entry) => [entry.id, Buffer.from(entry.key, 'base64')] as const));
    return new Keyring(keys, parsed.data.keys[0].id);
  }

  /** Parses `id:base64key[,id:base64key...]`, the first being current, as in MVE_CODEC_KEYS. */
  static fromText(text: string, source = CODEC_KEYS_VARIABLE, noun = 'codec keys'): Keyring {
    const entries = text
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    const keys = entries.map((entry, index) => {
      const colon = entry.indexOf(':');
      if (colon <= 0) {
        throw new CodecKeyError(`invalid ${noun} (${source}): entry ${index + 1} must be written id:base64key`);
      }
      return { id: entry.slice(0, colon), key: entry.slice(colon + 1) };
    });
    return Keyring.fromJson({ keys }, source, noun);
  }

  get ids(): string[] {
    return [...this.#keys.keys()];
  }

  currentKey(): Buffer {
    return this.#keys.get(this.currentKeyId)!;
  }

  keyFor(id: string): Buffer | undefined {
    return this.#keys.get(id);
  }

  /** Every key as `{ id, key: base64 }`, current first: only for code that must carry the keys elsewhere (the workflow bundle). */
  exportEntries(): Array<{ id: string; key: string }> {
    return [...this.#keys].map(([id, key]) => ({ id, key: key.toString('base64') }));
  }
}

/** The keyring configured in the environment, or undefined when MVE_CODEC_KEYS is unset or empty. */
export function keyringFromEnvironment(env: Readonly<Record<string, string | undefined>>): Keyring | undefined {
  const text = env[CODEC_KEYS_VARIABLE]?.trim();
  return text ? Keyring.fromText(text) : undefined;
}

/** Entries are numbered from 1 in messages, as a person counts them in MVE_CODEC_KEYS. */
function describePath(path: readonly PropertyKey[]): string {
  const [first, index, field] = path;
  if (first === 'keys' && typeof index === 'number') return `entry ${index + 1}${field ? ` ${String(field)}` : ''}`;
  return path.length > 0 ? path.map(String).join('.') : '(document)';
}
