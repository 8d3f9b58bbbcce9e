import { createHash } from "node:crypto";
import { stat, utimes, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createEditHarness, type EditHarness, replaceArgs } from "../tools/files/edit-support.js";

// view_file keeps a small file's bytes and hashes them when an edit first asks (a one-shot call then
// never loads node:crypto, about 5 ms). Each test loads the module afresh: its "crypto is loaded" state
// is per process.

type DigestModule = typeof import("../../src/workspace/content-digest.js");
const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

let digests: DigestModule;
beforeEach(async () => {
  vi.resetModules();
  digests = await import("../../src/workspace/content-digest.js");
});

describe("a deferred content digest", () => {
  it("is the sha256 of the bytes fed, in chunks, however late it is read", () => {
    const hasher = digests.createContentHasher(11);
    hasher.update(Buffer.from("hello "));
    hasher.update(Buffer.from("world"));
    const digest = hasher.digest();
    expect(typeof digest).toBe("object");
    expect(digests.digestValue(digest)).toBe(sha256("hello world"));
    expect(digests.digestValue(digest)).toBe(sha256("hello world"));
  });

  it("keeps a copy: bytes changed in the caller's buffer after the read do not change it", () => {
    const buffer = Buffer.from("one\ntwo\n");
    const hasher = digests.createContentHasher(buffer.length);
    hasher.update(buffer);
    const digest = hasher.digest();
    buffer.write("XXX");
    const image = Buffer.from([1, 2, 3]);
    const imageDigest = digests.digestOfBytes(image);
    image[0] = 9;
    expect(digests.digestValue(digest)).toBe(sha256("one\ntwo\n"));
    expect(digests.digestValue(imageDigest)).toBe(sha256(Buffer.from([1, 2, 3])));
  });

  it("refuses bytes past the size the file was opened with", () => {
    const hasher = digests.createContentHasher(3);
    expect(() => hasher.update(Buffer.from("four"))).toThrow(/past the size/);
  });

  it("hashes a large file as it streams, and every file once node:crypto is loaded", () => {
    const large = digests.createContentHasher(64 * 1024 + 1);
    large.update(Buffer.alloc(64 * 1024 + 1, 97));
    expect(large.digest()).toBe(sha256(Buffer.alloc(64 * 1024 + 1, 97)));
    const small = digests.createContentHasher(2);
    small.update(Buffer.from("ab"));
    expect(small.digest()).toBe(sha256("ab"));
  });

  it("keeps at most 64 files' bytes; the 65th loads node:crypto and settles every kept one", () => {
    const kept = Array.from({ length: 64 }, (_, i) => digests.digestOfBytes(Buffer.from(`file ${i}`)));
    expect(kept.every((digest) => typeof digest === "object")).toBe(true);
    expect(digests.digestOfBytes(Buffer.from("file 64"))).toBe(sha256("file 64"));
    kept.forEach((digest, i) => expect(digests.digestValue(digest)).toBe(sha256(`file ${i}`)));
  });
});

describe("edits against a deferred digest", () => {
  let h: EditHarness;
  afterEach(async () => h?.cleanup());

  it("refuses a file swapped after the read for other bytes of the same size and modification time", async () => {
    h = await createEditHarness({ "a.txt": "alpha\nbeta\n" });
    const file = path.join(h.ws.root, "a.txt");
    expect((await h.view("a.txt")).error).toBe(false);
    const before = await stat(file);
    await writeFile(file, "ALPHA\nbeta\n");
    await utimes(file, before.atime, before.mtime);
    const result = await h.run("replace_file_content", replaceArgs("a.txt", "beta", "gamma", 2, 2));
    expect(result.errorCode).toBe("stale_file");
    expect(result.metadata.reason).toBe("changed");
    expect(await h.text("a.txt")).toBe("ALPHA\nbeta\n");
  });

  it("accepts the edit when the file still holds what was read, and records the digest the read made", async () => {
    h = await createEditHarness({ "a.txt": "alpha\nbeta\n" });
    await h.view("a.txt");
    expect(h.reads.get(path.join(h.ws.root, "a.txt"))?.sha256).toBe(sha256("alpha\nbeta\n"));
    const result = await h.run("replace_file_content", replaceArgs("a.txt", "beta", "gamma", 2, 2));
    expect(result.error).toBe(false);
    expect(await h.text("a.txt")).toBe("alpha\ngamma\n");
  });
});
