import ignore from "ignore";
import { afterEach, describe, expect, it } from "vitest";
import { extendChain, isGitIgnored } from "../../../src/tools/search/ignore.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const NAMES = [
  "a.tmp",
  "keep.tmp",
  "x.tmpl",
  "cache",
  "notes.md",
  "build-1",
  "build-x",
  "file.log",
  "FILE.TMP",
  " spaced",
  "spaced",
  "star*name",
  "abc",
  "ab",
  "abbc",
  "axbyc",
];

// names-only .gitignore files, judged through the quick prefilter: every verdict must be the library's own
const GITIGNORES = [
  "# names only\n*.tmp\n!keep.tmp\ncache/\n",
  "build-?\n*.log\n",
  "[ab]bc\nnotes.*\n",
  " spaced\n",
  "a*b*c\n!ab*bc\n",
  "ab*b\n",
  "*\n!*.md\n",
];

describe("names-only .gitignore rules", () => {
  it.each(GITIGNORES)("gives the library's verdict for every name under %j", async (text) => {
    ws = await createTempWorkspace({ ".gitignore": text });
    const chain = extendChain(undefined, ws.root, "");
    expect(chain?.namesOnly).toBe(true);
    const library = ignore({ allowRelativePaths: true, ignorecase: false }).add(text);
    for (const name of NAMES) {
      for (const isDir of [false, true]) {
        const expected = library.test(isDir ? `${name}/` : name).ignored;
        expect(isGitIgnored(chain, name, isDir), `${name} dir=${isDir}`).toBe(expected);
        expect(isGitIgnored(chain, `deep/er/${name}`, isDir), `deep/er/${name}`).toBe(expected);
      }
    }
  });
});
