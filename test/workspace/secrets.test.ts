import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import {
  createSecretGuard,
  DEFAULT_SECRET_EXCEPTIONS,
  DEFAULT_SECRET_PATTERNS,
} from "../../src/workspace/secrets.js";

describe("secret guard", () => {
  const guard = createSecretGuard();

  it.each([
    ".env",
    ".ENV",
    ".env.local",
    ".Env.Production",
    "app/config/.env",
    "id_rsa",
    "home/.ssh/id_ed25519",
    "id_rsa.pub",
    "server.pem",
    "certs/SERVER.PEM",
    "a.key",
    "store.p12",
    ".git",
    ".git/config",
    "vendor/lib/.git/HEAD",
    ".netrc",
    ".env.example/inner.pem",
    ".env.local/readme.md",
  ])("judges %s a secret", (relPath) => {
    expect(guard.isSecret(relPath)).toBe(true);
  });

  it.each([
    "",
    ".",
    ".env.example",
    ".env.sample",
    ".env.template",
    "config/.env.example",
    "README.md",
    ".github/workflows/ci.yml",
    ".gitignore",
    "src/keyboard.ts",
    "docs/key.md",
    "environment.ts",
    "pem/readme.md",
  ])("judges %s not a secret", (relPath) => {
    expect(guard.isSecret(relPath)).toBe(false);
  });

  it("adds configured patterns, by name or by workspace-relative path", () => {
    const configured = createSecretGuard({ patterns: ["*.secret", "config/tokens/**"] });
    expect(configured.isSecret("deploy/prod.secret")).toBe(true);
    expect(configured.isSecret("config/tokens/github.txt")).toBe(true);
    expect(configured.isSecret("other/config/tokens/github.txt")).toBe(false);
    expect(configured.isSecret("config/settings.json")).toBe(false);
  });

  it("lets configured exceptions win over patterns, by name or by path", () => {
    const configured = createSecretGuard({ allow: ["test/fixtures/*.pem", "public.key"] });
    expect(configured.isSecret("test/fixtures/cert.pem")).toBe(false);
    expect(configured.isSecret("docs/public.key")).toBe(false);
    expect(configured.isSecret("server.pem")).toBe(true);
    expect(configured.isSecret("test/fixtures/deeper/cert.pem")).toBe(true);
  });

  it("judges a walk's new entry exactly as isSecret judges its whole path", () => {
    const names = [
      "src",
      ".env",
      ".ENV.local",
      ".env.example",
      "id_rsa.pub",
      "x.pem",
      "public.key",
      "tokens",
      "fixtures",
      "cert.pem",
      "a\\.env",
      "readme.md",
    ];
    const configs = [
      {},
      { patterns: ["*.secret", "config/tokens/**", "tokens"] },
      { allow: ["fixtures/*.pem", "public.key"] },
    ];
    let compared = 0;
    for (const config of configs) {
      const configured = createSecretGuard(config);
      const walk = (parent: string, depth: number) => {
        for (const name of names) {
          const relPath = parent === "" ? name : `${parent}/${name}`;
          expect(configured.isSecretEntry(relPath, name), relPath).toBe(configured.isSecret(relPath));
          compared++;
          // a walk never enters a secret folder, so only non-secret folders get children
          if (depth < 2 && !configured.isSecret(relPath)) walk(relPath, depth + 1);
        }
      };
      walk("", 0);
      walk("config", 1);
    }
    expect(compared).toBeGreaterThan(500);
  });
});

describe("secret guard: the answer each glob gives on its own", () => {
  const matches = (globs: readonly string[], name: string) =>
    globs.some((glob) => glob === name || picomatch(glob, { nocase: true, dot: true })(name));
  // names near each built-in pattern and exception, in other cases, with non-ASCII letters that fold to
  // ASCII ones (the Kelvin sign, dotted and dotless i, long s), and "." and ".."
  const near = [...DEFAULT_SECRET_PATTERNS, ...DEFAULT_SECRET_EXCEPTIONS].flatMap((glob) => {
    const core = glob.replaceAll("*", "");
    return [core, `x${core}`, `${core}x`, `a${core}b`, core.toUpperCase(), core.replace("k", "\u212a")];
  });
  const names = [
    ...near,
    ".",
    "..",
    "",
    "index.ts",
    "ID_RSA.pub",
    "\u0130d_rsa",
    "\u0131d_rsa",
    ".\u017fecret",
    "server.PEM",
    ".ENV.local",
    ".Env.Example",
    "*.pem",
    "id_ed25519.old",
    "x.keystore.bak",
  ];

  it("gives the answer the globs give, for every name", () => {
    const guard = createSecretGuard();
    for (const name of names) {
      const expected =
        name !== "" && matches(DEFAULT_SECRET_PATTERNS, name) && !matches(DEFAULT_SECRET_EXCEPTIONS, name);
      expect(guard.isSecretEntry(name, name), JSON.stringify(name)).toBe(expected);
    }
  });

  it("and for patterns of other shapes the user adds (braces, classes, a star inside)", () => {
    const patterns = [
      "*.{tok,cred}",
      "sec[0-9]*",
      "*private*",
      "a*b",
      "?oo",
      "config.*",
      "a.*.b",
      ".*rc",
      "*.Tok",
    ];
    const guard = createSecretGuard({ patterns });
    const all = [...DEFAULT_SECRET_PATTERNS, ...patterns];
    for (const name of [
      ...names,
      "x.tok",
      "X.CRED",
      "sec1",
      "my-private-key",
      "PRIVATE",
      "axxb",
      "foo",
      "fo",
      "config.",
      "config.js",
      "a..b",
      "a.x.b",
      ".bashrc",
      ".rc",
      "x.TOK",
    ]) {
      const expected = name !== "" && matches(all, name) && !matches(DEFAULT_SECRET_EXCEPTIONS, name);
      expect(guard.isSecretEntry(name, name), JSON.stringify(name)).toBe(expected);
    }
  });
});

describe("secret guard: a star alone", () => {
  it("matches every name but . and .., as picomatch's star does", () => {
    const guard = createSecretGuard({ patterns: ["*"] });
    expect(guard.isSecretEntry("..", "..")).toBe(false);
    expect(guard.isSecretEntry("x", "x")).toBe(true);
    expect(guard.isSecretEntry(".x", ".x")).toBe(true);
  });
});
