import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { sandboxUnavailableReason } from "../../../src/tools/exec/sandbox.js";
import { isSecretVariable, scrubEnvironment } from "../../../src/tools/exec/sandbox-env.js";
import { runGantryTool } from "../../support/cli.js";
import { type ExecFixture, openExecFixture } from "./helpers.js";

const unavailable = await sandboxUnavailableReason();
const opened: ExecFixture[] = [];
afterEach(async () => {
  for (const each of opened.splice(0)) await each.close();
});

const TOKEN_URL = "https://x-access-token:ghp_REMOTE_TOKEN_123@github.com/acme/app.git";
const HEADER = "AUTHORIZATION: basic SEVBREVSX1NFQ1JFVA==";

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** A repository in `root` whose .git/config holds a token in the remote URL and an auth header. */
function initRepository(root: string): void {
  git(root, "init", "-q", "-b", "main");
  git(root, "config", "user.email", "dev@example.com");
  git(root, "config", "user.name", "Dev");
  git(root, "remote", "add", "origin", TOKEN_URL);
  git(root, "config", "http.https://github.com/.extraheader", HEADER);
  git(root, "config", "url.https://oauth2:glpat-INSTEADOF_456@gitlab.com/.insteadOf", "https://gitlab.com/");
  git(root, "config", "gitlab.AccessToken", "plain-token-789");
  git(root, "add", "-A");
  git(root, "commit", "-q", "-m", "first");
}

const SECRETS_IN_CONFIG = [
  "ghp_REMOTE_TOKEN_123",
  "SEVBREVSX1NFQ1JFVA",
  "glpat-INSTEADOF_456",
  "plain-token-789",
];

async function runIn(fixture: ExecFixture, command: string) {
  return fixture.run("run_command", { CommandLine: command, Cwd: ".", WaitMsBeforeAsync: 30_000 });
}

async function fixtures(files: Record<string, string> = {}) {
  const sandboxed = await openExecFixture(files, { sandbox: { enabled: true } });
  const open = await openExecFixture(files, { sandbox: { enabled: false } });
  opened.push(sandboxed, open);
  return { sandboxed, open };
}

describe.skipIf(unavailable !== undefined)("the sandbox hides git's credentials, and git still works", () => {
  it("shows .git/config with its tokens replaced, which are readable without the sandbox", async () => {
    const { sandboxed, open } = await fixtures({ "a.txt": "a\n" });
    for (const each of [sandboxed, open]) initRepository(each.ws.root);
    const inside = await runIn(sandboxed, "cat .git/config; git config --get remote.origin.url");
    for (const secret of SECRETS_IN_CONFIG) expect(inside.text).not.toContain(secret);
    expect(inside.text).toMatch(/url = https:\/\/fake_value_[\w-]+@github\.com\/acme\/app\.git/);
    const outside = await runIn(open, "cat .git/config");
    for (const secret of SECRETS_IN_CONFIG) expect(outside.text).toContain(secret);
  });

  it("runs git status, log, diff, remote and commit in the sandbox", async () => {
    const { sandboxed } = await fixtures({ "a.txt": "a\n" });
    initRepository(sandboxed.ws.root);
    const result = await runIn(
      sandboxed,
      "echo b > b.txt && git add b.txt && git commit -q -m second && git log --format=%s && git status --short && git remote",
    );
    expect(result.metadata.exitCode).toBe(0);
    expect(result.text).toContain("second\nfirst");
    expect(result.text).toContain("origin");
    expect(git(sandboxed.ws.root, "log", "--format=%s")).toBe("second\nfirst\n");
    // the real configuration is untouched
    expect(git(sandboxed.ws.root, "config", "--get", "remote.origin.url").trim()).toBe(TOKEN_URL);
  });

  it("masks the repository the workspace sits in, and repositories nested inside it", async () => {
    const { sandboxed } = await fixtures({ "vendor/lib/a.txt": "a\n" });
    initRepository(sandboxed.ws.parent);
    initRepository(path.join(sandboxed.ws.root, "vendor/lib"));
    const result = await runIn(
      sandboxed,
      "cat ../.git/config vendor/lib/.git/config; git -C vendor/lib log --format=%s",
    );
    for (const secret of SECRETS_IN_CONFIG) expect(result.text).not.toContain(secret);
    expect(result.text.match(/fake_value_/g)?.length).toBeGreaterThanOrEqual(8);
    expect(result.text).toContain("first");
  });

  it("hides the tokens of the main repository's config from a linked worktree", async () => {
    const { sandboxed } = await fixtures();
    const main = path.join(sandboxed.ws.parent, "main-repo");
    mkdirSync(main);
    writeFileSync(path.join(main, "a.txt"), "a\n");
    initRepository(main);
    // the workspace becomes a linked worktree whose .git file points into main-repo/.git
    execFileSync("rm", ["-rf", sandboxed.ws.root]);
    git(main, "worktree", "add", "-q", sandboxed.ws.root, "-b", "feature");
    const result = await runIn(
      sandboxed,
      'cat "$(git rev-parse --git-common-dir)/config"; git status --short',
    );
    expect(result.metadata.exitCode).toBe(0);
    for (const secret of SECRETS_IN_CONFIG) expect(result.text).not.toContain(secret);
    expect(result.text).toContain("fake_value_");
  });
});

describe.skipIf(unavailable !== undefined)("the sandbox hides the home folder's credential stores", () => {
  const HOME_FILES: Record<string, string> = {
    ".ssh/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY----- ssh-secret",
    ".ssh/config": "Host x\n  IdentityFile ~/.ssh/id_rsa # ssh-config-secret\n",
    ".aws/credentials": "[default]\naws_secret_access_key = aws-secret\n",
    ".config/gcloud/application_default_credentials.json": '{"refresh_token": "gcloud-secret"}',
    ".azure/accessTokens.json": '[{"accessToken": "azure-secret"}]',
    ".kube/config": "users:\n- user: {token: kube-secret}\n",
    ".docker/config.json": '{"auths": {"x": {"auth": "docker-secret"}}}',
    ".netrc": "machine example.com login me password netrc-secret\n",
    ".git-credentials": "https://me:gitcred-secret@github.com\n",
    ".npmrc": "//registry.npmjs.org/:_authToken=npm-secret\n",
    ".gnupg/private-keys-v1.d/key.key": "gpg-secret",
    ".config/gh/hosts.yml": "github.com:\n  oauth_token: gh-secret\n",
  };

  it("refuses to read each store, every one of which is readable without the sandbox", async () => {
    const { sandboxed, open } = await fixtures();
    for (const each of [sandboxed, open])
      for (const [rel, content] of Object.entries(HOME_FILES)) {
        mkdirSync(path.dirname(path.join(each.ws.home, rel)), { recursive: true });
        writeFileSync(path.join(each.ws.home, rel), content);
      }
    const command = (home: string) =>
      Object.keys(HOME_FILES)
        .map((rel) => `cat "${path.join(home, rel)}" 2>&1`)
        .join("; ");
    const inside = await runIn(sandboxed, command(sandboxed.ws.home));
    const outside = await runIn(open, command(open.ws.home));
    for (const content of Object.values(HOME_FILES)) {
      const secret = /[\w-]+-secret/.exec(content)?.[0] as string;
      expect(inside.text, secret).not.toContain(secret);
      expect(outside.text, secret).toContain(secret);
    }
    // the folders are empty in the sandbox, not merely unreadable one file at a time
    const listing = await runIn(
      sandboxed,
      `echo "entries: $(ls -A "${path.join(sandboxed.ws.home, ".ssh")}" | wc -l)"`,
    );
    expect(listing.text).toContain("entries: 0");
  });

  it("masks the credentials in ~/.gitconfig, which git still reads", async () => {
    const { sandboxed } = await fixtures({ "a.txt": "a\n" });
    const gitconfig =
      '[url "https://me:HOME_GIT_TOKEN@github.com/"]\n\tinsteadOf = https://github.com/\n[alias]\n\tst = status\n';
    writeFileSync(path.join(sandboxed.ws.home, ".gitconfig"), gitconfig);
    const result = await runIn(sandboxed, `cat "${sandboxed.ws.home}/.gitconfig"`);
    expect(result.text).not.toContain("HOME_GIT_TOKEN");
    expect(result.text).toContain("st = status");
  });
});

describe.skipIf(unavailable !== undefined)("the sandbox scrubs the environment", () => {
  const ENV = {
    MY_SERVICE_API_KEY: "val-api-key",
    OPENAI_API_KEY: "val-openai",
    GITHUB_TOKEN: "val-github",
    NPM_TOKEN: "val-npm",
    AWS_ACCESS_KEY_ID: "val-aws-id",
    AWS_SECRET_ACCESS_KEY: "val-aws-secret",
    AZURE_CLIENT_SECRET: "val-azure",
    GOOGLE_APPLICATION_CREDENTIALS: "/secret/val-gcp.json",
    DB_PASSWORD: "val-db-password",
    DATABASE_URL: "postgres://app:val-dburl@db.internal/app",
    SSH_AUTH_SOCK: "/tmp/val-agent.sock",
    KEEP_THIS_TOKEN: "val-kept-by-setting",
    PLAIN_SETTING: "val-plain",
  };
  const hidden = Object.entries(ENV).filter(([name]) => !["KEEP_THIS_TOKEN", "PLAIN_SETTING"].includes(name));

  it("passes no key, token, secret, password or cloud credential unless sandbox.env.allow names it", async () => {
    const { sandboxed, open } = await fixtures({
      ".agents/settings.json": JSON.stringify({ sandbox: { env: { allow: ["KEEP_THIS_*"] } } }),
    });
    const args = { CommandLine: "env", Cwd: ".", WaitMsBeforeAsync: 30_000 };
    const run = (root: string, home: string, extra: string[]) =>
      runGantryTool("run_command", args, {
        workspace: root,
        env: { HOME: home, ...ENV },
        extra: [...extra, "--approval-mode", "yolo"],
      });
    // sandbox.env.allow loosens the sandbox: a workspace sets it only when trusted
    const inside = (await run(sandboxed.ws.root, sandboxed.ws.home, ["--sandbox", "--trust"])).result;
    const untrusted = (await run(sandboxed.ws.root, sandboxed.ws.home, ["--sandbox"])).result;
    const outside = (await run(open.ws.root, open.ws.home, [])).result;
    expect(inside.metadata.sandboxed).toBe(true);
    for (const [name, value] of hidden) {
      expect(inside.text, name).not.toContain(value);
      expect(outside.text, name).toContain(value);
    }
    expect(inside.text).toContain("KEEP_THIS_TOKEN=val-kept-by-setting");
    expect(inside.text).toContain("PLAIN_SETTING=val-plain");
    expect(untrusted.text).not.toContain("val-kept-by-setting");
    expect(untrusted.text).toContain("PLAIN_SETTING=val-plain");
  });
});

describe("which variables count as secrets", () => {
  it("catches keys, tokens, passwords, cloud credentials and URLs with a password; keeps the rest", () => {
    for (const name of [
      "ANTHROPIC_API_KEY",
      "GEMINI_API_KEY",
      "GH_TOKEN",
      "npm_config__authToken",
      "STRIPE_KEY",
      "SECRET_KEY_BASE",
      "DB_PASS",
      "AWS_SESSION_TOKEN",
      "AWS_PROFILE",
      "ARM_CLIENT_SECRET",
      "VAULT_ADDR",
      "SSH_AUTH_SOCK",
    ])
      expect(isSecretVariable(name, "x"), name).toBe(true);
    expect(isSecretVariable("REDIS_URL", "redis://:hunter2@cache:6379")).toBe(true);
    for (const name of [
      "PATH",
      "HOME",
      "PWD",
      "OLDPWD",
      "LANG",
      "TERM",
      "NODE_ENV",
      "GIT_AUTHOR_NAME",
      "EDITOR",
    ])
      expect(isSecretVariable(name, "x"), name).toBe(false);
    expect(isSecretVariable("PUBLIC_URL", "https://example.com/app")).toBe(false);
  });

  it("keeps what sandbox.env.allow names, exactly or by a * pattern", () => {
    const { env, dropped } = scrubEnvironment(
      { A_TOKEN: "1", B_TOKEN: "2", MY_APP_SECRET: "3", PATH: "/bin" },
      ["A_TOKEN", "MY_APP_*"],
    );
    expect(env).toEqual({ A_TOKEN: "1", MY_APP_SECRET: "3", PATH: "/bin" });
    expect(dropped).toEqual(["B_TOKEN"]);
  });
});
