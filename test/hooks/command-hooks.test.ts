import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { loadHookConfig } from "../../src/hooks/config.js";
import { configureHookRunner } from "../../src/hooks/hook-runner.js";
import { runCommandHook } from "../../src/hooks/run-command.js";
import { createHookStep } from "../../src/hooks/step.js";
import { createToolPipeline } from "../../src/tools/pipeline.js";
import { createToolRegistry } from "../../src/tools/registry.js";
import { REPO_ROOT } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { pidsWith, uniqueMarker, waitFor } from "../tools/exec/helpers.js";
import { hookHarness, hooksJson, probeTools } from "./support.js";

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

/** One group, one pre hook on every tool. */
function preHook(command: string, extra: Record<string, unknown> = {}, timeout = 5) {
  return hooksJson({
    gate: {
      ...extra,
      pre_tool_execution: [{ matcher: "*", hooks: [{ type: "command", command, timeout }] }],
    },
  });
}

const call = { name: "run_command", args: { CommandLine: "echo hi" } };

/** Shell that starts `sleep <marker>` in a session of its own (out of the hook's process group) and waits until it runs. */
function startDetached(marker: string): string {
  return `(setsid sh -c 'touch started; exec sleep ${marker}' > /dev/null 2>&1 &); until [ -e started ]; do sleep 0.01; done`;
}

// every test twice: hooks started from the test's process, and by the build's hook runner process
const MODES = {
  "from the session's process": false,
  "by the hook runner": path.join(REPO_ROOT, "dist", "hooks", "hook-runner-process.js"),
} as const;

for (const [mode, entry] of Object.entries(MODES))
  describe(`command hooks started ${mode}`, () => {
    beforeAll(() => {
      if (entry !== false && !existsSync(entry))
        throw new Error(`${entry} is missing: run \`npm run build\` first`);
      configureHookRunner({ entry });
    });
    afterAll(() => configureHookRunner({ entry: false }));

    describe("command hooks: failures are fail-open and logged with the hook's name", () => {
      it("kills a hook that hangs past its timeout, with its child processes, and allows the call", async () => {
        const marker = uniqueMarker();
        ws = await createTempWorkspace({
          ".agents/hooks.json": preHook(`sleep ${marker} & wait`, {}, 0.5),
        });
        const { pipeline, log, commands } = hookHarness(ws);
        const started = Date.now();
        const result = await pipeline.run(call);
        expect(Date.now() - started).toBeLessThan(3000);
        expect(result).toMatchObject({ error: false, text: "ran" });
        expect(commands).toEqual(["echo hi"]);
        expect(log).toEqual(["hook gate: timed out after 0.5 s (fail-open: allowed)"]);
        expect(result.metadata.hookWarnings).toEqual(log);
        // the hook's shell and its child: every process whose command line names the marker
        expect(await waitFor(() => pidsWith(marker).length === 0)).toBe(true);
      });

      it("SIGKILLs a process group that ignores SIGTERM", async () => {
        const marker = uniqueMarker();
        ws = await createTempWorkspace({
          ".agents/hooks.json": preHook(`trap '' TERM; sleep ${marker} & wait`, {}, 0.3),
        });
        const { pipeline, log } = hookHarness(ws);
        await pipeline.run(call);
        expect(log[0]).toContain("timed out after 0.3 s");
        expect(await waitFor(() => pidsWith(marker).length === 0)).toBe(true);
      });

      it("ends every descendant of a hook that times out, setsid grandchildren included", async () => {
        const [detached, child] = [uniqueMarker(), uniqueMarker()];
        ws = await createTempWorkspace({
          ".agents/hooks.json": preHook(`${startDetached(detached)}; sleep ${child}`, {}, 1),
        });
        const { pipeline, log } = hookHarness(ws);
        await pipeline.run(call);
        expect(log).toEqual(["hook gate: timed out after 1 s (fail-open: allowed)"]);
        expect(existsSync(`${ws.root}/started`)).toBe(true);
        expect(await waitFor(() => pidsWith(detached).length + pidsWith(child).length === 0)).toBe(true);
      });

      it("leaves no process behind when a hook exits, not even a setsid grandchild", async () => {
        const detached = uniqueMarker();
        ws = await createTempWorkspace({
          ".agents/hooks.json": preHook(
            `${startDetached(detached)}; echo '{"decision":"deny","reason":"checked"}'`,
          ),
        });
        const { pipeline } = hookHarness(ws);
        const result = await pipeline.run(call);
        expect(result.text).toBe("Denied by hook gate: checked");
        expect(existsSync(`${ws.root}/started`)).toBe(true);
        expect(await waitFor(() => pidsWith(detached).length === 0)).toBe(true);
      });

      it("allows the call when the hook exits 1, and logs the exit code and stderr", async () => {
        ws = await createTempWorkspace({
          ".agents/hooks.json": preHook("echo 'config missing' >&2; exit 1"),
        });
        const { pipeline, log } = hookHarness(ws);
        expect(await pipeline.run(call)).toMatchObject({ error: false });
        expect(log).toEqual(["hook gate: exited with 1: config missing (fail-open: allowed)"]);
      });

      it("treats exit 2 in a native hook as a failure (allow), unlike the Claude and Gemini dialects", async () => {
        ws = await createTempWorkspace({ ".agents/hooks.json": preHook("echo 'no way' >&2; exit 2") });
        const { pipeline, log } = hookHarness(ws);
        expect(await pipeline.run(call)).toMatchObject({ error: false });
        expect(log).toEqual(["hook gate: exited with 2: no way (fail-open: allowed)"]);
      });

      it("allows the call on garbage stdout and says what it got", async () => {
        ws = await createTempWorkspace({ ".agents/hooks.json": preHook("echo 'DENY!!'") });
        const { pipeline, log } = hookHarness(ws);
        expect(await pipeline.run(call)).toMatchObject({ error: false });
        expect(log).toEqual(['hook gate: unrecognised output: "DENY!!" (fail-open: allowed)']);
      });

      it("allows the call on a broken JSON object and on an unknown decision", async () => {
        ws = await createTempWorkspace({
          ".agents/hooks.json": hooksJson({
            a: {
              pre_tool_execution: [
                { matcher: "", hooks: [{ type: "command", command: "echo '{\"decision\": '" }] },
              ],
            },
            b: {
              pre_tool_execution: [
                { matcher: "", hooks: [{ type: "command", command: `echo '{"decision":"maybe"}'` }] },
              ],
            },
          }),
        });
        const { pipeline, log } = hookHarness(ws);
        expect(await pipeline.run(call)).toMatchObject({ error: false });
        expect(log).toEqual([
          'hook a: unrecognised output (not JSON): "{\\"decision\\":" (fail-open: allowed)',
          'hook b: unrecognised decision "maybe" (fail-open: allowed)',
        ]);
      });

      it("reads 10 MB of stdout with bounded memory, ignores it and allows the call", async () => {
        ws = await createTempWorkspace({
          ".agents/hooks.json": preHook("head -c 10485760 /dev/zero | tr '\\0' a"),
        });
        const { pipeline, log } = hookHarness(ws);
        const before = process.memoryUsage().rss;
        expect(await pipeline.run(call)).toMatchObject({ error: false });
        expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
        expect(log).toEqual(["hook gate: stdout over the size limit; output ignored (fail-open: allowed)"]);
      });

      it("does not crash when a hook ignores a large stdin, and gives EOF to one that reads it all", async () => {
        ws = await createTempWorkspace({
          ".agents/hooks.json": hooksJson({
            ignores: {
              pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command: "exit 0" }] }],
            },
            reads: {
              pre_tool_execution: [
                {
                  matcher: "",
                  hooks: [
                    {
                      type: "command",
                      command: `n=$(wc -c); echo "{\\"decision\\":\\"deny\\",\\"reason\\":\\"read $n bytes\\"}"`,
                    },
                  ],
                },
              ],
            },
          }),
        });
        const { pipeline, log } = hookHarness(ws);
        const big = "x".repeat(2 * 1024 * 1024);
        const result = await pipeline.run({ name: "run_command", args: { CommandLine: big } });
        expect(result.errorCode).toBe("denied");
        expect(result.text).toMatch(/^Denied by hook reads: read \d{7} bytes$/);
        expect(log).toEqual([]);
      });

      it("returns when the hook exits even though a background child still holds its stdout", async () => {
        ws = await createTempWorkspace({
          ".agents/hooks.json": preHook(`sleep 20 & echo '{"decision":"deny","reason":"done early"}'`),
        });
        const { pipeline } = hookHarness(ws);
        const started = Date.now();
        const result = await pipeline.run(call);
        expect(Date.now() - started).toBeLessThan(2000);
        expect(result.text).toBe("Denied by hook gate: done early");
      });

      it("reports a mistyped script (exit 127) loudly on every call, and still fails open", async () => {
        ws = await createTempWorkspace({ ".agents/hooks.json": preHook("./.agents/hooks-scripts/gaet.sh") });
        const { pipeline, log, commands } = hookHarness(ws);
        const first = await pipeline.run(call);
        const second = await pipeline.run(call);
        expect(commands).toEqual(["echo hi", "echo hi"]);
        // the same failure twice is logged twice, never folded into one line
        expect(log).toHaveLength(2);
        for (const line of log) {
          expect(line).toMatch(
            /^HOOK BROKEN: hook gate: command not found \(exit 127\): .*gaet\.sh.* \(fail-open: allowed, so this hook is NOT guarding anything\)$/,
          );
        }
        expect(first.metadata.hookWarnings).toEqual([log[0]]);
        expect(second.metadata.hookWarnings).toEqual([log[1]]);
      });

      it("reports a script that is not executable (exit 126) as loudly, and an ordinary failure without the alarm", async () => {
        ws = await createTempWorkspace({
          ".agents/hooks.json": hooksJson({
            gate: {
              pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command: "./gate.sh" }] }],
            },
            other: { pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command: "exit 1" }] }] },
          }),
          "gate.sh": '#!/bin/sh\necho \'{"decision":"deny"}\'\n',
        });
        const { pipeline, log } = hookHarness(ws);
        await pipeline.run(call);
        expect(log).toEqual([
          expect.stringMatching(
            /^HOOK BROKEN: hook gate: command not executable \(exit 126\): .* \(fail-open: allowed, so this hook is NOT guarding anything\)$/,
          ),
          "hook other: exited with 1 (fail-open: allowed)",
        ]);
      });

      it("denies on failure when the group is failClosed, naming the failure", async () => {
        ws = await createTempWorkspace({ ".agents/hooks.json": preHook("exit 1", { failClosed: true }) });
        const { pipeline, log, commands } = hookHarness(ws);
        const result = await pipeline.run(call);
        expect(result.errorCode).toBe("denied");
        expect(result.text).toBe("Denied by hook gate: the hook failed: exited with 1");
        expect(result.metadata.hookWarnings).toEqual([
          "hook gate: exited with 1 (failClosed: the call is denied)",
        ]);
        expect(log).toEqual(result.metadata.hookWarnings);
        expect(commands).toEqual([]);
      });

      it("skips a disabled group", async () => {
        ws = await createTempWorkspace({
          ".agents/hooks.json": preHook(`echo '{"decision":"deny"}'`, { enabled: false }),
        });
        const { pipeline } = hookHarness(ws);
        expect(await pipeline.run(call)).toMatchObject({ error: false });
      });

      it("kills a running hook when the call is aborted", async () => {
        const marker = uniqueMarker();
        ws = await createTempWorkspace({ ".agents/hooks.json": preHook(`sleep ${marker}`, {}, 30) });
        const { pipeline, log } = hookHarness(ws);
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 300);
        const started = Date.now();
        const result = await pipeline.run(call, { signal: controller.signal });
        expect(Date.now() - started).toBeLessThan(3000);
        expect(result.errorCode).toBe("aborted");
        expect(log).toEqual(["hook gate: aborted (fail-open: allowed)"]);
        expect(await waitFor(() => pidsWith(marker).length === 0)).toBe(true);
      });

      it("does not start the hooks still to come once the call is aborted", async () => {
        ws = await createTempWorkspace({
          ".agents/hooks.json": hooksJson({
            gate: {
              pre_tool_execution: [
                { matcher: "*", hooks: [{ type: "command", command: "sleep 30", timeout: 30 }] },
              ],
            },
            audit: {
              pre_tool_execution: [
                { matcher: "*", hooks: [{ type: "command", command: "touch audit-ran" }] },
              ],
            },
          }),
        });
        const { pipeline, log } = hookHarness(ws);
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 300);
        const result = await pipeline.run(call, { signal: controller.signal });
        expect(result.errorCode).toBe("aborted");
        expect(log).toEqual(["hook gate: aborted (fail-open: allowed)"]);
        expect(existsSync(`${ws.root}/audit-ran`)).toBe(false);
      });

      it("gives hooks the project folder in GANTRY_PROJECT_DIR, CLAUDE_PROJECT_DIR and GEMINI_PROJECT_DIR, and runs them there", async () => {
        ws = await createTempWorkspace({
          ".agents/hooks.json": preHook(
            `echo "{\\"decision\\":\\"deny\\",\\"reason\\":\\"$GANTRY_PROJECT_DIR|$CLAUDE_PROJECT_DIR|$GEMINI_PROJECT_DIR|$(pwd)\\"}"`,
          ),
        });
        const { pipeline } = hookHarness(ws);
        const result = await pipeline.run(call);
        expect(result.text).toBe(`Denied by hook gate: ${[ws.root, ws.root, ws.root, ws.root].join("|")}`);
      });

      it("gives hooks the session's id in GEMINI_SESSION_ID, the new one after the session changes (resume, new)", async () => {
        ws = await createTempWorkspace({
          ".agents/hooks.json": preHook(
            `echo "{\\"decision\\":\\"deny\\",\\"reason\\":\\"$GEMINI_SESSION_ID\\"}"`,
          ),
        });
        const identity = { sessionId: "first-session", transcriptPath: "" };
        const hooks = createHookStep({
          config: loadHookConfig(ws.root, ws.home),
          workspaceRoot: ws.root,
          identity,
          log: () => undefined,
        });
        const { tools } = probeTools(ws.root);
        const pipeline = createToolPipeline({
          registry: createToolRegistry(tools),
          maxOutputChars: 20_000,
          hooks,
        });
        expect((await pipeline.run(call)).text).toBe("Denied by hook gate: first-session");
        identity.sessionId = "second-session";
        expect((await pipeline.run(call)).text).toBe("Denied by hook gate: second-session");
      });
    });

    describe("command hooks: a finished hook leaves nothing behind", () => {
      const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length;

      it("leaves no timer running once it has answered (a CLI run exits as soon as its work is done)", async () => {
        const before = timers();
        const outcome = await runCommandHook({
          command: `echo '{"decision":"allow"}'`,
          input: "{}",
          cwd: process.cwd(),
          env: process.env,
          timeoutMs: 5_000,
          maxOutputBytes: 1024,
        });
        expect(outcome).toMatchObject({ ok: true, exit: { exitCode: 0, stdout: '{"decision":"allow"}\n' } });
        // another test's timer may end meanwhile: what counts is that this hook left none of its own
        expect(timers()).toBeLessThanOrEqual(before);
      });
    });

    describe("command hooks: the user's shell start-up files stay out", () => {
      it("runs a hook the same when Gantry was started without SHLVL (an editor, a service): no ~/.bashrc on its stdout", async () => {
        ws = await createTempWorkspace();
        // bash reads ~/.bashrc for `bash -c` when stdin is a socket (Node's pipes are) and SHLVL says it is
        // the first shell: what a process started by an editor, systemd or a container passes
        writeFileSync(path.join(ws.home, ".bashrc"), "echo 'from bashrc'\ntouch \"$HOME/bashrc-ran\"\n");
        const { SHLVL: _level, ...withoutLevel } = process.env;
        const outcome = await runCommandHook({
          command: `echo '{"decision":"allow"}'`,
          input: "{}",
          cwd: ws.root,
          env: { ...withoutLevel, HOME: ws.home },
          timeoutMs: 10_000,
          maxOutputBytes: 1024,
        });
        expect(outcome).toMatchObject({ ok: true, exit: { exitCode: 0, stdout: '{"decision":"allow"}\n' } });
        expect(existsSync(path.join(ws.home, "bashrc-ran"))).toBe(false);
      });

      for (const level of [undefined, "0"])
        it(`keeps ~/.bashrc out of a \`bash -c\` the hook itself runs, in a session started with SHLVL ${level ?? "unset"}`, async () => {
          ws = await createTempWorkspace({
            ".agents/hooks.json": preHook(
              `bash -c 'echo "{\\"decision\\":\\"deny\\",\\"reason\\":\\"inner\\"}"'`,
            ),
          });
          writeFileSync(path.join(ws.home, ".bashrc"), "echo from-bashrc\n");
          const { SHLVL: _level, ...withoutLevel } = process.env;
          const env = { ...withoutLevel, HOME: ws.home, ...(level === undefined ? {} : { SHLVL: level }) };
          const { pipeline } = hookHarness(ws, env);
          expect((await pipeline.run(call)).text).toBe("Denied by hook gate: inner");
        });
    });
  });
