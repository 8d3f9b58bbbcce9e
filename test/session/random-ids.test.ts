import { expect, it } from "vitest";
import { randomBytesFromPool, randomHex, randomUuid } from "../../src/session/random-ids.js";

it("makes version 4 UUIDs, each one new", () => {
  const ids = Array.from({ length: 200 }, () => randomUuid());
  for (const id of ids)
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  // 200 UUIDs take 3,200 bytes: the pool is read again a dozen times
  expect(new Set(ids).size).toBe(ids.length);
});

it("hands out hex of the length asked for, never the same bytes twice", () => {
  const hex = Array.from({ length: 100 }, () => randomHex(6));
  for (const value of hex) expect(value).toMatch(/^[0-9a-f]{12}$/);
  expect(new Set(hex).size).toBe(hex.length);
  // bytes spread over all values, not a fixed pattern (a zeroed pool would give only 0s)
  const bytes = Buffer.concat(Array.from({ length: 64 }, () => randomBytesFromPool(64)));
  expect(new Set(bytes).size).toBeGreaterThan(200);
});

it("refuses more bytes than one read of the pool holds, naming the limit", () => {
  expect(() => randomBytesFromPool(257)).toThrow(/at most 256 bytes; asked for 257/);
});
