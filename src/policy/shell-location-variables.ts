/**
 * Variables that change where a command leads: CDPATH (where `cd name` goes) and those that point git at
 * another repository, work tree, index or object store than the folder's own. A persistent terminal
 * reports which of them its shell has set after each command (src/tools/exec/terminals.ts), so a line is
 * judged with what an earlier call exported.
 */
export const GIT_LOCATION_VARIABLES: ReadonlySet<string> = new Set([
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_INDEX_FILE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
]);

export const LOCATION_VARIABLES: readonly string[] = ["CDPATH", ...GIT_LOCATION_VARIABLES];
