import { z } from "zod";

/** The `sandbox` section of .agents/settings.json (the --sandbox flag sets `enabled`). */
export const SandboxSettingsSchema = z.object({
  enabled: z.boolean().optional().describe("run every command in the sandbox (also: the --sandbox flag)"),
  allowedDomains: z
    .array(z.string())
    .optional()
    .describe('hosts commands may reach, e.g. "registry.npmjs.org", "*.github.com", "127.0.0.1:3000"'),
  deniedDomains: z.array(z.string()).optional().describe("hosts refused even if an allowed pattern matches"),
  allowWrite: z
    .array(z.string())
    .optional()
    .describe("absolute folders writable besides the workspace (e.g. a package cache)"),
  denyRead: z
    .array(z.string())
    .optional()
    .describe("absolute paths unreadable besides the workspace's secret files"),
});
export type SandboxSettings = z.infer<typeof SandboxSettingsSchema>;
