import { readdirSync, readFileSync } from "node:fs";
import type { Settings } from "../../../src/config/settings.js";
import { createGantrySession, type GantrySession } from "../../../src/gantry.js";
import type { ToolResult } from "../../../src/tools/contract.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

export interface ExecFixture {
  ws: TempWorkspace;
  session: GantrySession;
  run(name: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult>;
  close(): Promise<void>;
}

/** A real temp workspace and a real session; `killGraceMs` short so tests stay fast. */
export async function openExecFixture(
  files: Record<string, string> = {},
  settings: Settings = {},
  options: { sandbox?: boolean; trust?: boolean } = {},
): Promise<ExecFixture> {
  const ws = await createTempWorkspace(files);
  const session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    settings: { ...settings, exec: { killGraceMs: 300, ...settings.exec } },
    ...options,
  });
  return {
    ws,
    session,
    run: (name, args, signal) => session.pipeline.run({ name, args }, { signal }),
    async close() {
      await session.dispose();
      await ws.cleanup();
    },
  };
}

/** Host pids of live (non-zombie) processes whose command line contains `marker`. */
export function pidsWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (cmdline.includes(marker) && state !== "Z") found.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

export async function waitFor(check: () => boolean, timeoutMs = 5_000, stepMs = 50): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, stepMs));
  }
  return check();
}

/** A marker unique to one test, so pid checks never see another test's processes. */
export function uniqueMarker(): string {
  return `${1000 + Math.floor(Math.random() * 8000)}.${Date.now() % 100000}`;
}
