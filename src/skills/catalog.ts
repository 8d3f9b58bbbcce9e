import {
  closeSync,
  constants,
  fstatSync,
  openSync,
  readdirSync,
  readSync,
  realpathSync,
  statSync,
} from "node:fs";
import path from "node:path";
import { shownPath } from "../trust/origin.js";
import { isInside } from "../workspace/paths.js";
import { parseSkillFile, type SkillFrontMatter } from "./skill-file.js";

/**
 * Where skills live, in precedence order within a home or a workspace: Gantry's and Codex's
 * `.agents/skills`, then Claude Code's, Gemini CLI's, Codex's older and Qwen Code's folders.
 */
export const SKILL_PLACES = [
  ".agents/skills",
  ".claude/skills",
  ".gemini/skills",
  ".codex/skills",
  ".qwen/skills",
] as const;

/** A home or workspace rarely holds more; past this a folder's other entries are skipped, and said so. */
const MAX_SKILLS_PER_PLACE = 200;
/** The front matter is at the top: this much of SKILL.md is read for it. */
const HEAD_BYTES = 64 * 1024;

export type SkillOrigin = "home" | "workspace";

export interface Skill extends SkillFrontMatter {
  /** SKILL.md, absolute, as found (through the folder's name, not its real path). */
  file: string;
  /** The skill folder as found. */
  folderAsFound: string;
  /** Real path of the skill folder: IsSkillFile reads only below it. */
  folder: string;
  origin: SkillOrigin;
  /** The folder it came from (`.agents/skills`, …). */
  place: (typeof SKILL_PLACES)[number];
  /** For the user: `~/.claude/skills/pdf`, `.agents/skills/review`. */
  shown: string;
}

export interface SkillProblem {
  /** The file or folder, as shown to the user. */
  where: string;
  message: string;
}

export interface SkillCatalog {
  /** The skills that count, in precedence order. */
  readonly skills: readonly Skill[];
  /** Broken SKILL.md files, skipped folders, duplicate names (which wins and why), warnings. */
  readonly problems: readonly SkillProblem[];
}

export interface DiscoverOptions {
  /** Real path of the workspace. */
  root: string;
  home: string;
}

/**
 * Finds every skill (a folder with a SKILL.md) in the user's home and in the workspace. Home skills win
 * over a workspace's of the same name (a repository cannot replace a skill the user installed); within one
 * side, SKILL_PLACES order decides. A workspace skill folder must stay inside the workspace.
 */
export function discoverSkills(options: DiscoverOptions): SkillCatalog {
  const skills: Skill[] = [];
  const problems: SkillProblem[] = [];
  const seenFolders = new Set<string>();
  const show = (abs: string) => shownPath(abs, options.root, options.home);
  for (const origin of ["home", "workspace"] as const) {
    const base = origin === "home" ? options.home : options.root;
    for (const place of SKILL_PLACES) {
      const dir = path.join(base, place);
      const real = realFolder(dir);
      if (real === undefined || seenFolders.has(real)) continue;
      seenFolders.add(real);
      if (origin === "workspace" && !isInside(options.root, real)) {
        problems.push({
          where: show(dir),
          message: `leads outside the workspace (to ${real}); its skills are skipped`,
        });
        continue;
      }
      for (const found of skillsIn(dir, { origin, place, root: options.root, show }, problems)) {
        const winner = skills.find((skill) => skill.name === found.name);
        if (winner) problems.push({ where: show(found.file), message: shadowedBy(found, winner, show) });
        else skills.push(found);
      }
    }
  }
  return { skills, problems };
}

/**
 * The catalog, discovered on first use: a session that neither builds a system prompt nor reads a skill
 * file (`gantry tool` of most tools) never reads the skill folders. YAML costs ~0.3 ms a skill.
 */
export function lazySkillCatalog(options: DiscoverOptions): SkillCatalog {
  let found: SkillCatalog | undefined;
  const catalog = () => {
    found ??= discoverSkills(options);
    return found;
  };
  return {
    get skills() {
      return catalog().skills;
    },
    get problems() {
      return catalog().problems;
    },
  };
}

interface PlaceContext {
  origin: SkillOrigin;
  place: Skill["place"];
  root: string;
  show: (abs: string) => string;
}

function skillsIn(dir: string, context: PlaceContext, problems: SkillProblem[]): Skill[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch (cause) {
    problems.push({ where: context.show(dir), message: `cannot be read: ${(cause as Error).message}` });
    return [];
  }
  const folders = names.filter((name) => !name.startsWith(".") && isFolder(path.join(dir, name)));
  if (folders.length > MAX_SKILLS_PER_PLACE) {
    problems.push({
      where: context.show(dir),
      message: `holds ${folders.length} folders; only the first ${MAX_SKILLS_PER_PLACE} are read`,
    });
  }
  const found: Skill[] = [];
  for (const name of folders.slice(0, MAX_SKILLS_PER_PLACE)) {
    const skill = readSkill(path.join(dir, name), name, context, problems);
    if (skill) found.push(skill);
  }
  return found;
}

function readSkill(
  folderAsFound: string,
  name: string,
  context: PlaceContext,
  problems: SkillProblem[],
): Skill | undefined {
  const file = path.join(folderAsFound, "SKILL.md");
  const where = context.show(file);
  const folder = realFolder(folderAsFound);
  if (folder === undefined) return undefined;
  if (context.origin === "workspace" && !isInside(context.root, folder)) {
    problems.push({
      where: context.show(folderAsFound),
      message: `links outside the workspace (to ${folder}); skipped`,
    });
    return undefined;
  }
  const head = readHead(path.join(folder, "SKILL.md"), folder);
  if (head.kind === "missing") {
    problems.push({ where: context.show(folderAsFound), message: "has no SKILL.md; skipped" });
    return undefined;
  }
  if (head.kind === "refused") {
    problems.push({ where, message: `${head.message}; skipped` });
    return undefined;
  }
  const parsed = parseSkillFile(head.text, name);
  if (!parsed.ok) {
    problems.push({ where, message: `${parsed.message}; skipped` });
    return undefined;
  }
  for (const warning of parsed.warnings) problems.push({ where, message: warning });
  return {
    ...parsed.skill,
    file,
    folderAsFound,
    folder,
    origin: context.origin,
    place: context.place,
    shown: context.show(folderAsFound),
  };
}

type Head = { kind: "text"; text: string } | { kind: "missing" } | { kind: "refused"; message: string };

/** The start of SKILL.md, read only if it is a regular file that really lies in its skill folder. */
function readHead(file: string, folder: string): Head {
  let real: string;
  try {
    real = realpathSync(file);
  } catch {
    return { kind: "missing" };
  }
  if (path.dirname(real) !== folder)
    return { kind: "refused", message: `is a link that leaves its skill folder (to ${real})` };
  let fd: number;
  try {
    // opened without blocking and judged on what was opened: a file swapped for a pipe is not waited on
    fd = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (cause) {
    return { kind: "refused", message: `cannot be read: ${(cause as Error).message}` };
  }
  try {
    if (!fstatSync(fd).isFile()) return { kind: "refused", message: "is not a regular file" };
    const buffer = Buffer.allocUnsafe(HEAD_BYTES);
    const bytes = readSync(fd, buffer, 0, HEAD_BYTES, 0);
    return { kind: "text", text: buffer.subarray(0, bytes).toString("utf8") };
  } finally {
    closeSync(fd);
  }
}

function shadowedBy(loser: Skill, winner: Skill, show: (abs: string) => string): string {
  const why =
    winner.origin === "home" && loser.origin === "workspace"
      ? "your home's skills win over a workspace's"
      : `${winner.place} comes before ${loser.place}`;
  return `skill "${loser.name}" is also defined by ${show(winner.file)}, which wins (${why}); this one is not used`;
}

function realFolder(dir: string): string | undefined {
  try {
    const real = realpathSync(dir);
    return statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

function isFolder(candidate: string): boolean {
  try {
    return statSync(candidate).isDirectory();
  } catch {
    return false;
  }
}
