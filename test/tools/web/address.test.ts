import { describe, expect, it } from "vitest";
import {
  classifyAddress,
  hostCovers,
  isLoopbackHost,
  normalizeHost,
} from "../../../src/tools/web/address.js";

describe("normalizeHost", () => {
  it("brings every spelling of an address to one form", () => {
    for (const spelling of [
      "127.0.0.1",
      "2130706433",
      "0x7f000001",
      "0177.0.0.1",
      "0x7f.1",
      "127.1",
      "127.0.0.1.",
      "[::ffff:127.0.0.1]",
      "[::ffff:7f00:1]",
      "[0:0:0:0:0:ffff:7f00:1]",
      "::FFFF:127.0.0.1",
    ]) {
      expect(normalizeHost(spelling), spelling).toBe("127.0.0.1");
    }
    expect(normalizeHost("LocalHost.")).toBe("localhost");
    expect(normalizeHost("Docs.Example.COM..")).toBe("docs.example.com");
    expect(normalizeHost("[0:0:0:0:0:0:0:1]")).toBe("::1");
    expect(normalizeHost("[FD00:EC2:0::254]")).toBe("fd00:ec2::254");
  });
});

describe("classifyAddress", () => {
  it("names loopback, private, shared, link-local, metadata and unspecified addresses", () => {
    const kinds: Record<string, string> = {
      "127.0.0.1": "loopback",
      "127.0.0.2": "loopback",
      "::1": "loopback",
      "::ffff:127.0.0.1": "loopback",
      "::7f00:1": "loopback",
      "64:ff9b::7f00:1": "loopback",
      "2002:7f00:1::": "loopback",
      "10.1.2.3": "private",
      "172.16.0.1": "private",
      "172.31.255.255": "private",
      "192.168.1.1": "private",
      "100.64.0.1": "shared",
      "100.127.255.255": "shared",
      "169.254.1.1": "link-local",
      "169.254.169.254": "metadata",
      "fd00:ec2::254": "metadata",
      "fc00::1": "private",
      "fd12:3456::1": "private",
      "fe80::1": "link-local",
      "0.0.0.0": "unspecified",
      "::": "unspecified",
      "224.0.0.1": "multicast",
      "255.255.255.255": "reserved",
    };
    for (const [address, kind] of Object.entries(kinds))
      expect(classifyAddress(address)?.kind, address).toBe(kind);
  });

  it("leaves public addresses alone", () => {
    for (const address of ["8.8.8.8", "172.32.0.1", "100.128.0.1", "93.184.216.34", "2606:4700::1111"])
      expect(classifyAddress(address), address).toBeUndefined();
  });
});

describe("hostCovers and isLoopbackHost", () => {
  it("compares normalized hosts; a domain covers its subdomains, an address only itself", () => {
    expect(hostCovers("example.com", "Docs.Example.com.")).toBe(true);
    expect(hostCovers("*.example.com", "a.example.com")).toBe(true);
    expect(hostCovers("example.com", "badexample.com")).toBe(false);
    expect(hostCovers("127.0.0.1", "[::ffff:127.0.0.1]")).toBe(true);
    expect(hostCovers("127.0.0.1", "2130706433")).toBe(true);
    expect(hostCovers("0.0.1", "127.0.0.1")).toBe(false);
  });

  it("knows localhost, .localhost names and loopback addresses in every spelling", () => {
    for (const host of [
      "localhost",
      "localhost.",
      "api.localhost",
      "127.0.0.2",
      "[::1]",
      "[::ffff:127.0.0.1]",
    ])
      expect(isLoopbackHost(host), host).toBe(true);
    expect(isLoopbackHost("localhost.example.com")).toBe(false);
    expect(isLoopbackHost("10.0.0.1")).toBe(false);
  });
});
