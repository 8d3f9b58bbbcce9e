/**
 * The environment a sandboxed command starts with: the user's, without what would hand the model a
 * credential (SPEC §4 sandbox): API keys, tokens, secrets and passwords, cloud credentials, agent
 * sockets, and any value that is a URL carrying a password. `sandbox.env.allow` names variables to keep.
 */

/** Words that mark a secret anywhere in a variable's name (`GITHUB_TOKEN`, `npm_config__authToken`, `DB_PASSWORD`). */
const SECRET_NAME_PARTS = [
  "TOKEN",
  "SECRET",
  "PASSWORD",
  "PASSWD",
  "APIKEY",
  "API_KEY",
  "CREDENTIAL",
  "PRIVATE_KEY",
];
/** Whole words of a name (between underscores) that mark a secret: `STRIPE_KEY`, `DB_PASS`, `BASIC_AUTH`. */
const SECRET_NAME_WORDS = new Set(["KEY", "KEYS", "PASS", "PWD", "AUTH", "COOKIE", "SESSION"]);
/** Cloud and service credential families, by prefix. */
const SECRET_NAME_PREFIXES = [
  "AWS_",
  "AZURE_",
  "ARM_",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "GOOGLE_CREDENTIALS",
  "GCLOUD_",
  "CLOUDSDK_AUTH_",
  "DIGITALOCEAN_",
  "ALICLOUD_",
  "ALIBABA_CLOUD_",
  "OCI_CLI_",
  "VAULT_",
  "HCLOUD_",
];
/** Sockets and helpers that hand out credentials on request. */
const SECRET_NAMES = new Set([
  "SSH_AUTH_SOCK",
  "GPG_AGENT_INFO",
  "GIT_ASKPASS",
  "SSH_ASKPASS",
  "SUDO_ASKPASS",
  "KRB5CCNAME",
  "VSCODE_GIT_IPC_HANDLE",
  "VSCODE_GIT_ASKPASS_NODE",
  "VSCODE_GIT_ASKPASS_MAIN",
]);
/** Names kept whatever the rules above say: the shell's own and Gantry's. */
const ALWAYS_KEPT = new Set(["PWD", "OLDPWD"]);
/** A URL with a password in it: `postgres://user:secret@db/app`, `https://x:token@host`. */
const URL_WITH_PASSWORD = /[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i;

/** Whether a variable would hand a sandboxed command a credential. */
export function isSecretVariable(name: string, value: string | undefined): boolean {
  const upper = name.toUpperCase();
  if (ALWAYS_KEPT.has(upper)) return false;
  if (SECRET_NAMES.has(upper)) return true;
  if (SECRET_NAME_PREFIXES.some((prefix) => upper.startsWith(prefix))) return true;
  if (SECRET_NAME_PARTS.some((part) => upper.includes(part))) return true;
  if (upper.split("_").some((word) => SECRET_NAME_WORDS.has(word))) return true;
  return value !== undefined && URL_WITH_PASSWORD.test(value);
}

/** `sandbox.env.allow` entries: exact names, or `*` patterns (`MY_APP_*`). */
function allowMatcher(allow: readonly string[]): (name: string) => boolean {
  const exact = new Set(allow.filter((entry) => !entry.includes("*")));
  const patterns = allow
    .filter((entry) => entry.includes("*"))
    .map((entry) => new RegExp(`^${entry.split("*").map(escapeRegExp).join(".*")}$`));
  return (name) => exact.has(name) || patterns.some((pattern) => pattern.test(name));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** `env` without its secret variables, except those `allow` names; also returns what was dropped. */
export function scrubEnvironment(
  env: NodeJS.ProcessEnv,
  allow: readonly string[] = [],
): { env: NodeJS.ProcessEnv; dropped: string[] } {
  const allowed = allowMatcher(allow);
  const kept: NodeJS.ProcessEnv = {};
  const dropped: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (isSecretVariable(name, value) && !allowed(name)) dropped.push(name);
    else kept[name] = value;
  }
  return { env: kept, dropped };
}
