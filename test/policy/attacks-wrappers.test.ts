import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DENY_RM, itRefusesPastDenyRm, policySessions } from "./session-support.js";

const session = policySessions();

const FILES = { victim: "keep me\n" };

/**
 * Programs that run the command they are given (another identity, an environment, a debugger, a
 * terminal multiplexer, a package runner): each ran `rm victim` past deny Bash(rm:*) in yolo, or would
 * where the program is installed.
 */
const WRAPPED = [
  "fakeroot rm victim",
  "eatmydata rm victim",
  "xvfb-run -a rm victim",
  "dbus-run-session rm victim",
  "numactl --cpunodebind=0 rm victim",
  "prlimit --nofile=100 rm victim",
  "faketime '2020-01-01' rm victim",
  "firejail --quiet rm victim",
  "proxychains4 -q rm victim",
  "torsocks rm victim",
  "chpst -u nobody rm victim",
  "gosu root rm victim",
  "su-exec root rm victim",
  "toybox rm victim",
  "flatpak-spawn --host rm victim",
  "systemd-run --user -p Nice=5 rm victim",
  "valgrind -q --tool=none rm victim",
  "ccache rm victim",
  "perf stat -o /dev/null rm victim",
  "perf record -g -o /dev/null -- rm victim",
  "gdb -batch -ex run --args rm victim",
  "npx -c 'rm victim'",
  "npm exec -c 'rm victim'",
  "npm exec -- rm victim",
  "npx --yes rm victim",
  "pnpm exec rm victim",
  "pnpm dlx rm victim",
  "yarn exec rm victim",
  "bunx rm victim",
  "uv run rm victim",
  "uv run --with x -- rm victim",
  "poetry run rm victim",
  "pipenv run rm victim",
  "conda run -n base rm victim",
  "bundle exec rm victim",
  "tmux new-session -d 'rm victim'",
  "tmux new-window -n x rm victim",
  "tmux run-shell 'rm victim'",
  "tmux send-keys -t x 'rm victim' Enter",
  "screen -dmS x rm victim",
  "screen -S x -X stuff 'rm victim\\n'",
  "at now <<< 'rm victim'",
  "echo 'rm victim' | batch",
  "sg root -c 'rm victim'",
  "sg root rm victim",
  "bwrap --bind / / --dev /dev rm victim",
  "bwrap --ro-bind / / --tmpfs /tmp --unshare-pid sh -c 'rm victim'",
  "entr -n rm victim <<< victim",
  "entr -s 'rm victim' <<< victim",
  "parallel rm ::: victim",
  "parallel ::: 'rm victim'",
  "echo 'rm victim' | parallel",
];

describe("deny Bash(rm:*) sees through programs that run a command (yolo)", () => {
  itRefusesPastDenyRm(session, { lines: WRAPPED, files: FILES });

  it("names the command the wrapper runs", async () => {
    const s = await session({ mode: "yolo", files: FILES, settings: DENY_RM });
    const result = await s.command("fakeroot rm victim");
    expect(result.text).toBe(
      'Denied by rule deny Bash(rm:*) (settings given to Gantry): "rm victim" matches it',
    );
  });

  it("the same wrappers around other commands run where installed; a wrapper alone is no command", async () => {
    const s = await session({ mode: "yolo", files: FILES, settings: DENY_RM });
    for (const line of ["prlimit --nofile=100 cat victim", "tmux -V || true", "perf --version || true"]) {
      const result = await s.command(line);
      expect(result.error, `${line}: ${result.text}`).toBe(false);
    }
  });

  it("an allow rule for the wrapped command does not cover a wrapper that changes who runs it", async () => {
    const s = await session({
      mode: "default",
      files: FILES,
      settings: { permissions: { allow: ["Bash(cat:*)"] } },
    });
    expect((await s.command("eatmydata cat victim")).error).toBe(false);
    expect((await s.command("gosu root cat victim")).errorCode).toBe("denied");
    expect(s.asked.map((request) => request.subjects[0])).toEqual(["gosu root cat victim"]);
  });
});

describe("an allow rule for a package or environment runner's line covers the command it runs", () => {
  it("Bash(npx --offline cat:*) and Bash(uv run cat:*) allow their lines; deny rules still see inside", async () => {
    const s = await session({
      mode: "default",
      files: FILES,
      settings: {
        permissions: {
          allow: ["Bash(npx --offline cat:*)", "Bash(uv run cat:*)", "Bash(npx:*)"],
          deny: ["Bash(rm:*)"],
        },
      },
    });
    // allowed, so they run (whether npx finds a cat or uv is installed is this machine's); nothing was asked
    for (const line of ["npx --offline cat victim", "uv run cat victim"])
      expect((await s.command(line)).text, line).toMatch(/^Exit code \d+ after/);
    expect(s.asked).toEqual([]);
    expect((await s.command("npx rm victim")).errorCode).toBe("denied");
    expect(s.exists("victim")).toBe(true);
  });
});

const HOOKS = '{"gate":{"pre_tool_execution":[]}}\n';

/** Programs that run a command in another folder: each rewrote .agents/hooks.json in yolo, or would where installed. */
const IN_ANOTHER_FOLDER = [
  "tmux new-session -d -c .agents 'echo x > hooks.json'",
  "unshare --wd .agents sh -c 'echo x > hooks.json'",
  "nsenter --wd=.agents sh -c 'echo x > hooks.json'",
  "sudo -D .agents sh -c 'echo x > hooks.json'",
  "systemd-run --working-directory=.agents sh -c 'echo x > hooks.json'",
  "bwrap --bind / / --chdir .agents sh -c 'echo x > hooks.json'",
  "flatpak-spawn --directory=.agents sh -c 'echo x > hooks.json'",
  "parallel --workdir .agents 'echo x > hooks.json' ::: 1",
  "uv run --directory .agents sh -c 'echo x > hooks.json'",
  "pnpm -C .agents exec sh -c 'echo x > hooks.json'",
  "yarn --cwd .agents exec sh -c 'echo x > hooks.json'",
  "find .agents -name hooks.json -execdir sh -c 'echo x > hooks.json' \\;",
  "make -C .agents -f /dev/null --eval 'x: ; echo x > hooks.json' x",
];

describe("the protected files hold against commands run in another folder (yolo)", () => {
  for (const line of IN_ANOTHER_FOLDER)
    it(`refuses ${JSON.stringify(line)}`, async () => {
      const s = await session({ mode: "yolo", files: { ".agents/hooks.json": HOOKS } });
      const result = await s.command(line);
      expect(result.errorCode, result.text).toBe("denied");
      expect(result.text).toMatch(/^Denied by protected files/);
      expect(readFileSync(path.join(s.ws.root, ".agents/hooks.json"), "utf8")).toBe(HOOKS);
    });

  it("pnpm -C DIR exec is still seen through for deny rules", async () => {
    const s = await session({ mode: "yolo", files: FILES, settings: DENY_RM });
    expect((await s.command("pnpm -C . exec rm victim")).errorCode).toBe("denied");
    expect(s.exists("victim")).toBe(true);
  });
});
