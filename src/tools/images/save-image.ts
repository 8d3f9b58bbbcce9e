import path from "node:path";
import { writeFileAtomic } from "../../workspace/atomic-write.js";
import { errorResult } from "../contract.js";
import { createParentFolders, type EditDeps, resolveWriteTarget, type Step } from "../files/edit-flow.js";

/** `login`, `login-2`, … `login-99`: past that the folder is full of that name. */
const MAX_SUFFIX = 99;

export interface SavedImage {
  /** Workspace-relative. */
  path: string;
  /** The name asked for was taken; the image got the next free one. */
  renamedFrom?: string;
}

/**
 * Saves a new file in the artifacts folder, atomically and never over an existing file: a name that is
 * taken (also by a file created meanwhile) moves on to `name-2`, `name-3`, … Every candidate passes the
 * write guard (containment, secrets, protected files) like any other write.
 */
export async function saveNewFile(
  deps: EditDeps,
  folder: string,
  baseName: string,
  extension: string,
  bytes: Uint8Array,
): Promise<Step<SavedImage>> {
  const wanted = `${folder}/${baseName}.${extension}`;
  for (let attempt = 1; attempt <= MAX_SUFFIX; attempt++) {
    const name = attempt === 1 ? `${baseName}.${extension}` : `${baseName}-${attempt}.${extension}`;
    const target = await resolveWriteTarget(deps, `${folder}/${name}`);
    if (!target.ok) return target;
    if (target.value.exists) continue;
    const folders = await createParentFolders(deps, target.value);
    if (!folders.ok) return folders;
    try {
      await writeFileAtomic(target.value.abs, bytes, { root: deps.workspace.root, overwrite: false });
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === "EEXIST") continue;
      return {
        ok: false,
        result: errorResult(
          "execution_failed",
          `Saving "${target.value.rel}" failed (${(cause as Error).message}); nothing was written.`,
        ),
      };
    }
    const renamed = attempt > 1 ? { renamedFrom: path.posix.normalize(wanted) } : {};
    return { ok: true, value: { path: target.value.rel, ...renamed } };
  }
  return {
    ok: false,
    result: errorResult(
      "conflict",
      `"${wanted}" and ${MAX_SUFFIX - 1} numbered variants of it already exist; choose another ImageName.`,
    ),
  };
}
