import { trustCoveredFiles } from "./covered.js";
import { resolveWorkspaceTrust, type WorkspaceTrust } from "./workspace-trust.js";

/**
 * What a session is told about trusting its workspace: `true` trusts it as it is (the caller vouches),
 * (`{ trustedBy: "--trust" }` says who), `"recorded"` follows the user's decision in
 * `~/.agents/trusted-folders.json`, `false` or nothing
 * trusts nothing of it (the library's default), or a decision made elsewhere (a parent session's).
 */
export type TrustOption = boolean | "recorded" | { trustedBy: string } | WorkspaceTrust;

export function sessionTrust(
  root: string,
  home: string,
  option: TrustOption | undefined,
  log?: (line: string) => void,
): WorkspaceTrust {
  if (typeof option === "object" && "trustedBy" in option)
    return resolveWorkspaceTrust(root, { kind: "given", how: option.trustedBy });
  if (typeof option === "object") return option.root === root ? option : option.forFolder(root);
  if (option === true)
    return resolveWorkspaceTrust(root, { kind: "given", how: "given by the caller (trust: true)" });
  if (option === "recorded") {
    return resolveWorkspaceTrust(root, {
      kind: "recorded",
      home,
      coveredFiles: (folder) => trustCoveredFiles(folder, home),
      ...(log ? { log } : {}),
    });
  }
  return resolveWorkspaceTrust(root, { kind: "untrusted", how: "not trusted (the trust option is off)" });
}
