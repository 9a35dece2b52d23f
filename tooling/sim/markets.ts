/** The markets the simulated catalog spans, with the currency and price factor of each. */
export interface Market {
  code: string;
  currency: string;
  /** Local-currency units per USD of the base price, including any local premium. */
  priceFactor: number;
}

export const MARKETS: Record<string, Market> = {
  AU: { code: 'AU', currency: 'AUD', priceFactor: 1.55 },
  NZ: { code: 'NZ', currency: 'NZD', priceFactor: 1.7 },
  US: { code: 'US', currency: 'USD', priceFactor: 1 },
  CA: { code: 'CA', currency: 'CAD', priceFactor: 1.38 },
  EU: { code: 'EU', currency: 'EUR', priceFactor: 0.95 },
  UK: { code: 'UK', currency: 'GBP', priceFactor: 0.82 },
  SG: { code: 'SG', currency: 'SGD', priceFactor: 1.4 },
  JP: { code: 'JP', currency: 'JPY', priceFactor: 155 },
  HK: { code: 'HK', currency: 'HKD', priceFactor: 7.9 },
};

export interface Metro {
  metro: string;
  code: string;
  city: string;
  state: string;
  country: string;
  market: keyof typeof MARKETS;
}

export const METROS: readonly Metro[] = [
  { metro: 'Sydney', code: 'SYD', city: 'Sydney', state: 'NSW', country: 'Australia', market: 'AU' },
  { metro: 'Melbourne', code: 'MEL', city: 'Melbourne', state: 'VIC', country: 'Australia', market: 'AU' },
  { metro: 'Brisbane', code: 'BNE', city: 'Brisbane', state: 'QLD', country: 'Australia', market: 'AU' },
  { metro: 'Perth', code: 'PER', city: 'Perth', state: 'WA', country: 'Australia', market: 'AU' },
  { metro: 'Auckland', code: 'AKL', city: 'Auckland', state: 'AUK', country: 'New Zealand', market: 'NZ' },
  { metro: 'Ashburn', code: 'IAD', city: 'Ashburn', state: 'VA', country: 'USA', market: 'US' },
  { metro: 'New York', code: 'NYC', city: 'New York', state: 'NY', country: 'USA', market: 'US' },
  { metro: 'Chicago', code: 'CHI', city: 'Chicago', state: 'IL', country: 'USA', market: 'US' },
  { metro: 'Dallas', code: 'DAL', city: 'Dallas', state: 'TX', country: 'USA', market: 'US' },
  { metro: 'Los Angeles', code: 'LAX', city: 'Los Angeles', state: 'CA', country: 'USA', market: 'US' },
  { metro: 'San Jose', code: 'SJC', city: 'San Jose', state: 'CA', country: 'USA', market: 'US' },
  { metro: 'Seattle', code: 'SEA', city: 'Seattle', state: 'WA', country: 'USA', market: 'US' },
  { metro: 'Toronto', code: 'YYZ', city: 'Toronto', state: 'ON', country: 'Canada', market: 'CA' },
  { metro: 'Montreal', code: 'YUL', city: 'Montreal', state: 'QC', country: 'Canada', market: 'CA' },
  { metro: 'London', code: 'LON', city: 'London', state: 'Greater London', country: 'United Kingdom', market: 'UK' },
  {
    metro: 'Manchester',
    code: 'MAN',
    city: 'Manchester',
    state: 'Greater Manchester',
    country: 'United Kingdom',
    market: 'UK',
  },
  { metro: 'Frankfurt', code: 'FRA', city: 'Frankfurt', state: 'Hesse', country: 'Germany', market: 'EU' },
  { metro: 'Amsterdam', code: 'AMS', city: 'Amsterdam', state: 'North Holland', country: 'Netherlands', market: 'EU' },
  { metro: 'Paris', code: 'PAR', city: 'Paris', state: 'Ile-de-France', country: 'France', market: 'EU' },
  { metro: 'Dublin', code: 'DUB', city: 'Dublin', state: 'Leinster', country: 'Ireland', market: 'EU' },
  { metro: 'Stockholm', code: 'STO', city: 'Stockholm', state: 'Stockholm', country: 'Sweden', market: 'EU' },
  { metro: 'Madrid', code: 'MAD', city: 'Madrid', state: 'Madrid', country: 'Spain', market: 'EU' },
  { metro: 'Singapore', code: 'SIN', city: 'Singapore', state: 'Singapore', country: 'Singapore', market: 'SG' },
  { metro: 'Tokyo', code: 'TYO', city: 'Tokyo', state: 'Tokyo', country: 'Japan', market: 'JP' },
  { metro: 'Osaka', code: 'OSA', city: 'Osaka', state: 'Osaka', country: 'Japan', market: 'JP' },
  { metro: 'Hong Kong', code: 'HKG', city: 'Hong Kong', state: 'Hong Kong', country: 'Hong Kong', market: 'HK' },
];
