import { expect } from "vitest";
import type { ToolResult } from "../../src/tools/contract.js";
import type { PolicySession } from "./session-support.js";

/** The attack tests' workspace: a denied file with a token in it, and a free one. */
export const SECRET = { "secret-dir/token.txt": "TOKEN=abc123\n", "src/app.ts": "export {};\n" };
export const DENY_READ = { permissions: { deny: ["Read(./secret-dir/**)"] } };

/** The call was refused by the Read deny rule, and shows neither the token nor its later change. */
export function expectReadDenied(result: ToolResult): void {
  expect(result.errorCode, result.text).toBe("denied");
  expect(result.text).toMatch(
    /^Denied by rule deny Read\(\.\/secret-dir\/\*\*\) \(settings given to Gantry\)/,
  );
  expect(result.text).not.toMatch(/abc123|xyz789/);
}

/** The line runs, and shows neither the token nor its later change. */
export async function expectRunsWithoutTheToken(s: PolicySession, line: string): Promise<ToolResult> {
  const result = await s.command(line);
  expect(result.error, `${line}: ${result.text}`).toBe(false);
  expect(result.text).not.toMatch(/abc123|xyz789/);
  return result;
}
