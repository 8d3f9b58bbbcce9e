/**
 * Names this run for the bundle's code caches once the command has done its work ("tool view_file",
 * "config"): the first successful run of each command saves caches holding its functions
 * (src/cli/code-cache.cts, whose loader puts the function under this symbol). Nothing without the
 * bundle (the unbundled dist/cli).
 */
export function nameRunForCodeCache(name: string): void {
  const note = (globalThis as Record<symbol, unknown>)[Symbol.for("gantry.code-cache.run")];
  if (typeof note === "function") note(name);
}
