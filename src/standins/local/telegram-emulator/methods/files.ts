import type { PhotoSize } from "grammy/types";
import { badRequest } from "#src/standins/local/telegram-emulator/errors.js";
import { fileId, fileUniqueId } from "#src/standins/local/telegram-emulator/ids.js";
import type { InputFileRef } from "#src/standins/local/telegram-emulator/params.js";
import type { StoredFile } from "#src/standins/local/telegram-emulator/types.js";
import type { World } from "#src/standins/local/telegram-emulator/world.js";

const MIME_BY_EXTENSION: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  pdf: "application/pdf",
  txt: "text/plain",
  csv: "text/csv",
  json: "application/json",
  zip: "application/zip",
};

/** Store an upload or resolve a file_id, checking the kind like Telegram. */
export function resolveFile(
  world: World,
  ref: InputFileRef | undefined,
  kind: "photo" | "document",
): StoredFile {
  if (!ref) throw badRequest(`there is no ${kind} in the request`);
  if (ref.kind === "url") throw badRequest("wrong file identifier/HTTP URL specified");
  if (ref.kind === "file_id") {
    const stored = world.files.get(ref.fileId);
    if (!stored) throw badRequest("wrong file identifier/HTTP URL specified");
    if (stored.kind !== kind)
      throw badRequest(`can't use file of type ${capitalize(stored.kind)} as ${capitalize(kind)}`);
    return stored;
  }
  const { bytes, name, type } = ref.file;
  if (bytes.length === 0) throw badRequest("file must be non-empty");
  let width = 0;
  let height = 0;
  if (kind === "photo") {
    const size = imageSize(bytes);
    if (!size) throw badRequest("IMAGE_PROCESS_FAILED");
    ({ width, height } = size);
    if (width + height > 10_000) throw badRequest("PHOTO_INVALID_DIMENSIONS");
  }
  const extension = name.includes(".") ? name.split(".").pop()!.toLowerCase() : "";
  const id = fileId(kind);
  const stored: StoredFile = {
    fileId: id,
    fileUniqueId: fileUniqueId(),
    kind,
    bytes,
    fileName: kind === "document" ? name : undefined,
    mimeType:
      MIME_BY_EXTENSION[extension] ?? (type && type !== "application/octet-stream" ? type : undefined),
    width,
    height,
    path: `${kind === "photo" ? "photos" : "documents"}/file_${world.files.size}.${extension || "dat"}`,
  };
  world.files.set(id, stored);
  return stored;
}

export function photoSizes(file: StoredFile): PhotoSize[] {
  return [
    {
      file_id: file.fileId,
      file_unique_id: file.fileUniqueId,
      width: file.width,
      height: file.height,
      file_size: file.bytes.length,
    },
  ];
}

export function documentOf(file: StoredFile) {
  return {
    file_id: file.fileId,
    file_unique_id: file.fileUniqueId,
    ...(file.fileName ? { file_name: file.fileName } : {}),
    ...(file.mimeType ? { mime_type: file.mimeType } : {}),
    file_size: file.bytes.length,
  };
}

/** Width and height of a PNG, JPEG or GIF; undefined when the bytes are not an image Telegram could read. */
function imageSize(bytes: Buffer): { width: number; height: number } | undefined {
  if (bytes.length >= 24 && bytes.readUInt32BE(0) === 0x89504e47)
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  if (bytes.length >= 10 && bytes.toString("latin1", 0, 4) === "GIF8")
    return { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) };
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8) {
    let offset = 2;
    while (offset + 9 < bytes.length) {
      if (bytes[offset] !== 0xff) return undefined;
      const marker = bytes[offset + 1]!;
      const length = bytes.readUInt16BE(offset + 2);
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker))
        return { height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) };
      offset += 2 + length;
    }
  }
  return undefined;
}

function capitalize(word: string): string {
  return word[0]!.toUpperCase() + word.slice(1);
}
