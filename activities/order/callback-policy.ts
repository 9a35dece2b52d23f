import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where ticket-system callbacks may go. A callback URL comes from whoever submitted the order, so it must not
 * become a way into the engine's own network: https only (plain http only where configured, as in dev), no
 * private, loopback, link-local or otherwise internal address unless its network is allowed by configuration
 * (checked on every address the name resolves to, at connect time, so a name cannot re-point after the check),
 * and no redirects (the caller refuses 3xx).
 */
export interface CallbackPolicy {
  allowHttp: boolean;
  /** Internal networks callbacks may reach anyway, e.g. a ticket system at 10.2.0.0/16. */
  allowedNetworks: BlockList;
}

export const CALLBACK_ALLOW_HTTP_VARIABLE = 'MVE_CALLBACK_ALLOW_HTTP';
export const CALLBACK_ALLOWED_NETWORKS_VARIABLE = 'MVE_CALLBACK_ALLOWED_NETWORKS';

/** A callback the policy refuses: retrying cannot help. */
export class CallbackPolicyError extends Error {
  override readonly name = 'CallbackPolicyError';
  readonly code = 'ECALLBACKPOLICY';
}

const INTERNAL = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  INTERNAL.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  INTERNAL.addSubnet(network, prefix, 'ipv6');

/** From MVE_CALLBACK_ALLOW_HTTP (`true`) and MVE_CALLBACK_ALLOWED_NETWORKS (comma-separated CIDRs or addresses). */
export function callbackPolicyFromEnv(env: NodeJS.ProcessEnv): CallbackPolicy {
  const allowedNetworks = new BlockList();
  for (const entry of (env[CALLBACK_ALLOWED_NETWORKS_VARIABLE] ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const [address, prefixText] = entry.split('/');
    const family = isIP(address ?? '');
    const prefix = prefixText === undefined ? (family === 6 ? 128 : 32) : Number(prefixText);
    if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32)) {
      throw new Error(
        `${CALLBACK_ALLOWED_NETWORKS_VARIABLE}: "${entry}" must be an address or a CIDR network, e.g. 10.2.0.0/16`,
      );
    }
    allowedNetworks.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
  }
  return { allowHttp: env[CALLBACK_ALLOW_HTTP_VARIABLE] === 'true', allowedNetworks };
}

/** Why the policy refuses this address, or undefined when callbacks may reach it. */
export function addressProblem(policy: CallbackPolicy, address: string): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const plain = mapped ?? address;
  const family = isIP(plain) === 6 ? 'ipv6' : 'ipv4';
  if (!INTERNAL.check(plain, family) || policy.allowedNetworks.check(plain, family)) return undefined;
  return `${address} is a private, loopback or link-local address; allow its network with ${CALLBACK_ALLOWED_NETWORKS_VARIABLE} if the ticket system really is there`;
}

/** Checks the URL itself; throws CallbackPolicyError naming the rule. */
export function checkCallbackUrl(policy: CallbackPolicy, url: URL): void {
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) {
    throw new CallbackPolicyError(
      `callbacks go to https URLs only (${url.origin} is ${url.protocol.slice(0, -1)}; ${CALLBACK_ALLOW_HTTP_VARIABLE}=true allows http, for development)`,
    );
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const problem = addressProblem(policy, host);
    if (problem) throw new CallbackPolicyError(`callback to ${url.origin} refused: ${problem}`);
  }
}

/** An agent whose every connection goes only to addresses the policy allows. */
export function callbackAgent(policy: CallbackPolicy, url: URL): HttpAgent | HttpsAgent {
  const lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 4);
      const refused = addresses.map((entry) => addressProblem(policy, entry.address)).find(Boolean);
      if (refused) return callback(new CallbackPolicyError(`callback to ${hostname} refused: ${refused}`), '', 4);
      if (options.all)
        return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
  return url.protocol === 'https:' ? new HttpsAgent({ lookup }) : new HttpAgent({ lookup });
}
