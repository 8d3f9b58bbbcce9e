import { createGantrySession, type GantrySession } from "../../../src/gantry.js";
import type { ToolResult } from "../../../src/tools/contract.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

export type Engine = "ripgrep" | "node";

export interface SearchFixture {
  ws: TempWorkspace;
  session: GantrySession;
  run(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

/** A real temp workspace and a session whose grep_search uses the given engine. */
export async function searchFixture(
  files: Record<string, string | Uint8Array>,
  options: {
    engine?: Engine;
    limits?: Record<string, number>;
    secrets?: { patterns?: string[]; allow?: string[] };
  } = {},
): Promise<SearchFixture> {
  const ws = await createTempWorkspace(files);
  const session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    settings: {
      search: { engine: options.engine ?? "ripgrep" },
      limits: options.limits,
      secrets: options.secrets,
    },
  });
  return {
    ws,
    session,
    run: (name, args) => session.pipeline.run({ name, args }),
    async close() {
      await session.dispose();
      await ws.cleanup();
    },
  };
}

/** The result lines, without the notes in brackets. */
export function resultLines(result: ToolResult): string[] {
  return result.text.split("\n").filter((line) => line !== "" && !line.startsWith("["));
}

export const BINARY = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0x68, 0x65, 0x6c, 0x6c, 0x6f]);
