import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";

/** Writes `content` at `base/rel`, making the folders; returns the file's path. */
export async function put(base: string, rel: string, content: string): Promise<string> {
  const file = path.join(base, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}
