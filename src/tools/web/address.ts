// BlockList is fetched where one is made: the bundle would load node:net at start-up for an imported
// class, not only for functions (rolldown.config.js)
import { type BlockList, isIP } from "node:net";

/**
 * Host names and addresses as the web tools and the WebFetch rules compare them. One host has many
 * spellings (`LOCALHOST.`, `[::ffff:127.0.0.1]`, `2130706433`, `0x7f.1`); they are all brought to one form
 * first, so a rule or a refusal written for one spelling holds for every other.
 */

/**
 * The one form of a host: lower case, no brackets, no trailing dots, IPv4 in dotted decimal (the URL
 * parser's reading of decimal, octal and hex forms), an IPv4-mapped IPv6 address as its IPv4 address,
 * IPv6 compressed.
 */
export function normalizeHost(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith("[") && name.endsWith("]")) name = name.slice(1, -1);
  name = name.replace(/\.+$/, "");
  if (name === "") return name;
  if (isIP(name) === 6) return unmapIPv6(canonicalIPv6(name));
  // the WHATWG parser reads 2130706433, 0177.0.0.1, 0x7f.1 and 127.1 as the IPv4 address they are
  try {
    const parsed = new URL(`http://${name}/`).hostname;
    return isIP(parsed) === 4 ? parsed : name;
  } catch {
    return name;
  }
}

function canonicalIPv6(address: string): string {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
}

/** `::ffff:7f00:1` (or `::ffff:127.0.0.1`) → `127.0.0.1`: the same machine, reached over IPv6. */
function unmapIPv6(address: string): string {
  const mapped = /^::ffff:(?:0:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(address);
  if (mapped) return ipv4FromWords(mapped[1] as string, mapped[2] as string);
  const dotted = /^::ffff:(?:0:)?(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  return dotted ? (dotted[1] as string) : address;
}

function ipv4FromWords(high: string, low: string): string {
  const [h, l] = [Number.parseInt(high, 16), Number.parseInt(low, 16)];
  return [h >> 8, h & 255, l >> 8, l & 255].join(".");
}

/** Whether a normalized host is an IP address rather than a name. */
export function isIpAddress(host: string): boolean {
  return isIP(host) !== 0;
}

/** `domain` covers `host` when they are the same or `host` is below it (`docs.example.com` under `example.com`). */
export function hostCovers(domain: string, host: string): boolean {
  const [d, h] = [normalizeHost(domain.replace(/^\*\./, "")), normalizeHost(host)];
  if (d === "" || h === "") return false;
  if (d === h) return true;
  return !isIpAddress(d) && !isIpAddress(h) && h.endsWith(`.${d}`);
}

/** `localhost`, a name under `.localhost` (RFC 6761), or an address of 127.0.0.0/8 or ::1. */
export function isLoopbackHost(host: string): boolean {
  const name = normalizeHost(host);
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  return isIpAddress(name) && classifyAddress(name)?.kind === "loopback";
}

export type AddressKind =
  | "loopback"
  | "private"
  | "shared"
  | "link-local"
  | "metadata"
  | "unspecified"
  | "multicast"
  | "reserved";

export interface AddressClass {
  kind: AddressKind;
  /** For messages: what the range is. */
  label: string;
}

const RANGES: [string, number, "ipv4" | "ipv6", AddressClass][] = [
  ["169.254.169.254", 32, "ipv4", { kind: "metadata", label: "a cloud metadata endpoint" }],
  ["fd00:ec2::254", 128, "ipv6", { kind: "metadata", label: "a cloud metadata endpoint" }],
  ["0.0.0.0", 8, "ipv4", { kind: "unspecified", label: 'an unspecified ("this host") address' }],
  ["127.0.0.0", 8, "ipv4", { kind: "loopback", label: "a loopback address (this machine)" }],
  ["10.0.0.0", 8, "ipv4", { kind: "private", label: "a private network address (RFC 1918)" }],
  ["172.16.0.0", 12, "ipv4", { kind: "private", label: "a private network address (RFC 1918)" }],
  ["192.168.0.0", 16, "ipv4", { kind: "private", label: "a private network address (RFC 1918)" }],
  ["100.64.0.0", 10, "ipv4", { kind: "shared", label: "a carrier-grade NAT address (100.64.0.0/10)" }],
  ["169.254.0.0", 16, "ipv4", { kind: "link-local", label: "a link-local address" }],
  ["192.0.0.0", 24, "ipv4", { kind: "reserved", label: "an IETF protocol address (192.0.0.0/24)" }],
  ["192.0.2.0", 24, "ipv4", { kind: "reserved", label: "a documentation address" }],
  ["198.18.0.0", 15, "ipv4", { kind: "reserved", label: "a benchmarking address (198.18.0.0/15)" }],
  ["198.51.100.0", 24, "ipv4", { kind: "reserved", label: "a documentation address" }],
  ["203.0.113.0", 24, "ipv4", { kind: "reserved", label: "a documentation address" }],
  ["224.0.0.0", 4, "ipv4", { kind: "multicast", label: "a multicast address" }],
  ["240.0.0.0", 4, "ipv4", { kind: "reserved", label: "a reserved or broadcast address" }],
  ["::", 128, "ipv6", { kind: "unspecified", label: "the unspecified address (::)" }],
  ["::1", 128, "ipv6", { kind: "loopback", label: "a loopback address (this machine)" }],
  ["fc00::", 7, "ipv6", { kind: "private", label: "a unique local address (fc00::/7)" }],
  ["fe80::", 10, "ipv6", { kind: "link-local", label: "a link-local address" }],
  ["fec0::", 10, "ipv6", { kind: "private", label: "a site-local address (fec0::/10)" }],
  ["ff00::", 8, "ipv6", { kind: "multicast", label: "a multicast address" }],
  ["100::", 64, "ipv6", { kind: "reserved", label: "a discard address (100::/64)" }],
  ["2001:db8::", 32, "ipv6", { kind: "reserved", label: "a documentation address" }],
];

type Block = { list: BlockList; family: "ipv4" | "ipv6"; found: AddressClass };
let blocks: Block[] | undefined;
/** The ranges as BlockLists, made on the first check (not at load: start-up is a benchmark target). */
const blockLists = (): Block[] =>
  (blocks ??= RANGES.map(([network, prefix, family, found]) => {
    const list = new (process.getBuiltinModule("node:net").BlockList)();
    list.addSubnet(network, prefix, family);
    return { list, family, found };
  }));

/** IPv6 forms that carry an IPv4 address a gateway would reach: IPv4-compatible, NAT64 (RFC 6052, 8215), 6to4. */
function embeddedIPv4(address: string): string | undefined {
  const groups = expandIPv6(address);
  if (!groups) return undefined;
  const words = (a: number, b: number) => ipv4FromWords(groups[a] as string, groups[b] as string);
  const zero = (from: number, to: number) =>
    groups.slice(from, to).every((g) => Number.parseInt(g, 16) === 0);
  if (zero(0, 6)) return words(6, 7); // ::a.b.c.d
  if (groups[0] === "64" && groups[1] === "ff9b" && zero(2, 6)) return words(6, 7);
  if (groups[0] === "64" && groups[1] === "ff9b" && groups[2] === "1") return words(6, 7);
  if (groups[0] === "2002") return words(1, 2);
  return undefined;
}

function expandIPv6(address: string): string[] | undefined {
  const [head, tail] = address.split("::") as [string, string | undefined];
  const part = (text: string | undefined) => (text ? text.split(":") : []);
  const [left, right] = [part(head), part(tail)];
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? left.length !== 8 : missing < 0) return undefined;
  const groups = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill("0"), ...right];
  return groups.map((group) => group.replace(/^0+(?=.)/, ""));
}

/** What a (normalized) address is when it is not on the public internet; undefined for a public one. */
export function classifyAddress(address: string): AddressClass | undefined {
  const ip = normalizeHost(address);
  const family = isIP(ip) === 6 ? "ipv6" : isIP(ip) === 4 ? "ipv4" : undefined;
  if (!family) return undefined;
  for (const { list, family: rangeFamily, found } of blockLists())
    if (rangeFamily === family && list.check(ip, family)) return found;
  const inner = family === "ipv6" ? embeddedIPv4(ip) : undefined;
  return inner !== undefined ? classifyAddress(inner) : undefined;
}
