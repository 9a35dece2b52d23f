/**
 * The appliance kinds of spec 2.5 as data: each kind's vendorConfig fields (presence, format, secrecy),
 * its vNIC range (2.5, 2.7) and its size restrictions (2.5, 2.6). Every check reads this table; no kind has
 * code of its own. K15's two models are the kinds `K15A` (model A) and `K15B` (model B).
 */
import type { HostKind, SizeLabel } from '../schemas/index.js';

export const KIND_IDS = [
  'K1',
  'K2',
  'K3',
  'K4',
  'K5',
  'K6',
  'K7',
  'K8',
  'K9',
  'K10',
  'K11',
  'K12',
  'K13',
  'K14',
  'K15A',
  'K15B',
  'K16',
  'K17',
] as const;
export type KindId = (typeof KIND_IDS)[number];

export function isKindId(value: unknown): value is KindId {
  return typeof value === 'string' && (KIND_IDS as readonly string[]).includes(value);
}

/** How a field's value is checked; see domain/field-formats.ts. */
export type FieldFormat =
  | { type: 'sshKey'; rsaBits: readonly number[]; ed25519: boolean }
  | { type: 'sha512crypt' }
  | { type: 'sha256crypt' }
  | { type: 'bcrypt' }
  /** The spec's "SHA-512 hash": a sha512crypt hash or a 128-hex-digit SHA-512 digest (docs/order-request.md). */
  | { type: 'sha512' }
  | { type: 'hex'; lengths: readonly number[]; letterCase: 'lower' | 'any' }
  | { type: 'uuidv4' }
  | { type: 'base64' }
  | { type: 'host'; allow: readonly HostKind[] }
  | { type: 'uri' }
  | { type: 'boolean' }
  | { type: 'text'; min: number; max?: number; forbid?: readonly string[] }
  | { type: 'pattern'; pattern: RegExp; description: string }
  | { type: 'identifierOrEmail'; max: number };

export interface Condition {
  field: string;
  equals: boolean;
}

export interface FieldSpec {
  name: string;
  /** `required`, `optional`, or required only while a condition holds. */
  presence: 'required' | 'optional' | { requiredWhen: Condition };
  /** The field may be given only while this condition holds. */
  onlyWhen?: Condition;
  /** Fields that must be given together with this one. */
  requiresAlso?: readonly string[];
  format: FieldFormat;
  /** Secret values are never logged, stored or echoed (domain/secrets.ts). */
  secret: boolean;
  /** The spec's rule, for documentation and messages. */
  rule: string;
}

export interface ApplianceKind {
  id: KindId;
  title: string;
  fields: readonly FieldSpec[];
  vnics: {
    min: number;
    max: number;
    /** False when the spec does not state the minimum (K14): `min` is then our assumption. */
    minDocumented: boolean;
  };
  /** Size restrictions beyond what the image offers. */
  sizes?: { only?: readonly SizeLabel[]; never?: readonly SizeLabel[] };
}

const RSA_2048 = { type: 'sshKey', rsaBits: [2048], ed25519: false } as const;
const NOT_BLANK_TEXT = { type: 'text', min: 1 } as const;
const ADMIN_PASSWORD: FieldSpec = {
  name: 'adminPassword',
  presence: 'required',
  format: { type: 'text', min: 9, max: 100, forbid: ['"', '\r', '\n'] },
  secret: true,
  rule: 'plain text, 9 to 100 characters; no double quote, carriage return or line feed',
};
const FMC_CHARSET = {
  type: 'pattern',
  pattern: /^[A-Za-z0-9-]{1,37}$/,
  description: '1 to 37 characters of A-Z, a-z, 0-9 and hyphen',
} as const;
const MANAGED_CENTRALLY: Condition = { field: 'manageLocally', equals: false };
const K15_FIELDS: readonly FieldSpec[] = [
  {
    name: 'ionKey',
    presence: 'required',
    format: {
      type: 'pattern',
      pattern: /^[0-9a-fA-F]{10}-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
      description: 'hexadecimal groups of length 10-8-4-4-4-12 separated by hyphens',
    },
    secret: true,
    rule: 'hexadecimal groups 10-8-4-4-4-12 separated by hyphens',
  },
  {
    name: 'secretKey',
    presence: 'required',
    format: { type: 'hex', lengths: [40], letterCase: 'any' },
    secret: true,
    rule: '40 hexadecimal characters',
  },
];

function sshField(
  name: string,
  format: FieldFormat,
  rule: string,
  presence: FieldSpec['presence'] = 'required',
): FieldSpec {
  // Public keys are not secret in themselves, but tickets have no business spreading them into logs either.
  return { name, presence, format, secret: true, rule };
}

const vnicRange = (min: number, max = 5) => ({ min, max, minDocumented: true });

export const APPLIANCE_KINDS: Readonly<Record<KindId, ApplianceKind>> = {
  K1: {
    id: 'K1',
    title: 'key-only router',
    fields: [sshField('sshPublicKey', RSA_2048, 'RSA 2048-bit public key, OpenSSH or RFC 4716')],
    vnics: vnicRange(1),
  },
  K2: {
    id: 'K2',
    title: 'edge with orchestrator activation',
    fields: [
      sshField('sshPublicKey', RSA_2048, 'RSA 2048-bit public key'),
      {
        name: 'orchestratorAddress',
        presence: 'required',
        format: { type: 'host', allow: ['ipv4', 'ipv6', 'fqdn'] },
        secret: false,
        rule: 'IPv4, IPv6 or FQDN',
      },
      {
        name: 'orchestratorActivationCode',
        presence: 'required',
        format: NOT_BLANK_TEXT,
        secret: true,
        rule: 'activation code',
      },
    ],
    vnics: vnicRange(1, 1),
  },
  K3: {
    id: 'K3',
    title: 'SD-WAN edge with account credentials',
    fields: [
      { name: 'accountName', presence: 'required', format: NOT_BLANK_TEXT, secret: false, rule: 'account name' },
      { name: 'accountKey', presence: 'required', format: NOT_BLANK_TEXT, secret: true, rule: 'account key' },
    ],
    vnics: vnicRange(2),
  },
  K4: {
    id: 'K4',
    title: 'cloud-init edge',
    fields: [
      {
        name: 'cloudInit',
        presence: 'required',
        format: { type: 'base64' },
        secret: true,
        rule: 'base64-encoded cloud-init file',
      },
    ],
    vnics: vnicRange(1),
  },
  K5: {
    id: 'K5',
    title: 'firewall with password and key',
    fields: [ADMIN_PASSWORD, sshField('sshPublicKey', RSA_2048, 'RSA 2048-bit public key')],
    vnics: vnicRange(1, 1),
  },
  K6: {
    id: 'K6',
    title: 'virtual firewall with optional central management',
    fields: [
      ADMIN_PASSWORD,
      { name: 'manageLocally', presence: 'required', format: { type: 'boolean' }, secret: false, rule: 'boolean' },
      {
        name: 'fmcIpAddress',
        presence: { requiredWhen: MANAGED_CENTRALLY },
        onlyWhen: MANAGED_CENTRALLY,
        format: { type: 'host', allow: ['ipv4', 'ipv6', 'fqdn'] },
        secret: false,
        rule: 'IPv4, IPv6 or FQDN of the management server',
      },
      {
        name: 'fmcRegistrationKey',
        presence: { requiredWhen: MANAGED_CENTRALLY },
        onlyWhen: MANAGED_CENTRALLY,
        format: FMC_CHARSET,
        secret: true,
        rule: FMC_CHARSET.description,
      },
      {
        name: 'fmcNatId',
        presence: 'optional',
        onlyWhen: MANAGED_CENTRALLY,
        format: FMC_CHARSET,
        secret: true,
        rule: FMC_CHARSET.description,
      },
    ],
    vnics: vnicRange(4),
    sizes: { never: ['MVE 2/8'] },
  },
  K7: {
    id: 'K7',
    title: 'cloud-managed security appliance',
    fields: [
      { name: 'token', presence: 'required', format: NOT_BLANK_TEXT, secret: true, rule: 'vendor dashboard API token' },
    ],
    vnics: vnicRange(2, 2),
  },
  K8: {
    id: 'K8',
    title: 'load balancer',
    fields: [
      {
        name: 'adminPasswordHash',
        presence: 'required',
        format: { type: 'sha512crypt' },
        secret: true,
        rule: 'sha512crypt hash',
      },
      sshField(
        'adminSshPublicKey',
        { type: 'sshKey', rsaBits: [2048], ed25519: true },
        'RSA 2048-bit or ED25519 public key',
      ),
    ],
    vnics: vnicRange(1),
  },
  K9: {
    id: 'K9',
    title: 'firewall with optional license file',
    fields: [
      sshField('sshPublicKey', RSA_2048, 'RSA 2048-bit public key'),
      {
        name: 'licenseData',
        presence: 'optional',
        format: { type: 'base64' },
        secret: true,
        rule: 'base64-encoded license file',
      },
    ],
    vnics: vnicRange(1),
  },
  K10: {
    id: 'K10',
    title: 'session router with registration code',
    fields: [
      {
        name: 'registrationCode',
        presence: 'required',
        format: NOT_BLANK_TEXT,
        secret: true,
        rule: 'registration code',
      },
    ],
    vnics: vnicRange(3),
  },
  K11: {
    id: 'K11',
    title: 'security gateway with optional onboarding',
    fields: [
      {
        name: 'adminPasswordHash',
        presence: 'required',
        format: { type: 'sha512crypt' },
        secret: true,
        rule: 'sha512crypt hash',
      },
      sshField('adminSshPublicKey', RSA_2048, 'RSA 2048-bit public key'),
      {
        name: 'onboardDeviceId',
        presence: 'optional',
        format: { type: 'uuidv4' },
        secret: false,
        rule: 'UUID version 4',
      },
      {
        name: 'onboardPasswordHash',
        presence: 'optional',
        format: { type: 'sha512' },
        secret: true,
        rule: 'SHA-512 hash',
      },
      {
        name: 'onboardSecret',
        presence: 'optional',
        format: { type: 'hex', lengths: [128], letterCase: 'lower' },
        secret: true,
        rule: '128 lowercase hexadecimal characters',
      },
      sshField(
        'onboardSshPublicKey',
        { type: 'sshKey', rsaBits: [3072], ed25519: false },
        'RSA 3072-bit public key',
        'optional',
      ),
    ],
    vnics: vnicRange(2),
  },
  K12: {
    id: 'K12',
    title: 'secure edge with optional activation',
    fields: [
      sshField('adminSshPublicKey', RSA_2048, 'RSA 2048-bit public key'),
      {
        name: 'adminPasswordHash',
        presence: 'required',
        format: { type: 'sha512' },
        secret: true,
        rule: 'SHA-512 hash',
      },
      {
        name: 'activationToken',
        presence: 'optional',
        requiresAlso: ['activationUri'],
        format: { type: 'hex', lengths: [64], letterCase: 'any' },
        secret: true,
        rule: '64 hexadecimal characters',
      },
      {
        name: 'activationUri',
        presence: 'optional',
        requiresAlso: ['activationToken'],
        format: { type: 'uri' },
        secret: false,
        rule: 'activation URI',
      },
    ],
    vnics: vnicRange(1),
  },
  K13: {
    id: 'K13',
    title: 'open firewall/router',
    fields: [
      sshField(
        'adminSshPublicKey',
        { type: 'sshKey', rsaBits: [2048, 4096], ed25519: true },
        'RSA 2048-bit, RSA 4096-bit or ED25519 public key',
      ),
      {
        name: 'adminPasswordHash',
        presence: 'required',
        format: { type: 'bcrypt' },
        secret: true,
        rule: 'bcrypt hash $2y$NN$ + 53 characters',
      },
    ],
    vnics: vnicRange(2),
  },
  K14: {
    id: 'K14',
    title: 'fusion hub',
    fields: [
      {
        name: 'adminPasswordHash',
        presence: 'required',
        format: { type: 'hex', lengths: [40], letterCase: 'any' },
        secret: true,
        rule: 'SHA-1 hash, 40 hexadecimal characters',
      },
      {
        name: 'licenseData',
        presence: 'required',
        format: { type: 'pattern', pattern: /^[A-Za-z0-9]{16}$/, description: 'exactly 16 alphanumeric characters' },
        secret: true,
        rule: 'exactly 16 alphanumeric characters',
      },
    ],
    // The spec does not show K14's minimum; 1 is the floor every kind shares (2.7).
    vnics: { min: 1, max: 5, minDocumented: false },
  },
  K15A: {
    id: 'K15A',
    title: 'SD-WAN edge with controller keys, model A',
    fields: K15_FIELDS,
    vnics: vnicRange(4),
    sizes: { only: ['MVE 2/8', 'MVE 4/16', 'MVE 8/32'] },
  },
  K15B: {
    id: 'K15B',
    title: 'SD-WAN edge with controller keys, model B',
    fields: K15_FIELDS,
    vnics: vnicRange(3),
    sizes: { only: ['MVE 8/32'] },
  },
  K16: {
    id: 'K16',
    title: 'virtual firewall with authorization code',
    fields: [
      sshField('sshPublicKey', RSA_2048, 'RSA 2048-bit public key'),
      {
        name: 'adminPasswordHash',
        presence: 'required',
        format: { type: 'sha256crypt' },
        secret: true,
        rule: 'sha256crypt hash',
      },
      {
        name: 'licenseData',
        presence: 'optional',
        format: { type: 'pattern', pattern: /^\d{8,9}$/, description: 'an authorization code of 8 or 9 digits' },
        secret: true,
        rule: '8 or 9 digits',
      },
    ],
    vnics: vnicRange(2),
  },
  K17: {
    id: 'K17',
    title: 'SD-WAN edge with director and controller',
    fields: [
      {
        name: 'directorAddress',
        presence: 'required',
        format: { type: 'host', allow: ['ipv4', 'fqdn'] },
        secret: false,
        rule: 'IPv4 or FQDN',
      },
      {
        name: 'controllerAddress',
        presence: 'required',
        format: { type: 'host', allow: ['ipv4', 'fqdn'] },
        secret: false,
        rule: 'IPv4 or FQDN',
      },
      {
        name: 'localAuth',
        presence: 'required',
        format: { type: 'identifierOrEmail', max: 100 },
        secret: false,
        rule: 'identifier or e-mail, up to 100 characters',
      },
      {
        name: 'remoteAuth',
        presence: 'required',
        format: { type: 'identifierOrEmail', max: 100 },
        secret: false,
        rule: 'identifier or e-mail, up to 100 characters',
      },
      {
        name: 'serialNumber',
        presence: 'required',
        format: { type: 'text', min: 1, max: 100 },
        secret: false,
        rule: 'up to 100 characters',
      },
    ],
    vnics: vnicRange(1),
  },
};

/** vendorConfig fields every kind shares (spec 2.4); the engine fills them in from image and size. */
export const COMMON_VENDOR_FIELDS = ['imageId', 'mveLabel', 'productSize'] as const;
