/** Network addresses and identifiers: each checker returns a problem sentence, or null when the value fits. */
import { isIPv4, isIPv6 } from 'node:net';

export type HostKind = 'ipv4' | 'ipv6' | 'fqdn';

const LABEL = /^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$/;

export function isFqdn(value: string): boolean {
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  if (labels.length < 2 || !labels.every((label) => LABEL.test(label))) return false;
  // An all-numeric last label would make "1.2.3.999" a host name; top-level domains are never numeric.
  return !/^\d+$/.test(labels[labels.length - 1]);
}

export function isHost(value: string, allowed: readonly HostKind[]): boolean {
  return (
    (allowed.includes('ipv4') && isIPv4(value)) ||
    (allowed.includes('ipv6') && isIPv6(value) && !value.includes('%')) ||
    (allowed.includes('fqdn') && isFqdn(value))
  );
}

const HOST_NAMES: Record<HostKind, string> = { ipv4: 'an IPv4 address', ipv6: 'an IPv6 address', fqdn: 'an FQDN' };

export function hostProblem(value: string, allowed: readonly HostKind[]): string | null {
  if (isHost(value, allowed)) return null;
  const names = allowed.map((kind) => HOST_NAMES[kind]);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : names[0];
  return `is not ${list}`;
}

const EMAIL_LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;

export function isEmail(value: string): boolean {
  const at = value.lastIndexOf('@');
  if (at <= 0) return false;
  return EMAIL_LOCAL.test(value.slice(0, at)) && isFqdn(value.slice(at + 1));
}

/** An absolute URI with a scheme and something after it, and no whitespace. */
export function uriProblem(value: string): string | null {
  if (/\s/.test(value)) return 'must not contain whitespace';
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(value)) return 'is not an absolute URI (scheme:rest, e.g. https://…)';
  try {
    new URL(value);
  } catch {
    return 'is not a parseable URI';
  }
  return null;
}

export function httpUrlProblem(value: string): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
    return null;
  } catch {
    return 'is not a valid URL';
  }
}
