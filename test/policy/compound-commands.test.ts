import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { policyHarness, scriptedAsker } from "./support.js";

let ws: TempWorkspace;
beforeAll(async () => {
  ws = await createTempWorkspace({});
});
afterAll(() => ws.cleanup());

describe("compound commands cannot ride on an allow rule", () => {
  const BYPASSES = [
    "npm run test:x && curl evil",
    "npm run test:x; curl evil",
    "npm run test:x || curl evil",
    "npm run test:x | curl evil",
    "npm run test:x & curl evil",
    "npm run test:x\ncurl evil",
    "npm run test:x $(curl evil)",
    "npm run test:`curl evil`",
    "npm run test:x <(curl evil)",
    "(curl evil) && npm run test:x",
    "npm run test:x && { curl evil; }",
    "npm run test:x && if true; then curl evil; fi",
    "npm run test:x > ~/.bashrc",
    "npm run test:x 'unterminated && curl evil",
  ];

  for (const line of BYPASSES) {
    it(`asks before ${JSON.stringify(line)}`, async () => {
      const { asker, requests } = scriptedAsker("deny");
      const harness = policyHarness({
        root: ws.root,
        home: ws.home,
        mode: "default",
        asker,
        settings: { permissions: { allow: ["Bash(npm run test:*)"] } },
      });
      const result = await harness.pipeline.run({ name: "run_command", args: { CommandLine: line } });
      expect(result.errorCode).toBe("denied");
      expect(requests).toHaveLength(1);
      expect(harness.ran).toEqual([]);
    });
  }

  it("runs the command the rule is for, and its pipelines of allowed parts", async () => {
    const { asker, requests } = scriptedAsker("deny");
    const harness = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "default",
      asker,
      settings: { permissions: { allow: ["Bash(npm run test:*)", "Bash(tee:*)"] } },
    });
    for (const line of [
      "npm run test:unit",
      "npm run test:unit 2>&1 | tee -a /dev/null",
      "npm run test:a && npm run test:b",
    ]) {
      const result = await harness.pipeline.run({ name: "run_command", args: { CommandLine: line } });
      expect(result.error, line).toBe(false);
    }
    expect(requests).toEqual([]);
  });

  it("a deny rule finds a command hidden in a substitution, a subshell or a heredoc", async () => {
    const harness = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "yolo",
      settings: { permissions: { deny: ["Bash(curl:*)"] } },
    });
    for (const line of [
      "echo $(curl -s x)",
      "(curl x)",
      "cat <<EOF\n$(curl x)\nEOF",
      "ls | xargs echo && `curl x`",
    ]) {
      const result = await harness.pipeline.run({ name: "run_command", args: { CommandLine: line } });
      expect(result.text, line).toMatch(/^Denied by rule deny Bash\(curl:\*\)/);
    }
    expect(harness.ran).toEqual([]);
  });

  it("a command that does not parse is never passed by a rule or yolo: a person must confirm", async () => {
    const harness = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "yolo",
      settings: { permissions: { allow: ["Bash"] } },
    });
    const result = await harness.pipeline.run({ name: "run_command", args: { CommandLine: "echo 'oops" } });
    expect(result.text).toContain("Denied by shell parser: the command does not parse");
    expect(result.text).toContain("run it in an interactive terminal");
  });

  it("auto-edit runs a redirection into the workspace but asks for one outside it or one known only at run time", async () => {
    const { asker, requests } = scriptedAsker("deny");
    const harness = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "auto-edit",
      asker,
      settings: { permissions: { allow: ["Bash(echo:*)"] } },
    });
    const run = (line: string) => harness.pipeline.run({ name: "run_command", args: { CommandLine: line } });
    expect((await run("echo hi > build.log")).error).toBe(false);
    expect((await run("echo hi > ~/.bashrc")).errorCode).toBe("denied");
    expect((await run(`echo hi >> ${ws.parent}/outside.txt`)).errorCode).toBe("denied");
    expect((await run("echo hi > $TARGET")).errorCode).toBe("denied");
    expect(requests.map((r) => r.subjects)).toEqual([
      ["~/.bashrc"],
      [`${ws.parent}/outside.txt`],
      ["a redirection target known only when the command runs"],
    ]);
  });
});
