/**
 * One problem found in a request, as the simulator reports it in the `data` of a 400: where (a dotted
 * path into the body, e.g. `vendorConfig.sshPublicKey`, `networkDesign.0.vnics`), which rule, and a
 * message. Messages never carry the value itself: vendorConfig holds passwords, keys and tokens.
 */
export interface SimIssue {
  path: string;
  rule: string;
  message: string;
}

/**
 * Adds keys to a path. Plain names and indexes join with dots; any other key (a stray field called
 * "a.b") is written quoted in brackets, so that a path always reads one way.
 */
export function pathOf(base: string, ...keys: ReadonlyArray<string | number>): string {
  return keys.reduce<string>((path, key) => {
    const name = String(key);
    if (!/^(?:[A-Za-z_$][\w$-]*|[0-9]+)$/.test(name)) return `${path}[${JSON.stringify(name)}]`;
    return path === '' ? name : `${path}.${name}`;
  }, base);
}
