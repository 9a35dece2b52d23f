/** Valid inputs for every appliance kind, built with real generated keys; tests break them one rule at a time. */
import { APPLIANCE_KINDS, type KindId } from '../../../domain/index.js';
import { openSshKey, rfc4716Key } from './ssh-keys.js';

export const SHA512_CRYPT =
  '$6$Qx7mP2vLk9sT4wZr$D/n/9SN8yfg7qUwekZmAtlgtjwOnYGoAv6q0ba.Z6kdckje24zXQsTobDwrEt6tQR.pCWxdJFqME/f801556k1';
export const SHA256_CRYPT = '$5$Ab3dE6gH9jK2mN5p$GDZVoSOn7FknW5acH6Zq4W2SaEoUtB1w0h8Ezp9Arc.';
export const BCRYPT = '$2y$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW';
export const SHA512_HEX = 'ab'.repeat(64);
export const SHA1_HEX = 'da39a3ee5e6b4b0d3255bfef95601890afd80709';

/** A minimal valid vendorConfig (kind fields only, as a request carries it) for each kind. */
export function validVendorConfig(kind: KindId): Record<string, unknown> {
  const rsa = openSshKey('rsa2048');
  switch (kind) {
    case 'K1':
      return { sshPublicKey: rfc4716Key('rsa2048') };
    case 'K2':
      return { sshPublicKey: rsa, orchestratorAddress: 'vco.example.net', orchestratorActivationCode: 'ACT-CODE-1234' };
    case 'K3':
      return { accountName: 'example-corp', accountKey: 'account-key-value' };
    case 'K4':
      return { cloudInit: Buffer.from('#cloud-config\nhostname: edge\n').toString('base64') };
    case 'K5':
      return { adminPassword: 'Str0ng-pass', sshPublicKey: rsa };
    case 'K6':
      return { adminPassword: 'Str0ng-pass', manageLocally: true };
    case 'K7':
      return { token: 'dashboard-token-value' };
    case 'K8':
      return { adminPasswordHash: SHA512_CRYPT, adminSshPublicKey: openSshKey('ed25519') };
    case 'K9':
      return { sshPublicKey: rsa };
    case 'K10':
      return { registrationCode: 'REG-CODE-1234' };
    case 'K11':
      return { adminPasswordHash: SHA512_CRYPT, adminSshPublicKey: rsa };
    case 'K12':
      return { adminSshPublicKey: rsa, adminPasswordHash: SHA512_HEX };
    case 'K13':
      return { adminSshPublicKey: rsa, adminPasswordHash: BCRYPT };
    case 'K14':
      return { adminPasswordHash: SHA1_HEX, licenseData: 'ABCD1234EFGH5678' };
    case 'K15A':
    case 'K15B':
      return {
        ionKey: '0123456789-abcdef01-2345-6789-abcd-ef0123456789',
        secretKey: '0123456789abcdef0123456789abcdef01234567',
      };
    case 'K16':
      return { sshPublicKey: rsa, adminPasswordHash: SHA256_CRYPT };
    case 'K17':
      return {
        directorAddress: 'director.example.net',
        controllerAddress: '203.0.113.10',
        localAuth: 'branch-01',
        remoteAuth: 'controller@example.net',
        serialNumber: 'SN-0001',
      };
  }
}

/** The default kind map's image family for each kind (K5 has none: it is reached by signature). */
export const FAMILY: Record<KindId, { vendor: string; product: string } | undefined> = {
  K1: { vendor: '6WIND', product: 'VSR' },
  K2: { vendor: 'VMware', product: 'SD-WAN Edge' },
  K3: { vendor: 'Aruba', product: 'EdgeConnect SD-WAN' },
  K4: { vendor: 'Aviatrix', product: 'Edge' },
  K5: undefined,
  K6: { vendor: 'Cisco', product: 'FTDv' },
  K7: { vendor: 'Meraki', product: 'vMX' },
  K8: { vendor: 'F5', product: 'BIG-IP' },
  K9: { vendor: 'Fortinet', product: 'FortiGate-VM' },
  K10: { vendor: 'Juniper', product: 'Session Smart Router' },
  K11: { vendor: 'Juniper', product: 'vSRX' },
  K12: { vendor: 'Netskope', product: 'One Edge' },
  K13: { vendor: 'OPNsense', product: 'OPNsense' },
  K14: { vendor: 'Peplink', product: 'FusionHub' },
  K15A: { vendor: 'Palo Alto', product: 'Prisma SD-WAN ION 3000v' },
  K15B: { vendor: 'Palo Alto', product: 'Prisma SD-WAN ION 7108v' },
  K16: { vendor: 'Palo Alto', product: 'VM-Series' },
  K17: { vendor: 'Versa', product: 'FlexVNF' },
};

/** A size every kind accepts is not one size: K6 refuses 2/8, K15B takes only 8/32. */
export function validSize(kind: KindId): string {
  return kind === 'K15B' ? 'MVE 8/32' : 'MVE 4/16';
}

/** The kind's minimum number of vNICs, each with a description. */
export function minimumVnics(kind: KindId): Array<{ description: string }> {
  return Array.from({ length: APPLIANCE_KINDS[kind].vnics.min }, (_, index) => ({ description: `nic ${index}` }));
}

/** A valid order request for the kind, naming the image by family (or by id with a `kind` hint for K5). */
export function validRequest(kind: KindId, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const family = FAMILY[kind];
  return {
    ...(family ? {} : { kind }),
    ticketId: 'CHG-1042',
    requestedBy: 'alice@example.com',
    environment: 'staging',
    location: { metro: 'Sydney' },
    image: family ? { ...family, version: 'latest' } : { id: 1501 },
    productName: `test ${kind}`,
    term: 12,
    size: validSize(kind),
    vendorConfig: validVendorConfig(kind),
    vnics: minimumVnics(kind),
    ...overrides,
  };
}
