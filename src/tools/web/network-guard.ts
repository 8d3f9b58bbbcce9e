// BlockList is fetched where one is made: the bundle would load node:net at start-up for an imported
// class, not only for functions (rolldown.config.js)
import { type BlockList, isIP } from "node:net";
import { ruleLabel } from "../../policy/evaluate.js";
import type { SessionPermissions } from "../../policy/permissions.js";
import type { Check, Rule } from "../../policy/rules.js";
import { classifyAddress, hostCovers, normalizeHost } from "./address.js";
import type { AddressGuard } from "./fetch-page.js";
import type { ResolvedAddress } from "./pinned-request.js";

export interface NetworkGuardOptions {
  /** `web.allowPrivateNetwork`: true, or the hosts, addresses and CIDR ranges allowed. */
  allowPrivateNetwork: true | readonly string[];
  /** The session's rules and grants: a WebFetch(domain:…) allow rule or grant for the host lets it through. */
  permissions?: SessionPermissions;
}

/**
 * Where read_url_content may connect, judged on the addresses a host resolves to (SPEC §5): loopback,
 * private, link-local and metadata addresses are refused in every approval mode unless an allow rule,
 * a grant or `web.allowPrivateNetwork` names the host; and a deny rule naming an address holds for any
 * name that resolves to it.
 */
export function createNetworkGuard(options: NetworkGuardOptions): AddressGuard {
  const listed = options.allowPrivateNetwork === true ? undefined : hostList(options.allowPrivateNetwork);
  const ruleCovers = (rules: readonly Rule[], mode: "strict" | "loose", hosts: string[]) =>
    rules.find((rule) => hosts.some((host) => rule.matches(urlCheck(host), mode)));
  return {
    refuse(url, addresses) {
      const host = normalizeHost(url.hostname);
      const rules = options.permissions?.rules();
      const denied =
        rules &&
        ruleCovers(
          rules.deny,
          "loose",
          addresses.map(({ address }) => address),
        );
      if (denied)
        return `Denied by ${ruleLabel(denied)}: "${url.host}" is reached at ${addressList(addresses)}, which it names.`;
      for (const { address } of addresses) {
        const found = classifyAddress(address);
        if (!found || options.allowPrivateNetwork === true || listed?.(host, address)) continue;
        const named = [...(rules?.allow ?? []), ...(options.permissions?.grants.rules() ?? [])].filter(
          (rule) => rule.specifier?.startsWith("domain:"),
        );
        if (ruleCovers(named, "strict", [host, normalizeHost(address)])) continue;
        const where = host === normalizeHost(address) ? `${address} is` : `"${host}" resolves to ${address},`;
        return (
          `${url.href} was not fetched: ${where} ${found.label}. read_url_content refuses loopback, private, ` +
          "link-local and metadata addresses in every approval mode. If this host should be reachable, add " +
          `"WebFetch(domain:${host})" to permissions.allow, or list "${host}" in web.allowPrivateNetwork, in .agents/settings.json.`
        );
      }
      return undefined;
    },
  };
}

function urlCheck(host: string): Check {
  return { tool: "read_url_content", safety: "network", label: host, value: { type: "url", host } };
}

function addressList(addresses: readonly ResolvedAddress[]): string {
  return addresses.map(({ address }) => address).join(", ");
}

/**
 * `web.allowPrivateNetwork` entries: host names (covering their subdomains), addresses, CIDR ranges.
 * The ranges become a BlockList on the first check, not when the session starts (node:net's BlockList
 * costs ms of start-up, and start-up is a benchmark target); a malformed entry still fails at once.
 */
function hostList(entries: readonly string[]): (host: string, address: string) => boolean {
  const subnets: { network: string; prefix: number; family: "ipv4" | "ipv6" }[] = [];
  const names: string[] = [];
  for (const entry of entries) {
    const [network, prefix] = entry.trim().split("/");
    const family = isIP(normalizeHost(network ?? ""));
    if (prefix !== undefined && family !== 0) {
      const bits = family === 6 ? 128 : 32;
      if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits)
        throw new Error(
          `web.allowPrivateNetwork entry "${entry}" has no valid prefix length: write a whole number from 0 to ${bits} after the "/" (such as 10.0.0.0/8).`,
        );
      subnets.push({
        network: normalizeHost(network as string),
        prefix: Number(prefix),
        family: family === 6 ? "ipv6" : "ipv4",
      });
    } else names.push(entry);
  }
  let ranges: BlockList | undefined;
  return (host, address) => {
    if (ranges === undefined) {
      ranges = new (process.getBuiltinModule("node:net").BlockList)();
      for (const { network, prefix, family } of subnets) ranges.addSubnet(network, prefix, family);
    }
    const ip = normalizeHost(address);
    const family = isIP(ip) === 6 ? "ipv6" : "ipv4";
    if (ranges.check(ip, family)) return true;
    return names.some((name) => hostCovers(name, host) || hostCovers(name, ip));
  };
}
