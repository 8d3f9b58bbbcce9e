/**
 * A response body as text, read chunk by chunk and given up (the download cancelled) past `maxBytes`:
 * an endpoint a hook or a search posts to cannot make Gantry hold an unbounded answer.
 */
export async function readBounded(
  response: Response,
  maxBytes: number,
): Promise<{ ok: true; text: string } | { ok: false; failure: string }> {
  if (!response.body) return { ok: true, text: "" };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > maxBytes) {
      await reader.cancel();
      return { ok: false, failure: `response body over ${maxBytes} bytes` };
    }
    chunks.push(value);
  }
  return { ok: true, text: Buffer.concat(chunks).toString("utf8") };
}
