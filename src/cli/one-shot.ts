import { z } from "zod";

/**
 * For a command that runs one call or one prompt (`gantry tool`, `gantry -p`): zod compiles a fast path
 * for each object schema at its first parse (`new Function`), a compile no code cache keeps and a few
 * parses never earn back. Jitless, each parse walks the schema instead. The CLI's own process only: a
 * library session leaves the embedder's zod as it is.
 */
export function parseWithoutCompiling(): void {
  z.config({ jitless: true });
}
