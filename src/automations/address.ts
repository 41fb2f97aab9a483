// Where a hook may send (issue 40 §3, Safety): `https://` only, to a host that
// resolves to public addresses, unless the deployment allows private ones
// (AUTOMATIONS_ALLOW_PRIVATE=1: tests, on-premise receivers; plain `http://`
// then too). Checked in words when a hook is added, and again at every
// delivery, on the very address the connection uses (a lookup that refuses a
// private answer), so a name that later resolves inside the network is refused.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP } from "node:net";

/** Loopback, private, link-local, unique-local, carrier-grade NAT, unspecified, multicast and reserved ranges. */
const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  PRIVATE.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
] as const)
  PRIVATE.addSubnet(net, prefix, "ipv6");

/** Whether an IP address is in a loopback, private, link-local or reserved range (IPv4 inside IPv6 too). */
export function isPrivateAddress(ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped) return isPrivateAddress(mapped);
  const family = isIP(ip);
  if (family === 4) return PRIVATE.check(ip, "ipv4");
  if (family === 6) return PRIVATE.check(ip, "ipv6");
  return true;
}

export interface AddressRules {
  /** AUTOMATIONS_ALLOW_PRIVATE: private addresses and plain http:// allowed. */
  allowPrivate: boolean;
}

/** A Slack workflow's webhook trigger URL (one event type, flat variables). */
export const isWorkflowTrigger = (u: URL) =>
  u.protocol === "https:" && u.hostname === "hooks.slack.com" && u.pathname.startsWith("/triggers/");

/** A URL as it may be shown: its origin and `/…` (a trigger's path is its secret). */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return "(an address)";
  }
}

/** A command line of automations with every URL in it masked (the audit's typed line, the logs). */
export const maskHookLine = (line: string): string =>
  /^\s*(?:\/sb\s+)?automation/i.test(line)
    ? line.replace(/<?(https?:\/\/[^\s>|]+)(?:\|[^>\s]*)?>?/gi, (_m, url: string) => maskUrl(url))
    : line;

/** The URL, or the problem with it in words (never the URL itself, which may hold a secret). */
export function parseHookUrl(text: string, rules: AddressRules): URL | string {
  let u: URL;
  try {
    u = new URL(text.trim().replace(/^<|>$/g, ""));
  } catch {
    return "That is not a web address: give the whole URL, starting with https://.";
  }
  if (u.username || u.password) return "The address may not hold a user name or a password.";
  if (u.protocol !== "https:" && !(rules.allowPrivate && u.protocol === "http:"))
    return "Only https:// addresses can receive events.";
  return u;
}

/** The host's addresses, all of them. */
async function addressesOf(hostname: string): Promise<string[]> {
  const host = hostname.replace(/^\[|\]$/g, "");
  if (isIP(host)) return [host];
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true }, (err, found: LookupAddress[]) =>
      err ? reject(err) : resolve(found.map((a) => a.address)),
    ),
  );
}

/** Undefined when the host may receive events; else why not, in words. */
export async function addressProblem(u: URL, rules: AddressRules): Promise<string | undefined> {
  let found: string[];
  try {
    found = await addressesOf(u.hostname);
  } catch {
    return `The host ${u.hostname} was not found.`;
  }
  if (!found.length) return `The host ${u.hostname} was not found.`;
  if (!rules.allowPrivate && found.some(isPrivateAddress))
    return `${u.hostname} is a private, loopback or link-local address: events go only to public addresses (whoever runs Switchboard can allow private ones with AUTOMATIONS_ALLOW_PRIVATE=1).`;
  return undefined;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A dns.lookup for the connection itself: an answer in a private range is an
 * error unless allowed, so what was checked is what is connected to.
 */
export function safeLookup(rules: AddressRules) {
  return (hostname: string, options: object, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, found: LookupAddress[]) => {
      if (err) return callback(err, []);
      const bad = !rules.allowPrivate && found.some((a) => isPrivateAddress(a.address));
      if (bad) {
        const refused = Object.assign(new Error(`${hostname} resolves to a private address`), {
          code: "EPRIVATEADDRESS",
        });
        return callback(refused, []);
      }
      const all = (options as { all?: boolean }).all;
      if (all) return callback(null, found);
      const first = found[0];
      if (!first)
        return callback(Object.assign(new Error(`${hostname} not found`), { code: "ENOTFOUND" }), []);
      return callback(null, first.address, first.family);
    });
  };
}
