import { createSubagentTools } from "./agents/index.js";
import type { AnyTool } from "./contract.js";
import type { ToolEnvironment } from "./environment.js";
import { createExecTools } from "./exec/index.js";
import { createDeleteFileTool } from "./files/delete-file.js";
import { createListDirTool } from "./files/list-dir.js";
import { createMultiReplaceFileContentTool } from "./files/multi-replace-file-content.js";
import { createReplaceFileContentTool } from "./files/replace-file-content.js";
import { createViewFileTool } from "./files/view-file.js";
import { createWriteToFileTool } from "./files/write-to-file.js";
import { createGenerateImageTool } from "./images/generate-image.js";
import { createAskQuestionTool } from "./interaction/ask-question.js";
import { createUpdatePlanTool } from "./interaction/update-plan.js";
import { createAskPermissionTool } from "./permission/ask-permission.js";
import { createListPermissionsTool } from "./permission/list-permissions.js";
import { createFindByNameTool } from "./search/find-by-name.js";
import { createGrepSearchTool } from "./search/grep-search.js";
import { createReadUrlContentTool } from "./web/read-url-content.js";
import { createSearchWebTool } from "./web/search/search-web.js";

/** Every built-in tool, made for one session. Each tool family adds its factories here. */
export function createBuiltinTools(env: ToolEnvironment): AnyTool[] {
  return [
    createViewFileTool(env),
    createListDirTool(env),
    createWriteToFileTool(env),
    createReplaceFileContentTool(env),
    createMultiReplaceFileContentTool(env),
    createDeleteFileTool(env),
    createFindByNameTool(env),
    createGrepSearchTool(env),
    createSearchWebTool(env),
    createReadUrlContentTool(env),
    ...createExecTools(env),
    createUpdatePlanTool(),
    ...(env.permissions
      ? [
          createListPermissionsTool(env.permissions),
          createAskPermissionTool(env.permissions),
          createAskQuestionTool(env.permissions.asker),
        ]
      : []),
    createGenerateImageTool(env),
    ...(env.subagents ? createSubagentTools(env.subagents) : []),
  ];
}
