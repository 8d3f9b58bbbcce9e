import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";

const SANDBOX_FORMS = "expected true, false or an object such as {enabled, allowedDomains, ...}";

const SandboxOptionsSchema = lazySchema(() =>
  z.strictObject(
    {
      enabled: z.boolean().optional().describe("run every command in the sandbox (also: the --sandbox flag)"),
      allowedDomains: z
        .array(z.string())
        .optional()
        .describe('hosts commands may reach, e.g. "registry.npmjs.org", "*.github.com", "127.0.0.1:3000"'),
      deniedDomains: z
        .array(z.string())
        .optional()
        .describe("hosts refused even if an allowed pattern matches"),
      allowWrite: z
        .array(z.string())
        .optional()
        .describe("absolute folders writable besides the workspace (e.g. a package cache)"),
      denyWrite: z
        .array(z.string())
        .optional()
        .describe("absolute paths commands may not write, in the workspace too (e.g. a release folder)"),
      denyRead: z
        .array(z.string())
        .optional()
        .describe("absolute paths unreadable besides the workspace's secret files"),
      env: z
        .strictObject({
          allow: z
            .array(z.string())
            .optional()
            .describe(
              'environment variables passed to sandboxed commands although they look like credentials, e.g. "NPM_TOKEN" or "MY_APP_*"',
            ),
        })
        .optional()
        .describe("the environment of sandboxed commands: keys, tokens, secrets and passwords are left out"),
    },
    { error: (issue) => (issue.code === "invalid_type" ? SANDBOX_FORMS : undefined) },
  ),
);

/**
 * The `sandbox` section of .agents/settings.json (the --sandbox flag sets `enabled`). `true` / `false` are
 * shorthands for `{"enabled": true}` / `{"enabled": false}`, turned into the object form here, at parse
 * time, so every later reader (merging of settings files included) sees only the object.
 */
export const SandboxSettingsSchema = lazySchema(() =>
  z.preprocess((value) => (typeof value === "boolean" ? { enabled: value } : value), SandboxOptionsSchema()),
);
export type SandboxSettings = z.infer<ReturnType<typeof SandboxOptionsSchema>>;
