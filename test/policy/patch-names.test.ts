import { describe, expect, it } from "vitest";
import { namesInPatch, strippedNames } from "../../src/policy/patch-names.js";

describe("the names a patch names", () => {
  it("reads unified, git and context headers, renames and copies, and skips /dev/null", () => {
    const text = [
      "From 1234 Mon Sep 17 00:00:00 2001",
      "Subject: [PATCH] x",
      "diff --git a/src/old.ts b/src/new.ts",
      "rename from src/old.ts",
      "rename to src/new.ts",
      "diff --git a/.agents/hooks.json b/.agents/hooks.json",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/.agents/hooks.json\t2024-01-01 00:00:00",
      "@@ -0,0 +1 @@",
      "+--- not/a/header/in/a/hunk",
      "*** ctx/a.c\t2024-01-01",
      "--- ctx/a.c\t2024-01-01",
      "***************",
      "*** 1,3 ****",
      "Index: svn/file.txt",
    ].join("\r\n");
    expect(namesInPatch(text).sort()).toEqual(
      [
        "a/.agents/hooks.json",
        "a/src/old.ts",
        "b/.agents/hooks.json",
        "b/src/new.ts",
        "ctx/a.c",
        "src/new.ts",
        "src/old.ts",
        "svn/file.txt",
      ].sort(),
    );
  });

  it("reads names git quotes, with escapes and octal bytes", () => {
    const text = 'diff --git "a/sp ace\\tx" "b/caf\\303\\251"\n--- "a/sp ace\\tx"\n+++ "b/caf\\303\\251"\n';
    expect(namesInPatch(text).sort()).toEqual(["a/sp ace\tx", "b/café"].sort());
  });

  it("strips as -p does, and without -p takes every tail of a name", () => {
    expect(strippedNames("a/.agents/hooks.json", 1)).toEqual([".agents/hooks.json"]);
    expect(strippedNames("a/.agents/hooks.json", 0)).toEqual(["a/.agents/hooks.json"]);
    expect(strippedNames("a/.agents/hooks.json", undefined)).toEqual([
      "a/.agents/hooks.json",
      ".agents/hooks.json",
      "hooks.json",
    ]);
    expect(strippedNames("x", 3)).toEqual(["x"]);
  });
});
