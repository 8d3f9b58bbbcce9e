import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import path from "node:path";
import { readJsonFile } from "../config/settings.js";

/**
 * "Yes, always" answers live in the user's home, per folder (`~/.agents/folder-permissions.json`,
 * keyed by the workspace's real path): they are the user's decisions, so a repository can neither
 * forge them nor lose them, and nothing in the workspace needs git-ignoring.
 */
export const ALWAYS_ANSWERS_NAME = "folder-permissions.json";

export function alwaysAnswersFile(home: string): string {
  return path.join(home, ".agents", ALWAYS_ANSWERS_NAME);
}

/** The allow rules saved for `root`; an unreadable file is an error naming it. */
export function savedAllowRules(home: string, root: string): string[] {
  const raw = readJsonFile(alwaysAnswersFile(home)) as StoreShape | undefined;
  const allow = raw?.folders?.[root]?.permissions?.allow;
  return Array.isArray(allow) ? allow.filter((rule): rule is string => typeof rule === "string") : [];
}

interface StoreShape {
  version?: number;
  folders?: Record<string, { permissions?: { allow?: unknown[] } }>;
}

const pendingWrites = new Map<string, Promise<unknown>>();

/**
 * Adds allow rules for `root`, keeping everything else; written atomically, one write per file at a
 * time (two "always" answers in parallel must not lose one another).
 */
export function persistAllowRules(home: string, root: string, texts: readonly string[]): Promise<void> {
  const file = alwaysAnswersFile(home);
  const previous = pendingWrites.get(file) ?? Promise.resolve();
  const write = () => appendAllowRules(file, root, texts);
  const next = previous.then(write, write);
  const settled = next.catch(() => undefined);
  pendingWrites.set(file, settled);
  void settled.then(() => {
    if (pendingWrites.get(file) === settled) pendingWrites.delete(file);
  });
  return next;
}

async function appendAllowRules(file: string, root: string, texts: readonly string[]): Promise<void> {
  let store: StoreShape = { version: 1, folders: {} };
  try {
    store = JSON.parse(await readFile(file, "utf8")) as StoreShape;
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new Error(`cannot save the answer: ${file} is unreadable (${(cause as Error).message})`);
    }
  }
  const folders = { ...(store.folders ?? {}) };
  const entry = folders[root] ?? {};
  const allow = Array.isArray(entry.permissions?.allow) ? [...entry.permissions.allow] : [];
  for (const text of texts) if (!allow.includes(text)) allow.push(text);
  folders[root] = { ...entry, permissions: { ...entry.permissions, allow } };
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ version: 1, folders }, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, file);
}
