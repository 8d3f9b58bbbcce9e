import { generateKeyPairSync } from "node:crypto";
import http2 from "node:http2";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import {
  createGitRepo,
  freePort,
  type RestateCluster,
  startRestate,
  startWorker,
  type Worker,
} from "../support/restate.js";
import { KEYS, submit, waitForState, workerPaths } from "./support.js";

const BASE58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

function base58(bytes: Buffer): string {
  let value = BigInt(`0x${bytes.toString("hex")}`);
  let text = "";
  while (value > 0n) {
    text = BASE58[Number(value % 58n)] + text;
    value /= 58n;
  }
  for (const byte of bytes) {
    if (byte !== 0) break;
    text = `1${text}`;
  }
  return text;
}

/** An ed25519 key pair: the PEM Restate signs with, and the public key as Restate's SDKs spell it. */
function identityKeyPair(): { pem: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const raw = Buffer.from(publicKey.export({ format: "jwk" }).x as string, "base64url");
  return {
    pem: privateKey.export({ format: "pem", type: "pkcs8" }).toString(),
    publicKey: `publickeyv1_${base58(raw)}`,
  };
}

const identity = identityKeyPair();
let cluster: RestateCluster;
let port: number;
let worker: Worker;
let model: ModelServer | undefined;

beforeAll(async () => {
  cluster = await startRestate({ identityKeyPem: identity.pem });
  port = await freePort();
  worker = await startWorker(cluster, port, {
    ...(await workerPaths(cluster, "w")),
    env: KEYS,
    args: ["--identity-key", identity.publicKey],
  });
}, 120_000);

afterAll(async () => {
  await worker?.kill();
  await model?.close();
  await cluster?.stop();
});

/** A request straight to the worker, bypassing Restate: what anyone who reaches its port could send. */
function unsignedDiscovery(): Promise<number> {
  return new Promise((resolve, reject) => {
    const client = http2.connect(`http://127.0.0.1:${port}`);
    client.on("error", reject);
    const request = client.request({
      ":path": "/discover",
      accept: "application/vnd.restate.endpointmanifest.v3+json",
    });
    request.on("response", (headers) => {
      resolve(Number(headers[":status"]));
      client.close();
    });
    request.on("error", reject);
    request.end();
  });
}

it("a worker given Restate's identity key refuses requests that cluster did not sign, and serves those it did", {
  timeout: 300_000,
}, async () => {
  expect(await unsignedDiscovery()).toBe(401);
  const repo = await createGitRepo(path.join(cluster.dir, "repo"), { "x.txt": "x\n" });
  model = await startModelServer([{ text: "signed and served" }]);
  const id = await submit(cluster, model, repo, "hello");
  expect(await waitForState(cluster, id, ["completed", "failed"])).toMatchObject({
    state: "completed",
    result: "signed and served",
  });
  const bad = await runGantry(["worker", "--port", "1", "--identity-key", "secret"], {
    env: { HOME: cluster.dir },
  });
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--identity-key must be a Restate public key");
});
