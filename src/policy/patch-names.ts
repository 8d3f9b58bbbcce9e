/**
 * The file names a patch names, as written after its `---`, `+++`, `***`, `Index:` and git's
 * `diff --git`, `rename`/`copy` lines: unified, context and git patches alike, a mailbox of them too.
 * `/dev/null` (a file created or deleted) names none.
 */
export function namesInPatch(text: string): string[] {
  const names = new Set<string>();
  for (const line of text.split("\n")) {
    for (const name of namesOnLine(line.replace(/\r$/, ""))) {
      if (name !== "" && name !== "/dev/null") names.add(name);
    }
  }
  return [...names];
}

const HEADER = /^(?:--- |\+\+\+ |\*\*\* (?!\d)|Index: |(?:rename|copy) (?:from|to) )(.*)$/;

function namesOnLine(line: string): string[] {
  if (line.startsWith("diff --git ")) return gitDiffNames(line.slice("diff --git ".length));
  const header = HEADER.exec(line);
  if (!header) return [];
  const rest = header[1] as string;
  if (rest.startsWith('"')) return [unquote(rest).name];
  // a timestamp follows a tab (`--- a/x\t2024-01-01 …`)
  return [rest.split("\t")[0]?.trimEnd() ?? ""];
}

/** `a/x b/y`, either quoted; unquoted names with spaces split where ` b/` begins. */
function gitDiffNames(rest: string): string[] {
  if (rest.startsWith('"')) {
    const first = unquote(rest);
    const second = rest.slice(first.length).trimStart();
    return [first.name, second.startsWith('"') ? unquote(second).name : second];
  }
  const split = rest.indexOf(" b/");
  if (split >= 0) return [rest.slice(0, split), rest.slice(split + 1)];
  const space = rest.indexOf(" ");
  return space < 0 ? [rest] : [rest.slice(0, space), rest.slice(space + 1)];
}

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  '"': '"',
  "\\": "\\",
  a: "\x07",
  b: "\b",
  f: "\f",
  r: "\r",
  v: "\v",
};

/** A C-style quoted name as git writes one (`"a/tab\there"`, octal bytes): the name, and how long it was written. */
function unquote(quoted: string): { name: string; length: number } {
  const bytes: number[] = [];
  let at = 1;
  while (at < quoted.length && quoted[at] !== '"') {
    const char = quoted[at] as string;
    if (char !== "\\") {
      bytes.push(...Buffer.from(char));
      at++;
      continue;
    }
    const octal = /^[0-7]{3}/.exec(quoted.slice(at + 1));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      at += 4;
      continue;
    }
    const next = quoted[at + 1] ?? "";
    bytes.push(...Buffer.from(ESCAPES[next] ?? next));
    at += 2;
  }
  return { name: Buffer.from(bytes).toString("utf8"), length: at + 1 };
}

/**
 * The paths a patch's name may land on: `strip` leading parts removed (git's `-p`, 1 unless given);
 * GNU patch without `-p` may take the base name, or strip any number: every tail counts.
 */
export function strippedNames(name: string, strip: number | undefined): string[] {
  const parts = name.split("/").filter((part) => part !== "");
  const absolute = name.startsWith("/");
  if (strip === undefined) {
    const tails = parts.map((_, index) => parts.slice(index).join("/"));
    return absolute ? [name, ...tails] : tails;
  }
  if (strip === 0) return [name];
  // a name with fewer parts than `strip` is left as it is by git, skipped by patch: judged as written
  return parts.length > strip ? [parts.slice(strip).join("/")] : [name];
}
