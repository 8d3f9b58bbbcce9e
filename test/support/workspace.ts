import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

export interface TempWorkspace {
  /** Real path of a fresh folder that acts as the workspace. */
  root: string;
  /** Real path of the folder holding the workspace (for siblings and "outside" targets). */
  parent: string;
  /** A fresh home folder for user-level configuration, so tests never read the real ~/.agents. */
  home: string;
  write(relPath: string, content: string | Uint8Array): Promise<string>;
  cleanup(): Promise<void>;
}

/** A real folder in the temp directory: `<parent>/ws` plus `<parent>/home`; files are created for real. */
export async function createTempWorkspace(
  files: Record<string, string | Uint8Array> = {},
): Promise<TempWorkspace> {
  const parent = await realpath(await mkdtemp(path.join(tmpdir(), "gantry-test-")));
  const root = path.join(parent, "ws");
  const home = path.join(parent, "home");
  await mkdir(root);
  await mkdir(home);
  const write = async (relPath: string, content: string | Uint8Array) => {
    const target = path.join(root, relPath);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
    return target;
  };
  for (const [relPath, content] of Object.entries(files)) await write(relPath, content);
  return { root, parent, home, write, cleanup: () => rm(parent, { recursive: true, force: true }) };
}
