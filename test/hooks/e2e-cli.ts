// the CLI end-to-end pieces the hook tests share with the others' (test/support/e2e.ts)
export { E2E, gantryOn, sees, serverAndWorkspace } from "../support/e2e.js";

/** The scripted model's run_command call that creates `file` in the workspace. */
export const touch = (file: string) => ({
  name: "run_command",
  args: { CommandLine: `touch ${file}`, Cwd: ".", WaitMsBeforeAsync: 10_000 },
});
