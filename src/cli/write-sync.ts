import { writeSync } from "node:fs";

/**
 * Writes a one-shot command's whole output to stdout before returning, straight to descriptor 1:
 * `process.stdout` on a pipe builds a socket (node:net and every stream module, about 5 ms of a tiny
 * `gantry tool` call). Where the descriptor is non-blocking and full (EAGAIN) or a write is interrupted,
 * the rest goes through `process.stdout`, which waits for the reader; any other failure (a closed pipe)
 * is thrown.
 */
export function writeStdoutSync(text: string): void {
  writeDescriptorSync(1, text, () => process.stdout);
}

/** The same for stderr (descriptor 2): a notice printed before the result costs no socket either. */
export function writeStderrSync(text: string): void {
  writeDescriptorSync(2, text, () => process.stderr);
}

function writeDescriptorSync(fd: 1 | 2, text: string, stream: () => NodeJS.WriteStream): void {
  const bytes = Buffer.from(text, "utf8");
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code !== "EAGAIN" && code !== "EINTR") throw cause;
    stream().write(bytes.subarray(offset));
  }
}
