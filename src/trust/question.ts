import { createInterface } from "node:readline";
import type { SettingValue } from "../config/provenance.js";
import { trustCoveredFiles } from "./covered.js";
import { formatReview, reviewWorkspace } from "./review.js";
import { sessionTrust } from "./session-trust.js";
import { openTrustStore } from "./store.js";
import { pinnedRecord } from "./workspace-trust.js";

export type TrustAnswer = "trust" | "not-now" | "never";

export interface TrustQuestionIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/**
 * The first interactive session in a folder whose configuration would enable something (hooks, allow
 * rules, loosening settings), or whose trusted configuration changed since, asks once (SPEC §5a):
 * trust (recorded, pinned to what is shown), not now (this session runs narrowed), never (recorded:
 * never asked again, always narrowed). Nothing to enable: nothing asked.
 */
export async function askTrustIfNeeded(
  root: string,
  home: string,
  io: TrustQuestionIo,
): Promise<TrustAnswer | undefined> {
  const trust = sessionTrust(root, home, "recorded");
  if (trust.decision === "never") return undefined;
  // pinned before anything is shown: a file that changes while the question waits is not what was approved
  const approved = pinnedRecord(root, trustCoveredFiles(root, home));
  const review = reviewWorkspace(trust, home);
  if (review.length === 0) return undefined;
  io.output.write(`${questionText(root, trust.decision === "trusted", review)}\n`);
  const answer = await readAnswer(io);
  const store = openTrustStore(home);
  if (answer === "trust") store.set(root, { ...approved, decidedAt: new Date().toISOString() });
  if (answer === "never") store.set(root, { decision: "never", decidedAt: new Date().toISOString() });
  io.output.write(
    answer === "trust"
      ? `Trusted ${root} (recorded in ${store.file}; a change to these files asks again).\n\n`
      : answer === "never"
        ? `This folder will not be trusted; its configuration stays narrowed (\`gantry trust\` to change that).\n\n`
        : "Not trusted for now: this session runs without what is listed above.\n\n",
  );
  return answer;
}

export function questionText(root: string, changed: boolean, review: readonly SettingValue[]): string {
  const head = changed
    ? `Since you trusted ${root}, its configuration changed. It would now enable:`
    : `${root} is not trusted. Its configuration would enable:`;
  return [
    head,
    ...formatReview(review),
    "",
    "Hooks run their commands on your machine; allow rules and settings loosen what asks you first.",
    "Trust this folder?  [t] trust   [n] not now   [v] never",
  ].join("\n");
}

const ANSWERS: Record<string, TrustAnswer> = {
  t: "trust",
  trust: "trust",
  y: "trust",
  yes: "trust",
  n: "not-now",
  "not now": "not-now",
  no: "not-now",
  v: "never",
  never: "never",
};

/** One line per try; anything else asks again; the end of input (Ctrl-D) is "not now". */
function readAnswer(io: TrustQuestionIo): Promise<TrustAnswer> {
  const lines = createInterface({ input: io.input, terminal: false });
  return new Promise((resolve) => {
    let done = false;
    const finish = (answer: TrustAnswer) => {
      if (done) return;
      done = true;
      lines.close();
      resolve(answer);
    };
    io.output.write("> ");
    lines.on("line", (line) => {
      const answer = ANSWERS[line.trim().toLowerCase()];
      if (answer) finish(answer);
      else io.output.write("Type t (trust), n (not now) or v (never): ");
    });
    lines.on("close", () => finish("not-now"));
  });
}
