import { createRequire } from "node:module";

/**
 * mvdan/sh's bash parser (the `mvdan-sh` build: it keeps the full syntax tree, where sh-syntax's WASM
 * build hands back statements without their commands). Nodes are GopherJS objects: the same node
 * comes back as a new wrapper each time, so code compares nodes by their source range, never by `===`.
 */
export interface ShPos {
  Offset(): number;
}
export interface ShNode {
  Pos(): ShPos;
  End(): ShPos;
  [key: string]: unknown;
}
interface ShSyntax {
  NewParser(): { Parse(src: string, name: string): ShNode };
  Walk(node: ShNode, visit: (node: ShNode | null) => boolean): void;
  NodeType(node: ShNode): string;
}

let loaded: ShSyntax | undefined;

/** Loads the parser on first use (about 100 ms once); `gantry --version` and read-only runs never pay it. */
function shellSyntax(): ShSyntax {
  if (loaded) return loaded;
  const hadRequire = "require" in globalThis;
  const module = createRequire(import.meta.url)("mvdan-sh") as { syntax: ShSyntax };
  // the GopherJS runtime leaves a global `require` behind; parsing does not need it
  if (!hadRequire) delete (globalThis as { require?: unknown }).require;
  loaded = module.syntax;
  return loaded;
}

/** A parsed script with the helpers to read it: node types, source text of a node, a walk. */
export interface ParsedScript {
  file: ShNode;
  typeOf(node: ShNode): string;
  /** The source text a node spans (positions are byte offsets into the UTF-8 text). */
  textOf(node: ShNode): string;
  /** The source text between two byte offsets. */
  between(start: number, end: number): string;
  walk(node: ShNode, visit: (node: ShNode) => boolean): void;
}

export function parseShellScript(
  script: string,
): { ok: true; parsed: ParsedScript } | { ok: false; error: string } {
  const syntax = shellSyntax();
  let file: ShNode;
  try {
    file = syntax.NewParser().Parse(script, "");
  } catch (cause) {
    return { ok: false, error: describeParseError(cause) };
  }
  const source = Buffer.from(script, "utf8");
  const between = (start: number, end: number) => source.subarray(start, end).toString("utf8");
  return {
    ok: true,
    parsed: {
      file,
      typeOf: (node) => syntax.NodeType(node),
      textOf: (node) => between(node.Pos().Offset(), node.End().Offset()),
      between,
      walk: (node, visit) => syntax.Walk(node, (child) => (child ? visit(child) : true)),
    },
  };
}

function describeParseError(cause: unknown): string {
  if (cause && typeof cause === "object" && "Error" in cause && typeof cause.Error === "function") {
    return String(cause.Error());
  }
  return String(cause);
}
