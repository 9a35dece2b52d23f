/**
 * Plain HTTP against a running simulator, as any API client would talk to it, and the order objects the
 * examples/ requests become in its catalog. Nothing here uses the engine's own rules, so what the
 * simulator answers is its own judgement.
 */
import { generateKeyPairSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { SIM_KIND_MAP, type SimClient, type Simulator } from '../../tooling/sim/index.js';

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

/** A bearer token of one key (by default the simulator's primary key) and JSON calls that carry it. */
export async function sessionOf(sim: Simulator, key: Omit<SimClient, 'role'> = sim) {
  const { baseUrl, authUrl } = sim.environments[key.environment];
  const granted = await fetch(`${authUrl}/oauth2/token`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${key.clientId}:${key.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'grant_type=client_credentials',
  });
  const token = ((await granted.json()) as { access_token: string }).access_token;
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: response.status,
      body: (await response.json()) as Record<string, unknown>,
      headers: response.headers,
    };
  };
  return {
    get: (path: string) => call('GET', path),
    validate: (orders: unknown) => call('POST', '/v3/networkdesign/validate', orders),
    buy: (envelope: unknown) => call('POST', '/v4/networkdesign/buy', envelope),
    product: (productUid: string) => call('GET', `/v2/product/${productUid}`),
  };
}

export type Session = Awaited<ReturnType<typeof sessionOf>>;

interface Zone {
  mveAvailable: boolean;
  mveMaxCpuCoreCount: number | null;
}
export interface Location {
  id: number;
  metro: string;
  status: string;
  diversityZones: Record<string, Zone>;
}
interface ImageGroup {
  vendor: string;
  product: string;
  images: Array<{ id: number; releaseImage: boolean; availableSizes: string[] }>;
}
export interface Catalog {
  locations: Location[];
  imageGroups: ImageGroup[];
}

export async function catalogOf(session: Session): Promise<Catalog> {
  const [locations, images] = await Promise.all([session.get('/v3/locations'), session.get('/v4/product/mve/images')]);
  return {
    locations: locations.body['data'] as Location[],
    imageGroups: (images.body['data'] as { mveImages: ImageGroup[] }).mveImages,
  };
}

const EXAMPLES = new URL('../../examples/', import.meta.url);

/**
 * An order request of examples/, or the order object (spec 2.3) it becomes, as plain JSON: these tests write them
 * right or wrong on purpose, and what the simulator answers is its own judgement of them.
 */
export interface OrderJson extends Record<string, unknown> {
  vendorConfig: Record<string, unknown>;
}

/** examples/*.json: one order request per appliance kind; the kind is in the name (k15a-… is K15A). */
export function examples(): Array<{ file: string; kind: string; request: OrderJson }> {
  return readdirSync(EXAMPLES)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({
      file,
      kind: `K${/^k0*(\d+[ab]?)-/.exec(file)![1].toUpperCase()}`,
      request: JSON.parse(readFileSync(new URL(file, EXAMPLES), 'utf8')) as OrderJson,
    }));
}

/**
 * The order object (spec 2.3) a request becomes in this catalog: its image family (named by vendor and
 * product, or else the simulator's family of its kind: a request may name an image by an id of another
 * catalog), the newest release image offering its size, and a location that can host it (in its metro
 * when the catalog has one there).
 */
export function orderFor(example: { kind: string; request: OrderJson }, catalog: Catalog): OrderJson {
  const { request } = example;
  const named = request['image'] as { vendor?: string; product?: string };
  const family =
    named.vendor && named.product
      ? { vendor: named.vendor, product: named.product }
      : SIM_KIND_MAP.find((entry) => entry.kinds.includes(example.kind as never))!;
  const group = catalog.imageGroups.find(
    (candidate) => candidate.vendor === family.vendor && candidate.product === family.product,
  );
  const size = request['size'] as string;
  const image = group?.images
    .filter((candidate) => candidate.releaseImage && candidate.availableSizes.includes(size))
    .at(-1);
  if (!image)
    throw new Error(`the simulated catalog has no release image of ${family.vendor} ${family.product} in ${size}`);
  const vcpu = Number(/^MVE (\d+)\//.exec(size)![1]);
  const hosts = (location: Location) =>
    location.status === 'Active' &&
    Object.values(location.diversityZones).some(
      (zone) => zone.mveAvailable && (zone.mveMaxCpuCoreCount ?? Infinity) >= vcpu,
    );
  const metro = (request['location'] as { metro?: string }).metro;
  const location =
    catalog.locations.find((candidate) => candidate.metro === metro && hosts(candidate)) ??
    catalog.locations.find(hosts)!;
  return {
    locationId: location.id,
    productName: request['productName'],
    productType: 'MVE',
    term: request['term'],
    promoCode: request['promoCode'] ?? null,
    vendorConfig: { imageId: image.id, mveLabel: size, ...request['vendorConfig'] },
    ...(request['vnics'] ? { vnics: request['vnics'] } : {}),
  };
}

/** A fresh RSA public key of `bits` bits in OpenSSH form, `ssh-rsa <base64 key data>`. */
export function opensshRsaKey(bits: number): string {
  const jwk = generateKeyPairSync('rsa', { modulusLength: bits }).publicKey.export({ format: 'jwk' });
  const field = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    return Buffer.concat([length, bytes]);
  };
  // Key numbers are signed: one with its top bit set gets a leading zero byte.
  const positive = (bytes: Buffer) => (bytes[0] & 0x80 ? Buffer.concat([Buffer.from([0]), bytes]) : bytes);
  const data = Buffer.concat([
    field(Buffer.from('ssh-rsa')),
    field(positive(Buffer.from(jwk.e!, 'base64url'))),
    field(positive(Buffer.from(jwk.n!, 'base64url'))),
  ]);
  return `ssh-rsa ${data.toString('base64')} test@example.com`;
}
