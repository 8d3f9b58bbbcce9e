import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { createEndpointHandler } from "@restatedev/restate-sdk";
import type { WorkerEnv } from "./context.js";
import { defineServices } from "./services.js";

export interface WorkerOptions extends WorkerEnv {
  port: number;
  host: string;
  /** Restate's admin URL: given, the worker registers `advertise` (default: its own address) there. */
  admin?: string;
  /** The URL Restate should call: a load balancer in front of many workers. */
  advertise?: string;
  /** Restate's request-identity public keys: given, requests not signed by that cluster are refused. */
  identityKeys?: string[];
}

export interface RunningWorker {
  /** The address Restate calls. */
  url: string;
  close(): Promise<void>;
}

/**
 * Serves the session object on host:port. The port is opened with SO_REUSEPORT, so several workers on
 * one machine share one address and the kernel spreads Restate's connections across them; a worker
 * that dies drops its connections and Restate's retries land on the others.
 */
export async function startWorker(options: WorkerOptions): Promise<RunningWorker> {
  const server = http2.createServer(
    { settings: { maxConcurrentStreams: STREAMS_PER_CONNECTION } },
    createEndpointHandler({
      services: defineServices(options),
      ...(options.identityKeys?.length ? { identityKeys: options.identityKeys } : {}),
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port: options.port, host: options.host, reusePort: true }, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  const url = options.advertise ?? `http://${host}:${port}`;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  if (options.admin) {
    try {
      await registerDeployment(options.admin, url);
    } catch (cause) {
      await close();
      throw cause;
    }
  }
  return { url, close };
}

/**
 * Restate opens another connection when a worker's advertised streams are all taken, and connections
 * are what SO_REUSEPORT (or an L4 load balancer) spread: one stream each spreads sessions over workers.
 */
const STREAMS_PER_CONNECTION = 1;

const REGISTER_ATTEMPTS = 20;

/** Registers the worker's address with Restate's admin API (the same address again is a no-op there). */
async function registerDeployment(admin: string, uri: string): Promise<void> {
  const target = new URL("/deployments", admin);
  let lastProblem = "";
  for (let attempt = 1; attempt <= REGISTER_ATTEMPTS; attempt++) {
    try {
      const response = await fetch(target, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ uri }),
      });
      if (response.ok) return;
      // an answer (Restate could not reach or verify the worker) is final; only an admin not up yet is retried
      lastProblem = `HTTP ${response.status}: ${(await response.text()).slice(0, 500)}`;
      break;
    } catch (cause) {
      lastProblem = (cause as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`could not register ${uri} with Restate's admin API at ${admin}: ${lastProblem}`);
}
