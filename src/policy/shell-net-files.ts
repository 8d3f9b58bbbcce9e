import { optionValues, parseArgs } from "./shell-args.js";
import { afterEquals, baseName, type FileTarget, read, write } from "./shell-files.js";
import { literalWord, type ShellWord } from "./shell-words.js";

/** curl -o FILE, -O (named after the URL), -T FILE, `@FILE` data and its config and key files: files it writes, reads or sends. */
export function curlFiles(words: readonly ShellWord[]): FileTarget[] {
  const targets: FileTarget[] = [];
  const urls = words.filter((word) => (word.value ?? "").includes("://"));
  // file:// URLs are reads of local files, a `$PWD` in one a read known only when it runs
  for (const url of words.filter((word) => /^file:\/\//i.test(word.value ?? word.written)))
    targets.push(
      read(url.value === undefined ? { written: url.written } : literalWord(localPath(url.value))),
    );
  for (const { option, value } of curlOptions(words)) {
    if (option === "-o" || option === "--output") {
      if (value && value.value !== "-") targets.push(write(value));
    } else if (option === "-O" || option === "--remote-name" || option === "--remote-name-all") {
      targets.push(...urls.map((url) => write(urlFileName(url))));
    } else if ((option === "-T" || option === "--upload-file") && value) targets.push(read(value));
    else if (CURL_CONTENT.has(option) && value) {
      const at = (value.value ?? "").search(/[@<]/);
      if (at >= 0 && value.value) targets.push(read(literalWord(value.value.slice(at + 1))));
      else if (value.value === undefined) targets.push(read({ written: value.written }));
    } else if (CURL_FILES.has(option) && value) targets.push(read(value));
    // a cookie value without `=` is the file of cookies it sends
    else if (
      (option === "-b" || option === "--cookie") &&
      value?.value !== undefined &&
      !value.value.includes("=")
    )
      targets.push(read(value));
  }
  return targets;
}

/** curl options whose value sends a file's content with `@FILE` (and `-F name=<FILE`). */
const CURL_CONTENT = new Set(
  "-d --data --data-binary --data-urlencode --data-ascii --json -F --form -H --header --url-query --variable".split(
    " ",
  ),
);
/** curl options whose value is a file it reads: its config (whose errors print its lines), certificates, netrc. */
const CURL_FILES = new Set([
  "-K",
  "--config",
  "--netrc-file",
  "-E",
  "--cert",
  "--key",
  "--cacert",
  "--proxy-cert",
]);
/** curl's short options that take a value: the rest of a cluster (`-so F`, `-KF`) or the next word. */
const CURL_SHORT_VALUED = new Set("AbcCdDeEFHKmoPQrtTuUwxXyYz");

/** Each option curl is given, with its value: `-o F`, `-oF`, `-so F` (booleans cluster before it), `--output=F`. */
function curlOptions(words: readonly ShellWord[]): { option: string; value: ShellWord | undefined }[] {
  const found: { option: string; value: ShellWord | undefined }[] = [];
  for (let index = 1; index < words.length; index++) {
    const word = words[index] as ShellWord;
    const text = word.value;
    if (text === undefined || !text.startsWith("-") || text === "-" || text === "--") continue;
    if (text.startsWith("--")) {
      const equals = text.indexOf("=");
      found.push(
        equals > 0
          ? { option: text.slice(0, equals), value: afterEquals(word) }
          : { option: text, value: words[index + 1] },
      );
      continue;
    }
    for (let at = 1; at < text.length; at++) {
      const letter = text[at] as string;
      if (!CURL_SHORT_VALUED.has(letter)) {
        found.push({ option: `-${letter}`, value: undefined });
        continue;
      }
      const attached = text.slice(at + 1);
      found.push({ option: `-${letter}`, value: attached ? literalWord(attached) : words[index + 1] });
      break;
    }
  }
  return found;
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
      ...WGET_FILES,
    ]),
    permute: true,
  });
  const logs = optionValues(args, "-o", "--output-file", "-a", "--append-output");
  const reads = optionValues(args, ...WGET_FILES).flatMap((word) => (word ? [read(word)] : []));
  const documents = optionValues(args, "-O", "--output-document");
  const targets = [...logs, ...documents].flatMap((word) =>
    word && word.value !== "-" ? [write(word)] : [],
  );
  if (documents.length === 0) targets.push(...args.operands.map((url) => write(urlFileName(url))));
  return [...targets, ...reads];
}

/** wget options whose value is a file it reads (and sends: `--post-file`, or requests: `-i`'s lines). */
const WGET_FILES = [
  "-i",
  "--input-file",
  "--config",
  "--post-file",
  "--body-file",
  "--load-cookies",
  "--certificate",
  "--private-key",
  "--ca-certificate",
];

function urlFileName(url: ShellWord): ShellWord {
  if (url.value === undefined) return { written: url.written };
  try {
    return literalWord(baseName(new URL(url.value).pathname) || "index.html");
  } catch {
    return { written: url.written };
  }
}
