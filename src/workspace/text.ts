/** How a file's bytes are judged before a tool shows them to a model. */

const IMAGE_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

/** The image MIME type for a file name, or undefined. */
export function imageMimeType(fileName: string): string | undefined {
  const dot = fileName.lastIndexOf(".");
  return dot < 0 ? undefined : IMAGE_TYPES[fileName.slice(dot + 1).toLowerCase()];
}

/** The image MIME type announced by a file's first bytes (its magic number), or undefined. */
export function imageMimeTypeOfBytes(head: Uint8Array): string | undefined {
  const startsWith = (bytes: number[], at = 0) => bytes.every((byte, i) => head[at + i] === byte);
  if (startsWith([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith([0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith([0x47, 0x49, 0x46, 0x38])) return "image/gif";
  if (startsWith([0x52, 0x49, 0x46, 0x46]) && startsWith([0x57, 0x45, 0x42, 0x50], 8)) return "image/webp";
  return undefined;
}

/** A NUL byte in the first block, or bytes that are not UTF-8, mark a binary file (as git and ripgrep judge it). */
export function looksBinary(sample: Uint8Array): boolean {
  if (sample.includes(0)) return true;
  return !isValidUtf8Prefix(sample);
}

const decoder = new TextDecoder("utf-8", { fatal: true });

function isValidUtf8Prefix(sample: Uint8Array): boolean {
  // a sample may end in the middle of a multi-byte character: drop up to 3 trailing bytes of it
  let end = sample.length;
  for (let back = 1; back <= 3 && end - back >= 0; back++) {
    const byte = sample[end - back] as number;
    if ((byte & 0xc0) === 0xc0) {
      end -= back;
      break;
    }
    if ((byte & 0x80) === 0) break;
  }
  try {
    decoder.decode(sample.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}
