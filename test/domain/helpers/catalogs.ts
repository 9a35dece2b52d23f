/** Small catalogs shaped as the endpoints return them, for selection and catalog checks. */
import type { ImageGroup, Location } from '../../../schemas/index.js';
import { imagesResponseSchema, locationsResponseSchema } from '../../../schemas/index.js';

const zone = (mveAvailable: boolean) => ({
  mcrSpeedMbps: [1000],
  portSpeedMbps: [10000],
  mveMaxCpuCoreCount: 32,
  mveAvailable,
});

export const LOCATIONS_BODY = {
  message: 'List all public locations',
  data: [
    {
      id: 3,
      name: 'Equinix SY1',
      metro: 'Sydney',
      market: 'AU',
      status: 'Active',
      address: { country: 'Australia', suburb: null },
      dataCentre: { id: 9, name: 'SY1' },
      diversityZones: { red: zone(false), blue: zone(true) },
    },
    {
      id: 7,
      name: 'NextDC S1',
      metro: 'Sydney',
      market: 'AU',
      status: 'Active',
      address: { country: 'Australia' },
      dataCentre: { id: '12', name: 'S1' },
      diversityZones: { red: zone(true) },
    },
    {
      id: 61,
      name: 'Global Switch Sydney',
      metro: 'Sydney',
      market: 'AU',
      status: 'Deployment',
      address: { country: 'Australia' },
      diversityZones: { red: zone(true) },
    },
    {
      id: 62,
      name: 'Sydney Old',
      metro: 'Sydney',
      market: 'AU',
      status: 'Active',
      address: { country: 'Australia' },
      diversityZones: { red: zone(false) },
    },
    {
      id: 80,
      name: 'Equinix LD5',
      metro: 'London',
      market: 'UK',
      status: 'Active',
      address: { country: 'United Kingdom' },
      diversityZones: { red: zone(true) },
      extra: { kept: true },
    },
    {
      id: 90,
      name: 'Perth One',
      metro: 'Perth',
      market: 'AU',
      status: 'Extended',
      address: { country: 'Australia' },
      diversityZones: null,
    },
  ],
};

const image = (id: number, version: string, releaseImage: boolean, availableSizes: string[]) => ({
  id,
  version,
  productCode: `P${id}`,
  releaseImage,
  availableSizes,
  vendorDescription: `image ${id}`,
});

export const IMAGES_BODY = {
  message: 'Available MVE images',
  terms: 'terms',
  data: {
    mveImages: [
      {
        vendor: 'Fortinet',
        product: 'FortiGate-VM',
        vendorProductId: 4,
        images: [
          image(101, '7.2.9', true, ['MVE 2/8', 'MVE 4/16']),
          image(102, '7.10.1', true, ['MVE 2/8', 'MVE 4/16', 'MVE 12/48']),
          image(103, '7.9.4', true, ['MVE 2/8', 'MVE 4/16', 'MVE 8/32']),
          image(104, '8.0.0-beta1', false, ['MVE 4/16']),
        ],
      },
      {
        vendor: 'Cisco',
        product: 'FTDv',
        vendorProductId: 'vp-6',
        images: [image(201, '7.4.1', true, ['MVE 4/16', 'MVE 8/32'])],
      },
      { vendor: 'Acme', product: 'Router', vendorProductId: null, images: [image(301, '1.0', false, ['MVE 2/8'])] },
    ],
  },
};

export const LOCATIONS: Location[] = locationsResponseSchema.parse(LOCATIONS_BODY);
export const IMAGES: ImageGroup[] = imagesResponseSchema.parse(IMAGES_BODY).data.mveImages;
