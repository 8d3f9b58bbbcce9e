import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { committed, DENY_RM, itRefusesPastDenyRm, policySessions } from "./session-support.js";

const session = policySessions();

const FILES = {
  victim: "keep me\n",
  "src/a.txt": "one\n",
  "s.sh": "rm victim\n",
  ".agents/hooks.json": "{}\n",
};

/** Programs git, rg, tar and npm run from their options, configuration, URLs and environment. */
const RUN_BY_OPTIONS = [
  "git fetch --upload-pack='rm victim;' .",
  "git ls-remote --upload-pack='rm victim;' .",
  "git ls-remote -u 'rm victim;' .",
  "git -c protocol.ext.allow=always ls-remote 'ext::sh -c rm% victim'",
  "git -c remote.origin.uploadpack='rm victim;' -c remote.origin.url=. fetch origin",
  "git push --receive-pack='rm victim;' . HEAD:refs/heads/x",
  "git archive --remote=. --exec='rm victim;' HEAD",
  "git -c difftool.x.cmd='rm victim' difftool -y -t x HEAD",
  "rg --pre=rm zzz victim",
  "rg --pre rm zzz victim",
  "rg --pre=sh '' s.sh",
  "TAR_OPTIONS='--to-command=rm\\ victim' tar -cf - s.sh | tar -xf -",
  "tar -cf x.tar s.sh; TAR_OPTIONS='--checkpoint=1 --checkpoint-action=exec=rm\\ victim' tar -tf x.tar",
  "RSYNC_RSH='rm victim' rsync a nohost:b",
  "RSYNC_CONNECT_PROG='rm victim' rsync rsync://nohost/x .",
];

describe("deny Bash(rm:*) holds against programs run from options, configuration and URLs (yolo)", () => {
  itRefusesPastDenyRm(session, { lines: RUN_BY_OPTIONS, files: FILES, prepare: committed });

  it("rg without --pre and git fetch without a pack program still run", async () => {
    const s = committed(await session({ mode: "yolo", files: FILES, settings: DENY_RM }));
    for (const line of ["rg one src", "git fetch . HEAD", "git ls-remote ."]) {
      const result = await s.command(line);
      expect(result.error, `${line}: ${result.text}`).toBe(false);
    }
  });
});

describe("narrow allow rules do not cover a program swapped in by an option (default mode)", () => {
  for (const [rule, line] of [
    ["Bash(git fetch:*)", "git fetch --upload-pack='touch pwned;' ."],
    ["Bash(rg:*)", "rg --pre=touch zzz pwned"],
    ["Bash(npm run test:*)", "npm run test:x --script-shell=./evil.sh"],
    ["Bash(npm run test:*)", "npm run test:x --script-shell ./evil.sh"],
    ["Bash(npm run test:*)", "npm_config_script_shell=./evil.sh npm run test:x"],
    ["Bash(npm run test:*)", "NPM_CONFIG_SCRIPT_SHELL=./evil.sh npm run test:x"],
  ] as const) {
    it(`allow ${rule} does not allow ${JSON.stringify(line)}`, async () => {
      const files = {
        ...FILES,
        "package.json": '{"scripts":{"test:x":"true"}}\n',
        "evil.sh": "#!/bin/sh\ntouch pwned\n",
      };
      const s = committed(
        await session({ mode: "default", files, settings: { permissions: { allow: [rule] } } }),
      );
      const result = await s.command(line);
      expect(result.errorCode, result.text).toBe("denied");
      expect(s.exists("pwned")).toBe(false);
    });
  }
});

describe("files written by options and variables are judged as writes (yolo)", () => {
  for (const line of [
    "iconv -f utf-8 -t utf-8 -o .agents/hooks.json src/a.txt",
    "iconv -f utf-8 -t utf-8 --output=.agents/hooks.json src/a.txt",
    "GIT_TRACE=$PWD/.agents/hooks.json git status",
    "GIT_TRACE2_EVENT=$PWD/.agents/hooks.json git status",
    "GIT_TRACE_SETUP=$PWD/.agents/hooks.json git status",
    "env GIT_TRACE_PERFORMANCE=$PWD/.agents/hooks.json git status",
  ]) {
    it(`refuses ${JSON.stringify(line)}, which writes a protected file`, async () => {
      const s = committed(await session({ mode: "yolo", files: FILES }));
      const result = await s.command(line);
      expect(result.errorCode, result.text).toBe("denied");
      expect(readFileSync(path.join(s.ws.root, ".agents/hooks.json"), "utf8")).toBe("{}\n");
    });
  }

  it('refuses "mktemp .agents/agents/XXXXXX.md", which creates a file in the protected agents folder', async () => {
    const s = await session({ mode: "yolo", files: { ...FILES, ".agents/agents/a.md": "x\n" } });
    const result = await s.command("mktemp .agents/agents/XXXXXX.md");
    expect(result.errorCode, result.text).toBe("denied");
    const result2 = await s.command("mktemp -p .agents/agents XXXXXX.md");
    expect(result2.errorCode, result2.text).toBe("denied");
  });

  it("iconv to an ordinary file, GIT_TRACE=1 and mktemp in /tmp still run", async () => {
    const s = committed(await session({ mode: "yolo", files: FILES }));
    for (const line of ["iconv -f utf-8 -t utf-8 -o out.txt src/a.txt", "GIT_TRACE=1 git status", "mktemp"]) {
      const result = await s.command(line);
      expect(result.error, `${line}: ${result.text}`).toBe(false);
    }
  });
});
