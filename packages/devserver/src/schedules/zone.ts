/**
 * Wall-clock time in a time zone, with Go's `time` semantics (the real server computes schedule times with Go):
 * UTC and IANA zone names (through Intl, so no tz database ships with the devserver), civil fields to instants
 * as Go's `time.Date` maps them (a time skipped by a DST change lands an hour earlier, an ambiguous one on the
 * offset in force at the wall time read as UTC), instants to civil fields and weekdays. Whole seconds throughout.
 */

export interface Civil {
  year: number;
  /** 1 = January. */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

export interface Zone {
  readonly name: string;
  /** Seconds east of UTC in force at the instant `unixSeconds`. */
  offsetAt(unixSeconds: number): number;
}

const UTC: Zone = { name: 'UTC', offsetAt: () => 0 };

class IntlZone implements Zone {
  private readonly format: Intl.DateTimeFormat;

  constructor(readonly name: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  offsetAt(unixSeconds: number): number {
    const fields: Record<string, string> = {};
    for (const part of this.format.formatToParts(new Date(unixSeconds * 1000))) fields[part.type] = part.value;
    const year = fields.era === 'BC' ? 1 - Number(fields.year) : Number(fields.year);
    const wall =
      Date.UTC(
        year,
        Number(fields.month) - 1,
        Number(fields.day),
        Number(fields.hour),
        Number(fields.minute),
        Number(fields.second),
      ) / 1000;
    return wall - unixSeconds;
  }
}

const zones = new Map<string, Zone>();

/** Go's time.LoadLocation: "" and "UTC" are UTC, other names are IANA zones. Throws `unknown time zone X`. */
export function loadZone(name: string): Zone {
  if (name === '' || name === 'UTC') return UTC;
  let zone = zones.get(name);
  if (!zone) {
    try {
      zone = new IntlZone(name);
    } catch {
      throw new Error(`unknown time zone ${name}`);
    }
    zones.set(name, zone);
  }
  return zone;
}

/** Seconds of a civil time read as UTC; fields may overflow (hour 24 is the next day's midnight), as in Go. */
const civilAsUtc = (c: Civil): number => Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second) / 1000;

/** Go's time.Date(y, mo, d, h, m, s, 0, zone): the instant, in Unix seconds. */
export function fromCivil(civil: Civil, zone: Zone): number {
  const local = civilAsUtc(civil);
  return local - zone.offsetAt(local - zone.offsetAt(local));
}

export function toCivil(unixSeconds: number, zone: Zone): Civil {
  const d = new Date((unixSeconds + zone.offsetAt(unixSeconds)) * 1000);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  };
}

/** 0 = Sunday, of the civil date. */
export function weekdayOf(civil: Pick<Civil, 'year' | 'month' | 'day'>): number {
  return new Date(Date.UTC(civil.year, civil.month - 1, civil.day)).getUTCDay();
}

export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
