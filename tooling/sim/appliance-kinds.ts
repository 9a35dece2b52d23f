/**
 * The simulator's reading of spec 2.5-2.7: for each appliance kind, its own `vendorConfig` fields, its
 * vNIC range and its size restrictions. Written from the spec, not taken from the engine's domain code,
 * so that a rule the engine gets wrong is caught here instead of being repeated.
 * K15's two models are the kinds `K15A` and `K15B`, the names the kind map uses for them.
 */
import type { FieldCondition, FieldRule } from './field-checks.js';
import type { DocumentedSize } from './sizes.js';
import {
  absoluteUri,
  address,
  base64Text,
  bcrypt,
  hexDigits,
  identifierOrEmail,
  matching,
  sha256Crypt,
  sha512Crypt,
  sha512Hash,
  someText,
  sshPublicKey,
  text,
  trueOrFalse,
  uuidVersion4,
} from './value-rules.js';

export const SIM_KIND_IDS = [
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
export type SimKindId = (typeof SIM_KIND_IDS)[number];

export interface ApplianceKindRules {
  title: string;
  fields: readonly FieldRule[];
  vnics: { min: number; max: number };
  /** Sizes beyond what the image offers: only these, or never these. */
  sizes?: { only?: readonly DocumentedSize[]; never?: readonly DocumentedSize[] };
}

const rsa2048 = sshPublicKey({ rsaBits: [2048] });
/** K5 and K6: plain text, 9 to 100 characters, no double quote, carriage return or line feed. */
const adminPassword = text({ min: 9, max: 100, forbidden: ['"', '\r', '\n'] });
/** K6: 1 to 37 characters of A-Z, a-z, 0-9 and hyphen. */
const managementKey = matching(/^[A-Za-z0-9-]{1,37}$/, '1 to 37 characters of A-Z, a-z, 0-9 and hyphen');
const managedCentrally: FieldCondition = {
  says: 'manageLocally is false',
  holds: (config) => config['manageLocally'] === false,
};
const k15Fields: readonly FieldRule[] = [
  {
    name: 'ionKey',
    required: true,
    value: matching(
      /^[0-9a-fA-F]{10}(?:-[0-9a-fA-F]{8})(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$/,
      'hexadecimal groups of 10-8-4-4-4-12 digits joined by hyphens',
    ),
  },
  { name: 'secretKey', required: true, value: hexDigits(40) },
];

export const APPLIANCE_KIND_RULES: Readonly<Record<SimKindId, ApplianceKindRules>> = {
  K1: {
    title: 'key-only router',
    fields: [{ name: 'sshPublicKey', required: true, value: rsa2048 }],
    vnics: { min: 1, max: 5 },
  },
  K2: {
    title: 'edge with orchestrator activation',
    fields: [
      { name: 'sshPublicKey', required: true, value: rsa2048 },
      { name: 'orchestratorAddress', required: true, value: address(['IPv4', 'IPv6', 'FQDN']) },
      { name: 'orchestratorActivationCode', required: true, value: someText },
    ],
    vnics: { min: 1, max: 1 },
  },
  K3: {
    title: 'SD-WAN edge with account credentials',
    fields: [
      { name: 'accountName', required: true, value: someText },
      { name: 'accountKey', required: true, value: someText },
    ],
    vnics: { min: 2, max: 5 },
  },
  K4: {
    title: 'cloud-init edge',
    fields: [{ name: 'cloudInit', required: true, value: base64Text }],
    vnics: { min: 1, max: 5 },
  },
  K5: {
    title: 'firewall with password and key',
    fields: [
      { name: 'adminPassword', required: true, value: adminPassword },
      { name: 'sshPublicKey', required: true, value: rsa2048 },
    ],
    vnics: { min: 1, max: 1 },
  },
  K6: {
    title: 'virtual firewall with optional central management',
    fields: [
      { name: 'adminPassword', required: true, value: adminPassword },
      { name: 'manageLocally', required: true, value: trueOrFalse },
      { name: 'fmcIpAddress', required: managedCentrally, value: address(['IPv4', 'IPv6', 'FQDN']) },
      { name: 'fmcRegistrationKey', required: managedCentrally, value: managementKey },
      { name: 'fmcNatId', required: false, appliesWhen: managedCentrally, value: managementKey },
    ],
    vnics: { min: 4, max: 5 },
    sizes: { never: ['MVE 2/8'] },
  },
  K7: {
    title: 'cloud-managed security appliance',
    fields: [{ name: 'token', required: true, value: someText }],
    vnics: { min: 2, max: 2 },
  },
  K8: {
    title: 'load balancer',
    fields: [
      { name: 'adminPasswordHash', required: true, value: sha512Crypt },
      { name: 'adminSshPublicKey', required: true, value: sshPublicKey({ rsaBits: [2048], ed25519: true }) },
    ],
    vnics: { min: 1, max: 5 },
  },
  K9: {
    title: 'firewall with optional license file',
    fields: [
      { name: 'sshPublicKey', required: true, value: rsa2048 },
      { name: 'licenseData', required: false, value: base64Text },
    ],
    vnics: { min: 1, max: 5 },
  },
  K10: {
    title: 'session router with registration code',
    fields: [{ name: 'registrationCode', required: true, value: someText }],
    vnics: { min: 3, max: 5 },
  },
  K11: {
    title: 'security gateway with optional onboarding',
    fields: [
      { name: 'adminPasswordHash', required: true, value: sha512Crypt },
      { name: 'adminSshPublicKey', required: true, value: rsa2048 },
      { name: 'onboardDeviceId', required: false, value: uuidVersion4 },
      { name: 'onboardPasswordHash', required: false, value: sha512Hash },
      { name: 'onboardSecret', required: false, value: hexDigits(128, { lowercase: true }) },
      { name: 'onboardSshPublicKey', required: false, value: sshPublicKey({ rsaBits: [3072] }) },
    ],
    vnics: { min: 2, max: 5 },
  },
  K12: {
    title: 'secure edge with optional activation',
    fields: [
      { name: 'adminSshPublicKey', required: true, value: rsa2048 },
      { name: 'adminPasswordHash', required: true, value: sha512Hash },
      { name: 'activationToken', required: false, comesWith: 'activationUri', value: hexDigits(64) },
      { name: 'activationUri', required: false, comesWith: 'activationToken', value: absoluteUri },
    ],
    vnics: { min: 1, max: 5 },
  },
  K13: {
    title: 'open firewall/router',
    fields: [
      { name: 'adminSshPublicKey', required: true, value: sshPublicKey({ rsaBits: [2048, 4096], ed25519: true }) },
      { name: 'adminPasswordHash', required: true, value: bcrypt },
    ],
    vnics: { min: 2, max: 5 },
  },
  K14: {
    title: 'fusion hub',
    fields: [
      { name: 'adminPasswordHash', required: true, value: hexDigits(40) },
      { name: 'licenseData', required: true, value: matching(/^[A-Za-z0-9]{16}$/, 'exactly 16 letters and digits') },
    ],
    // The spec does not show K14's minimum; 1, the floor of every vNIC list (2.7), stands in for it.
    vnics: { min: 1, max: 5 },
  },
  K15A: {
    title: 'SD-WAN edge with controller keys, model A',
    fields: k15Fields,
    vnics: { min: 4, max: 5 },
    sizes: { only: ['MVE 2/8', 'MVE 4/16', 'MVE 8/32'] },
  },
  K15B: {
    title: 'SD-WAN edge with controller keys, model B',
    fields: k15Fields,
    vnics: { min: 3, max: 5 },
    sizes: { only: ['MVE 8/32'] },
  },
  K16: {
    title: 'virtual firewall with authorization code',
    fields: [
      { name: 'sshPublicKey', required: true, value: rsa2048 },
      { name: 'adminPasswordHash', required: true, value: sha256Crypt },
      {
        name: 'licenseData',
        required: false,
        value: matching(/^[0-9]{8,9}$/, 'an authorization code of 8 or 9 digits'),
      },
    ],
    vnics: { min: 2, max: 5 },
  },
  K17: {
    title: 'SD-WAN edge with director and controller',
    fields: [
      { name: 'directorAddress', required: true, value: address(['IPv4', 'FQDN']) },
      { name: 'controllerAddress', required: true, value: address(['IPv4', 'FQDN']) },
      { name: 'localAuth', required: true, value: identifierOrEmail(100) },
      { name: 'remoteAuth', required: true, value: identifierOrEmail(100) },
      { name: 'serialNumber', required: true, value: text({ min: 1, max: 100 }) },
    ],
    vnics: { min: 1, max: 5 },
  },
};

/** Whether a kind's own size restriction lets this size through (the image may still not offer it). */
export function kindAcceptsSize(kind: SimKindId, size: string): boolean {
  const limits = APPLIANCE_KIND_RULES[kind].sizes;
  const only: readonly string[] | undefined = limits?.only;
  const never: readonly string[] = limits?.never ?? [];
  return (only === undefined || only.includes(size)) && !never.includes(size);
}
