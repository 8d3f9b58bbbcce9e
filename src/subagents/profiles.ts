import { realpath } from "node:fs/promises";
import path from "node:path";
import { openVerifiedFile, resolveInsideWorkspace } from "../workspace/paths.js";
import { validateForkTools } from "./fork.js";
import { parseFrontMatter } from "./front-matter.js";

/** A named fork restriction (seed 003): the same gate as fork_tools, resolved once before the fork starts. */
export interface ForkProfile {
  name: string;
  /** Validated fork_tools patterns. */
  tools: string[];
  /** Appended to the fork's task instruction only. */
  promptHint?: string;
  file: string;
}

export const FORK_PROFILE_FOLDERS = [".agents/fork-profiles", ".qwen/fork-profiles"];
export const MAX_PROFILE_BYTES = 64 * 1024;
export const MAX_PROMPT_HINT_CHARS = 200;
const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export type ProfileResult = { ok: true; profile: ForkProfile } | { ok: false; message: string };

/**
 * Loads `<folder>/<name>.md` from the first profile folder that has it. The file must be a plain,
 * front-matter-only file of at most 64 KiB that resolves inside that folder (no `../`, no symlink out).
 */
export async function loadForkProfile(
  workspaceRoot: string,
  name: string,
  canonicalName: (tool: string) => string | undefined,
): Promise<ProfileResult> {
  if (!PROFILE_NAME.test(name) || name.includes("..")) {
    return {
      ok: false,
      message: `fork_profile "${name}" is not a plain profile name (letters, digits, - _ .)`,
    };
  }
  for (const folder of FORK_PROFILE_FOLDERS) {
    const realFolder = await realFolderInside(workspaceRoot, folder);
    if (realFolder === "outside")
      return { ok: false, message: `${folder}/ resolves outside the workspace; refused` };
    if (realFolder === undefined) continue;
    const resolved = await resolveInsideWorkspace(realFolder, `${name}.md`);
    if (!resolved.ok) {
      return { ok: false, message: `fork_profile "${name}" resolves outside ${folder}/; refused` };
    }
    if (!resolved.path.exists) continue;
    const text = await readProfileFile(realFolder, resolved.path);
    if (!text.ok) return { ok: false, message: `fork_profile "${name}": ${text.message}` };
    return parseForkProfile(text.text, name, path.join(folder, `${name}.md`), canonicalName);
  }
  return {
    ok: false,
    message: `no fork profile "${name}" in ${FORK_PROFILE_FOLDERS.map((f) => `${f}/`).join(" or ")}`,
  };
}

/** The profile folder's real path, when it exists and itself lies inside the workspace. */
async function realFolderInside(
  workspaceRoot: string,
  folder: string,
): Promise<string | "outside" | undefined> {
  const resolved = await resolveInsideWorkspace(workspaceRoot, folder);
  if (!resolved.ok) return resolved.error.code === "outside_workspace" ? "outside" : undefined;
  if (!resolved.path.exists) return undefined;
  return realpath(resolved.path.abs);
}

async function readProfileFile(
  realFolder: string,
  resolved: { abs: string; rel: string; exists: boolean },
): Promise<{ ok: true; text: string } | { ok: false; message: string }> {
  const opened = await openVerifiedFile(realFolder, resolved);
  if (!opened.ok) return { ok: false, message: opened.error.message };
  try {
    if (opened.stats.size > MAX_PROFILE_BYTES) {
      return {
        ok: false,
        message: `the file is ${opened.stats.size} bytes; at most ${MAX_PROFILE_BYTES} allowed`,
      };
    }
    const buffer = Buffer.alloc(MAX_PROFILE_BYTES + 1);
    const { bytesRead } = await opened.handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_PROFILE_BYTES)
      return { ok: false, message: `the file is over ${MAX_PROFILE_BYTES} bytes` };
    return { ok: true, text: buffer.subarray(0, bytesRead).toString("utf8") };
  } finally {
    await opened.handle.close();
  }
}

export function parseForkProfile(
  text: string,
  name: string,
  file: string,
  canonicalName: (tool: string) => string | undefined,
): ProfileResult {
  const fail = (message: string): ProfileResult => ({
    ok: false,
    message: `fork profile ${file}: ${message}`,
  });
  const parsed = parseFrontMatter(text);
  if (!parsed.ok) {
    return fail(
      parsed.problem === "missing" ? "it must be front matter only, between two `---` lines" : parsed.message,
    );
  }
  if (parsed.body.trim() !== "")
    return fail("it must be front matter only; found text after the closing `---`");
  const front = parsed.fields;
  const { tools, promptHint } = front;
  if (!Array.isArray(tools) || tools.some((t) => typeof t !== "string")) {
    return fail("`tools` is required: a list of tool names or MCP patterns (may be empty)");
  }
  const validated = validateForkTools(tools as string[], canonicalName);
  if (!validated.ok) return fail(validated.message);
  if (promptHint !== undefined) {
    if (typeof promptHint !== "string") return fail("`promptHint` must be a string");
    if (promptHint.length > MAX_PROMPT_HINT_CHARS) {
      return fail(
        `\`promptHint\` is ${promptHint.length} characters; at most ${MAX_PROMPT_HINT_CHARS} allowed`,
      );
    }
  }
  return {
    ok: true,
    profile: {
      name,
      tools: validated.patterns,
      file,
      ...(promptHint ? { promptHint: promptHint as string } : {}),
    },
  };
}
