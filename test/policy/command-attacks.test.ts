import { chmodSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { policySessions } from "./session-support.js";

const session = policySessions();

/** Each of these ran `rm victim` past deny Bash(rm:*) before rules judged what runs (issue 12). */
const RM_ATTACKS = [
  `"r"m victim`,
  String.raw`r\m victim`,
  `'r'm victim`,
  String.raw`$'\x72m' victim`,
  "/bin/rm victim",
  "command rm victim",
  "builtin command rm victim",
  "env rm victim",
  "env -i PATH=/bin:/usr/bin rm victim",
  "env -S 'rm victim'",
  "exec rm victim",
  "timeout 5 rm victim",
  "nice rm victim",
  "nice -n 10 rm victim",
  "nohup rm victim",
  "time rm victim",
  "stdbuf -o0 rm victim",
  "setsid rm victim",
  "sudo -n rm victim",
  "eval 'rm victim'",
  'eval "r""m victim"',
  "bash -c 'rm victim'",
  "sh -c 'rm victim'",
  "sh -c \"eval 'timeout 5 rm victim'\"",
  "bash <<'EOF'\nrm victim\nEOF",
  "bash <<< 'rm victim'",
  "echo victim | xargs rm",
  "echo victim | xargs -I{} rm {}",
  "find . -name victim -exec rm {} \\;",
  "find . -name victim -delete",
  "unlink victim",
  "git -c core.pager='rm victim' log",
  "GIT_SSH_COMMAND='rm victim' git fetch",
  "trap 'rm victim' EXIT",
  "alias ls='rm victim'",
  "FOO=1 rm victim",
  "busybox rm victim",
  "pkexec rm victim",
  "unshare -r rm victim",
  "script -qc 'rm victim' /dev/null",
  "source /dev/stdin <<< 'rm victim'",
  "bash /dev/stdin <<< 'rm victim'",
  "sed -n '1e rm victim' victim",
  "coproc rm victim",
  "if true; then rm victim; fi",
  "a=$(rm victim)",
  "watch -n 1 rm victim",
  "flock /tmp/gantry-test.lock rm victim",
];

/** Programs known only when the command runs: in yolo, denied because they could be rm. */
const UNKNOWN_PROGRAMS = [
  "x=rm; $x victim",
  "$(printf rm) victim",
  "`printf rm` victim",
  'eval "$(printf "rm victim")"',
  'cmd="rm victim"; bash -c "$cmd"',
  "echo 'rm victim' | bash",
  "echo 'rm victim' | sh -s",
  "/bin/r? victim",
  "{rm,victim}",
  "printf 'rm victim' | xargs -I{} sh -c {}",
];

describe("deny Bash(rm:*) holds however the command is spelled (yolo)", () => {
  for (const line of RM_ATTACKS) {
    it(`denies ${JSON.stringify(line)}`, async () => {
      const s = await session({
        mode: "yolo",
        files: { victim: "keep me\n" },
        settings: { permissions: { deny: ["Bash(rm:*)"] } },
      });
      const result = await s.command(line);
      expect(result.errorCode, result.text).toBe("denied");
      expect(result.text).toMatch(
        /^Denied by rule deny Bash\(rm:\*\) \(settings given to Gantry\): ".*" matches it/,
      );
      expect(s.exists("victim")).toBe(true);
    });
  }

  for (const line of UNKNOWN_PROGRAMS) {
    it(`denies ${JSON.stringify(line)}, whose program is known only when it runs, naming the rule it could evade`, async () => {
      const s = await session({
        mode: "yolo",
        files: { victim: "keep me\n" },
        settings: { permissions: { deny: ["Bash(rm:*)"] } },
      });
      const result = await s.command(line);
      expect(result.errorCode, result.text).toBe("denied");
      expect(result.text).toContain("Denied by rule deny Bash(rm:*) (settings given to Gantry)");
      expect(result.text).toMatch(
        /known only when it runs, so it could be what rule deny Bash\(rm:\*\) \(settings given to Gantry\) forbids/,
      );
      expect(s.exists("victim")).toBe(true);
    });
  }

  it("still runs what the rule does not forbid, through the same wrappers", async () => {
    const s = await session({ mode: "yolo", settings: { permissions: { deny: ["Bash(rm:*)"] } } });
    for (const line of [
      "timeout 5 echo ok",
      "bash -c 'echo ok'",
      "echo ok | xargs echo",
      "env FOO=1 echo ok",
    ]) {
      const result = await s.command(line);
      expect(result.error, `${line}: ${result.text}`).toBe(false);
      expect(result.text).toContain("ok");
    }
  });

  it("without a command deny rule, yolo runs a program known only when it runs", async () => {
    const s = await session({ mode: "yolo" });
    const result = await s.command("x=echo; $x dynamic");
    expect(result.error, result.text).toBe(false);
    expect(result.text).toContain("dynamic");
  });
});

describe("allow rules cover what they name, not what it runs", () => {
  it("allow Bash(find:*) does not allow find -exec of anything", async () => {
    const s = await session({
      mode: "default",
      files: { victim: "keep me\n" },
      settings: { permissions: { allow: ["Bash(find:*)"] } },
    });
    const listed = await s.command("find . -name victim");
    expect(listed.error, listed.text).toBe(false);
    expect(listed.text).toContain("./victim");
    for (const line of [
      "find . -name victim -exec rm {} \\;",
      "find . -name victim -execdir sh -c 'rm victim' \\;",
      "find . -name victim -ok rm {} \\;",
      "find . -name victim -delete",
    ]) {
      const result = await s.command(line);
      expect(result.errorCode, line).toBe("denied");
    }
    expect(s.exists("victim")).toBe(true);
    // the command find runs, and the files it deletes (everything below `.` it finds), are asked about;
    // -execdir runs in each found file's folder
    expect(s.asked.map((request) => request.subjects)).toEqual([
      ["rm {}", "."],
      [
        "rm victim",
        "victim (the folder it is relative to is known only when the command runs (a cd before it, find -execdir))",
        "victim",
      ],
      ["rm {}", "."],
      ["."],
    ]);
  });

  it("allow Bash(tee:*) does not write a file without edit approval", async () => {
    const s = await session({
      mode: "default",
      settings: { permissions: { allow: ["Bash(tee:*)", "Bash(echo:*)"] } },
    });
    const result = await s.command("echo data | tee out.txt");
    expect(result.errorCode).toBe("denied");
    expect(s.exists("out.txt")).toBe(false);
    expect(s.asked.map((request) => request.subjects)).toEqual([["out.txt"]]);
    expect((await s.command("echo data | tee")).error).toBe(false);
  });

  it("auto-edit lets a command's own write inside the workspace run, as it lets an edit", async () => {
    const s = await session({
      mode: "auto-edit",
      settings: { permissions: { allow: ["Bash(tee:*)", "Bash(echo:*)"] } },
    });
    const result = await s.command("echo data | tee out.txt");
    expect(result.error, result.text).toBe(false);
    expect(s.exists("out.txt")).toBe(true);
    const outside = await s.command(`echo data | tee ${s.ws.parent}/outside.txt`);
    expect(outside.errorCode).toBe("denied");
    expect(s.exists(`${s.ws.parent}/outside.txt`)).toBe(false);
  });

  it("an allow rule never vouches for a program known only when it runs: it asks", async () => {
    const s = await session({
      mode: "default",
      settings: { permissions: { allow: ["Bash(printf:*)", "Bash(x=*)"] } },
    });
    const result = await s.command("x=printf; $x hi");
    expect(result.errorCode).toBe("denied");
    expect(s.asked.map((request) => request.subjects)).toEqual([["$x hi"]]);
    expect(s.asked[0]?.grantRules).toEqual([]);
  });

  it("a wrapper needs no rule of its own: allow Bash(npm test:*) runs `timeout 60 npm test`, not `sudo npm test`", async () => {
    const s = await session({ mode: "default", settings: { permissions: { allow: ["Bash(echo:*)"] } } });
    expect((await s.command("timeout 60 echo wrapped")).text).toContain("wrapped");
    expect((await s.command("nice -n 5 bash -c 'echo nested'")).text).toContain("nested");
    expect((await s.command("sudo -n echo root")).errorCode).toBe("denied");
    expect((await s.command("./timeout 5 echo x")).errorCode).toBe("denied");
  });
});

describe("a script a command runs is judged by its content, for what must hold whatever allowed it", () => {
  const SCRIPT = "#!/bin/sh\necho cleaning\nrm victim\n";

  for (const line of [
    "bash clean.sh",
    "sh ./clean.sh",
    "source clean.sh",
    ". ./clean.sh",
    "./clean.sh",
    "timeout 5 ./clean.sh",
  ]) {
    it(`deny Bash(rm:*) holds inside ${JSON.stringify(line)}`, async () => {
      const s = await session({
        mode: "yolo",
        files: { victim: "keep\n", "clean.sh": SCRIPT },
        settings: { permissions: { deny: ["Bash(rm:*)"] } },
      });
      chmodSync(path.join(s.ws.root, "clean.sh"), 0o755);
      const result = await s.command(line);
      expect(result.text).toBe(
        'Denied by rule deny Bash(rm:*) (settings given to Gantry): "rm victim (in ' +
          (line.includes("./clean.sh") ? "./clean.sh" : "clean.sh") +
          ')" matches it',
      );
      expect(s.exists("victim")).toBe(true);
    });
  }

  it("a script written by the same command line is known only when it runs", async () => {
    const s = await session({
      mode: "yolo",
      files: { victim: "keep\n" },
      settings: { permissions: { deny: ["Bash(rm:*)"] } },
    });
    const result = await s.command("printf 'r''m victim' > t.sh && bash t.sh");
    expect(result.text).toMatch(
      /^Denied by rule deny Bash\(rm:\*\).*"t\.sh \(a script\)": it runs a script this command line writes/,
    );
    expect(s.exists("victim")).toBe(true);
  });

  it("allow and ask rules judge the command that runs the script, not each line of it", async () => {
    const s = await session({
      mode: "default",
      files: { "build.sh": "#!/usr/bin/env bash\necho building\nmkdir -p out\ntouch out/done\n" },
      settings: { permissions: { allow: ["Bash(bash build.sh)"] } },
    });
    const result = await s.command("bash build.sh");
    expect(result.error, result.text).toBe(false);
    expect(result.text).toContain("building");
    expect(s.asked).toEqual([]);
  });

  it("a program whose #! line names another interpreter is not read as a shell script", async () => {
    const s = await session({
      mode: "yolo",
      files: { "tool.py": "#!/usr/bin/env python3\nprint('rm victim')\n" },
      settings: { permissions: { deny: ["Bash(rm:*)"] } },
    });
    chmodSync(path.join(s.ws.root, "tool.py"), 0o755);
    const result = await s.command("./tool.py || true");
    expect(result.errorCode, result.text).toBeUndefined();
  });
});
