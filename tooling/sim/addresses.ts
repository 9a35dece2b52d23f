/** Network addresses and names as spec 2.5 uses them: IPv4, IPv6, FQDN, e-mail and URI. */
import { isIPv4, isIPv6 } from 'node:net';

export type AddressKind = 'IPv4' | 'IPv6' | 'FQDN';

/**
 * A fully qualified name: dot-separated labels of letters, digits and inner hyphens (1 to 63 characters
 * each, 253 in all, a trailing root dot allowed), at least two of them, the last not all digits (or
 * "10.0.0.300" would pass as a name).
 */
export function isFqdn(text: string): boolean {
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  const wellFormed = (label: string) => /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(label);
  return labels.length >= 2 && labels.every(wellFormed) && !/^[0-9]+$/.test(labels[labels.length - 1]);
}

export function isAddressOf(text: string, kinds: readonly AddressKind[]): boolean {
  return kinds.some((kind) => {
    if (kind === 'IPv4') return isIPv4(text);
    // A zone index (`fe80::1%eth0`) names an interface of the sender's machine, not an address to reach.
    if (kind === 'IPv6') return isIPv6(text) && !text.includes('%');
    return isFqdn(text);
  });
}

/** `local@domain`: the usual local-part characters, and a domain that is an FQDN. */
export function isEmailAddress(text: string): boolean {
  const at = text.lastIndexOf('@');
  if (at < 1) return false;
  return /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+$/.test(text.slice(0, at)) && isFqdn(text.slice(at + 1));
}

/** An absolute URI: a scheme, a colon, something after it, no white space, and parseable. */
export function isAbsoluteUri(text: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(text)) return false;
  return URL.canParse(text);
}
