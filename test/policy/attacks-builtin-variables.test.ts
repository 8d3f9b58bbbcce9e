import { chmodSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DENY_RM, itRefusesPastDenyRm, policySessions } from "./session-support.js";

const session = policySessions();

const FILES = { victim: "keep me\n", "bin/ls": "#!/bin/sh\nrm victim\n", "bin/evil": "rm victim\n" };

/** Builtins other than NAME=value set PATH, HOME and BASH_ENV as surely: each is a variable known only when it runs. */
describe("variables set by read, printf -v, mapfile and namerefs are tracked (yolo, deny Bash(rm:*))", () => {
  itRefusesPastDenyRm(session, {
    lines: [
      'read PATH <<< "$PWD/bin:/usr/bin:/bin"; ls',
      'printf -v PATH %s "$PWD/bin:/usr/bin:/bin"; ls',
      'declare -n p=PATH; p="$PWD/bin:/usr/bin:/bin"; ls',
      'mapfile -t PATH <<< "$PWD/bin"; ls',
      "set -a; read BASH_ENV <<< bin/evil; bash -c true",
    ],
    files: FILES,
    prepare: (s) => chmodSync(path.join(s.ws.root, "bin/ls"), 0o755),
  });

  for (const line of [
    'printf -v HOME %s "$PWD/.agents"; echo PWN > ~/settings.json',
    'read HOME <<< "$PWD/.agents"; echo PWN > ~/hooks.json',
    'declare -n h=HOME; h="$PWD/.agents"; echo PWN > ~/hooks.json',
  ]) {
    it(`refuses ${JSON.stringify(line)}, which writes a protected file through a new HOME`, async () => {
      const s = await session({ mode: "yolo", files: { ".agents/hooks.json": "{}\n" } });
      const result = await s.command(line);
      expect(result.errorCode, result.text).toBe("denied");
      expect(readFileSync(path.join(s.ws.root, ".agents/hooks.json"), "utf8")).toBe("{}\n");
      expect(s.exists(".agents/settings.json")).toBe(false);
    });
  }

  it("reading ordinary variables still runs", async () => {
    const s = await session({ mode: "yolo", files: FILES, settings: DENY_RM });
    const result = await s.command("read -r a b <<< 'x y'; printf -v c %s z; echo $a$b$c");
    expect(result.error, result.text).toBe(false);
    expect(result.text).toContain("xyz");
  });
});
