import { symlinkSync } from "node:fs";
import path from "node:path";
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

/**
 * A workspace's links put a denied file in another folder; each line read it through the link in
 * yolo, by reading the folder whole and following links (`grep -R`, `rg -L`, `tar -h`, `zip -r`).
 */
const THROUGH_LINKS = [
  "grep -R TOKEN docs",
  "rg -L TOKEN docs",
  "tar -chf - docs",
  "zip -qr - docs",
  "cp -rL docs ../copy && cat ../copy/ref/token.txt",
  "find -L docs -type f -exec cat {} +",
  "grep -R KEY=",
  "grep -R KEY= docs/nested",
];

describe("a Read deny rule holds through the links in a folder read whole (yolo)", () => {
  const linked = async (settings = DENY_LINKED) => {
    const s = await session({
      mode: "yolo",
      files: { ...FILES, "docs/readme.md": "docs\n", "docs/nested/x.md": "x\n" },
      homeFiles: { "keys/id": "KEY=jkl012\n" },
      settings,
    });
    symlinkSync("../secret-dir", path.join(s.ws.root, "docs/ref"));
    symlinkSync("../../secret-dir/token.txt", path.join(s.ws.root, "docs/nested/t"));
    symlinkSync(path.join(s.ws.home, "keys"), path.join(s.ws.root, "docs/nested/k"));
    return s;
  };
  const DENY_LINKED = { permissions: { deny: ["Read(./secret-dir/**)", "Read(~/keys/**)"] } };

  for (const line of THROUGH_LINKS) {
    it(`refuses ${JSON.stringify(line)}`, async () => {
      const result = await (await linked()).command(line);
      expectDenied(result);
      expect(result.text).not.toContain("jkl012");
      expect(result.text).toContain("through the link");
    });
  }

  it("folders whose links lead nowhere denied are read whole; without Read rules links are not looked into", async () => {
    const s = await linked();
    for (const line of ["grep -R docs src", "grep -r x docs/readme.md", "tar -cf /dev/null src"]) {
      const result = await s.command(line);
      expect(result.error, `${line}: ${result.text}`).toBe(false);
    }
    const free = await linked({ permissions: { deny: ["Bash(rm:*)"] } });
    expect((await free.command("grep -R TOKEN docs")).text).toContain("TOKEN=ghi789");
  });
});
