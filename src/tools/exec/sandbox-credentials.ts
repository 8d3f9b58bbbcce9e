import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { enclosingGitEntry, repositoryConfigFiles } from "./git-layout.js";

/**
 * What a sandboxed command must not read although the file tools' guard never sees it: the credential
 * stores in the user's home, and the credentials inside git's configuration files.
 */

/**
 * What one sandboxed command may not see: the home folders' credential stores (`denyRead`), and every
 * git configuration file git will read, with its credentials masked (`masked`): the repository holding
 * `root`, the `.git` entries found below it, and the users' own git configs.
 */
export function credentialRules(
  root: string,
  nestedGitEntries: readonly string[],
  homes: readonly string[],
): { denyRead: string[]; masked: MaskedFile[] } {
  const gitConfigs = [
    ...[enclosingGitEntry(root), ...nestedGitEntries].flatMap((entry) =>
      entry ? repositoryConfigFiles(entry) : [],
    ),
    ...homeGitConfigFiles(homes, process.env),
  ];
  return { denyRead: homeCredentialPaths(homes), masked: maskedGitConfigs(gitConfigs) };
}

/** Home-relative stores of keys, tokens and passwords: hidden from sandboxed commands. */
export const HOME_CREDENTIAL_STORES = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".kube",
  ".config/gcloud",
  ".config/gh",
  ".config/hub",
  ".config/doctl",
  ".config/rclone",
  ".config/op",
  ".config/git/credentials",
  ".oci",
  ".docker/config.json",
  ".netrc",
  ".git-credentials",
  ".npmrc",
  ".yarnrc.yml",
  ".pypirc",
  ".pgpass",
  ".my.cnf",
  ".vault-token",
  ".terraformrc",
  ".terraform.d/credentials.tfrc.json",
  ".boto",
  ".s3cfg",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".gem/credentials",
  ".m2/settings.xml",
  ".m2/settings-security.xml",
  ".gradle/gradle.properties",
  ".composer/auth.json",
  ".config/composer/auth.json",
  ".password-store",
  ".local/share/keyrings",
  ".claude/.credentials.json",
  ".codex/auth.json",
  ".gemini/oauth_creds.json",
  ".bash_history",
  ".zsh_history",
];

/** The credential stores that exist under each of `homes` (absolute paths). */
export function homeCredentialPaths(homes: readonly string[]): string[] {
  const found = new Set<string>();
  for (const home of new Set(homes))
    for (const rel of HOME_CREDENTIAL_STORES) {
      const full = path.join(home, rel);
      if (existsSync(full)) found.add(full);
    }
  return [...found];
}

/** `Word` → `[wW][oO][rR][dD]`: the runtime compiles the pattern without the i flag, and git keys ignore case. */
function anyCase(word: string): string {
  return word.replace(/[a-z]/gi, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`);
}

const SECRET_KEY_WORDS = ["token", "pass", "secret", "auth", "credential", "apikey", "api-key"];
const SECRET_KEYS = [
  anyCase("extraheader"),
  anyCase("helper"),
  `[A-Za-z0-9-]*(?:${SECRET_KEY_WORDS.map(anyCase).join("|")})[A-Za-z0-9-]*`,
].join("|");

/**
 * Capture group 1 of each match is a credential inside a git configuration file: the user and password
 * of any URL (`https://x:TOKEN@host`, also in `[url "…"]` and `[http "…"]` headers), and the value of
 * `http.extraHeader`, `credential.helper` (an inline helper may print a password) and any key naming a
 * token, password, secret or auth (a value continued over lines with `\` included).
 */
export const GIT_CREDENTIAL_PATTERN =
  `((?<=://)[^\\s/@"]+(?=@)` +
  `|(?<=(?:^|\\n)[ \\t]*(?:${SECRET_KEYS})[ \\t]*=[ \\t]*)\\S(?:[^\\n\\\\]|\\\\[\\s\\S])*)`;
const gitCredential = new RegExp(GIT_CREDENTIAL_PATTERN);

/** The sandbox runtime's entry for a file shown with its credentials replaced by stand-in values. */
export interface MaskedFile {
  path: string;
  mode: "mask";
  extract: string;
  /** Where the runtime's proxy may put the real value back: nowhere. */
  injectHosts: string[];
}

/**
 * Git configuration files that hold a credential, as masked entries: git keeps working in the sandbox
 * (remotes, branches, hooks paths all there) while the secrets read as `fake_value_…`. A file without a
 * credential is left as it is.
 */
export function maskedGitConfigs(files: readonly string[]): MaskedFile[] {
  const masked: MaskedFile[] = [];
  for (const file of new Set(files)) {
    let text: string;
    try {
      if (!statSync(file).isFile()) continue;
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    if (gitCredential.test(text))
      masked.push({ path: file, mode: "mask", extract: GIT_CREDENTIAL_PATTERN, injectHosts: [] });
  }
  return masked;
}

/** The user's own git configuration files under each home (and where GIT_CONFIG_GLOBAL / XDG_CONFIG_HOME point). */
export function homeGitConfigFiles(homes: readonly string[], env: NodeJS.ProcessEnv): string[] {
  const files = homes.flatMap((home) => [
    path.join(home, ".gitconfig"),
    path.join(home, ".config", "git", "config"),
  ]);
  if (env.XDG_CONFIG_HOME) files.push(path.join(env.XDG_CONFIG_HOME, "git", "config"));
  if (env.GIT_CONFIG_GLOBAL) files.push(env.GIT_CONFIG_GLOBAL);
  return files;
}
