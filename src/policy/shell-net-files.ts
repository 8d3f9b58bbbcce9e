import { optionValues, parseArgs } from "./shell-args.js";
import { afterEquals, baseName, type FileTarget, read, write } from "./shell-files.js";
import { literalWord, type ShellWord } from "./shell-words.js";

/** curl -o FILE, -O (named after the URL), -T FILE and `@FILE` data are files it writes or sends. */
export function curlFiles(words: readonly ShellWord[]): FileTarget[] {
  const targets: FileTarget[] = [];
  const urls = words.filter((word) => (word.value ?? "").includes("://"));
  // file:// URLs are reads of local files, a `$PWD` in one a read known only when it runs
  for (const url of words.filter((word) => /^file:\/\//i.test(word.value ?? word.written)))
    targets.push(
      read(url.value === undefined ? { written: url.written } : literalWord(localPath(url.value))),
    );
  for (const [index, word] of words.entries()) {
    const next = words[index + 1];
    const value = word.value ?? "";
    if ((value === "-o" || value === "--output") && next && next.value !== "-") targets.push(write(next));
    else if (value.startsWith("--output=")) targets.push(write(afterEquals(word)));
    else if (value === "-O" || value === "--remote-name" || value === "--remote-name-all") {
      targets.push(...urls.map((url) => write(urlFileName(url))));
    } else if ((value === "-T" || value === "--upload-file") && next) targets.push(read(next));
    else if (/^(-d|--data|--data-binary|--data-urlencode|--json|-F|--form)$/.test(value) && next) {
      const at = (next.value ?? "").indexOf("@");
      if (at >= 0 && next.value) targets.push(read(literalWord(next.value.slice(at + 1))));
      else if (next.value === undefined) targets.push(read({ written: next.written }));
    }
  }
  return targets;
}

function localPath(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname);
  } catch {
    return url.slice("file://".length);
  }
}

/** wget writes -O's file, or one named after the URL; -o/-a are its log. */
export function wgetFiles(words: readonly ShellWord[]): FileTarget[] {
  const args = parseArgs(words, 1, {
    valued: ["-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-P"].concat([
      "--directory-prefix",
      "-t",
      "--tries",
      "-T",
      "--timeout",
      "-U",
      "--user-agent",
      "-e",
    ]),
    permute: true,
  });
  const logs = optionValues(args, "-o", "--output-file", "-a", "--append-output");
  const documents = optionValues(args, "-O", "--output-document");
  const targets = [...logs, ...documents].flatMap((word) =>
    word && word.value !== "-" ? [write(word)] : [],
  );
  if (documents.length === 0) targets.push(...args.operands.map((url) => write(urlFileName(url))));
  return targets;
}

function urlFileName(url: ShellWord): ShellWord {
  if (url.value === undefined) return { written: url.written };
  try {
    return literalWord(baseName(new URL(url.value).pathname) || "index.html");
  } catch {
    return { written: url.written };
  }
}
