import { chmodSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DENY_RM, itRefusesPastDenyRm, policySessions } from "./session-support.js";

const session = policySessions();

/**
 * Commands carried in the environment or in a program's options, which it runs itself: each removed
 * `victim` past deny Bash(rm:*) in yolo (or would, where the program it needs is installed).
 */
const HIDDEN = [
  "env 'BASH_FUNC_ls%%=() { rm victim; }' bash -c ls",
  "PS4='$(rm victim)' bash -xc :",
  "bash < evil.sh",
  "sh 0< evil.sh",
  "tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec='rm victim' evil.sh",
  "tar -cf x.tar -I 'rm victim' evil.sh",
  "tar -cf - evil.sh | tar -xf - --to-command='rm victim'",
  "ssh -o ProxyCommand='rm victim' nohost",
  "ssh -oProxyCommand='rm victim' nohost",
  "scp -o 'ProxyCommand rm victim' a nohost:b",
  "rsync -e 'sh -c \"rm victim\"' a nohost:b",
  "zip -q x.zip evil.sh -T -TT 'rm victim'",
  "sort --compress-program=rm victim",
  "man -P 'rm victim' ls",
  "runuser -c 'rm victim'",
  "setpriv rm victim",
  "GIT_PROXY_COMMAND='rm victim' git fetch git://example.invalid/x",
  "git -c core.gitProxy='rm victim' fetch git://example.invalid/x",
];

/** Settings named only in the environment that make a program load code: known only when it runs. */
const LOADING = [
  "BASH_ENV=evil.sh bash -c true",
  "env BASH_ENV=evil.sh bash -c true",
  "ENV=evil.sh sh -i -c true",
  `GIT_CONFIG_PARAMETERS="'alias.x'='!rm victim'" git x`,
  "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm victim' git log",
  "LD_PRELOAD=./evil.so ls",
];

const FILES = { victim: "keep me\n", "evil.sh": "rm victim\n" };

describe("deny Bash(rm:*) holds against commands hidden in the environment and in options (yolo)", () => {
  itRefusesPastDenyRm(session, { lines: HIDDEN, files: FILES });

  itRefusesPastDenyRm(session, {
    lines: LOADING,
    files: FILES,
    reason:
      /makes it run or read code or settings named only when it runs, so it could be what rule deny Bash\(rm:\*\)/,
    name: (line) => `refuses ${JSON.stringify(line)}, whose code is named only when it runs`,
  });

  it("the same programs run when what they carry is allowed, and ask in default mode", async () => {
    const s = await session({ mode: "yolo", files: FILES, settings: DENY_RM });
    for (const line of [
      "tar -cf - evil.sh | tar -xf - --to-command='cat'",
      "env 'BASH_FUNC_hi%%=() { echo hi; }' bash -c hi",
      "PS4='+ $(date +%s) ' bash -xc : 2>&1",
      "sort --compress-program=gzip victim",
    ]) {
      const result = await s.command(line);
      expect(result.error, `${line}: ${result.text}`).toBe(false);
    }
    const asking = await session({ mode: "default", files: FILES });
    expect((await asking.command("BASH_ENV=evil.sh bash -c true")).errorCode).toBe("denied");
    expect(asking.asked[0]?.decision.reason).toContain("BASH_ENV makes it run or read code");
    expect(asking.exists("victim")).toBe(true);
  });
});

describe("a name made to run something else is known only when it runs (yolo, deny Bash(rm:*))", () => {
  const BIN_LS = "#!/bin/sh\nrm victim\n";
  for (const lines of [
    ["PATH=$PWD/bin:$PATH ls"],
    ["PATH=bin:/usr/bin:/bin ls"],
    ["export PATH=$PWD/bin:$PATH", "ls"],
    ["hash -p bin/ls ls; ls"],
    ["shopt -s expand_aliases; alias f=env", "f rm victim"],
  ]) {
    it(`refuses ${JSON.stringify(lines)} in a persistent terminal`, async () => {
      const s = await session({ mode: "yolo", files: { ...FILES, "bin/ls": BIN_LS }, settings: DENY_RM });
      chmodSync(path.join(s.ws.root, "bin/ls"), 0o755);
      const terminal = { RunPersistent: true, RequestedTerminalID: "t1" };
      const first = await s.command(lines[0] as string, terminal);
      expect(first.errorCode, first.text).toBe("denied");
      expect(first.text).toMatch(/known only when it runs|run its text|run another program/);
      for (const line of lines.slice(1)) await s.command(line, terminal);
      expect(s.exists("victim")).toBe(true);
    });
  }

  it("a PATH of system folders only changes nothing that matters", async () => {
    const s = await session({ mode: "yolo", files: FILES, settings: DENY_RM });
    const result = await s.command("PATH=/usr/local/bin:/usr/bin:/bin ls");
    expect(result.error, result.text).toBe(false);
  });
});
