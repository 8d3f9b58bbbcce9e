import {
  auth,
  Client,
  discoverOAuthServerInfo,
  fromJsonSchema,
  OAuthClientFlowError,
  OAuthError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

/**
 * The SDK's stdio transport, subclassed: the SDK then probes the protocol revision on this one process
 * (for its base class it spawns a second, probe-only process, which it leaves running when a hanging
 * server makes the start time out), and the process id is kept for ending the process tree.
 */
export class OwnStdioTransport extends StdioClientTransport {
  spawnedPid: number | undefined;

  override async start(): Promise<void> {
    await super.start();
    this.spawnedPid = this.pid ?? undefined;
  }
}

export {
  auth,
  Client,
  discoverOAuthServerInfo,
  fromJsonSchema,
  OAuthClientFlowError,
  OAuthError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
};
