import { describe, expect, it } from "vitest";
import type { ToolResult } from "../../src/tools/contract.js";
import { policySessions } from "./session-support.js";

const session = policySessions();

const FILES = {
  "sub/.env": "API_KEY=abc123\n",
  "src/deep/more/.env": "API_KEY=def456\n",
  "secret-dir/token.txt": "TOKEN=ghi789\n",
  "src/app.ts": "export {};\n",
};
const DENY = { permissions: { deny: ["Read(**/.env)", "Read(src/**/.env)", "Read(./secret-dir/**)"] } };

function expectDenied(result: ToolResult): void {
  expect(result.errorCode, result.text).toBe("denied");
  expect(result.text).toMatch(/^Denied by rule deny Read\(/);
  expect(result.text).not.toMatch(/abc123|def456|ghi789/);
}

/**
 * Each printed or copied a denied file in yolo: a folder read whole (`grep -r`, `tar c`) or a pattern
 * (`sub/.en?`) whose folder holds what `**`-patterns name at any depth, or a program Gantry has no
 * account of given a folder, which it may read whole.
 */
const REACHING = [
  "grep -r API_KEY sub",
  "grep -r API_KEY src/deep",
  "cat sub/.en?",
  "cat sub/.en[v]",
  "cat src/deep/*/.env",
  "cp -r sub ../copy && cat ../copy/.env",
  "tar -cf - sub",
  "tar -cf - .",
  "tar -cf - src",
];

describe("Read deny rules reach into the folders a command reads whole (yolo)", () => {
  for (const line of REACHING) {
    it(`refuses ${JSON.stringify(line)}`, async () => {
      const s = await session({ mode: "yolo", files: FILES, settings: DENY });
      expectDenied(await s.command(line));
    });
  }

  it("folders no rule reaches into are still read whole, and a file given to grep -r is that file alone", async () => {
    const anchored = { permissions: { deny: ["Read(src/**/.env)", "Read(./secret-dir/**)"] } };
    const s = await session({ mode: "yolo", files: FILES, settings: anchored });
    for (const line of ["grep -r API_KEY sub", "tar -cf /dev/null sub", "grep -r export src/app.ts"]) {
      const result = await s.command(line);
      expect(result.error, `${line}: ${result.text}`).toBe(false);
    }
  });
});
