import { createCallbackData } from "callback-data";

type Schema = Record<string, NumberConstructor | StringConstructor | BooleanConstructor>;

/** Telegram rejects callback_data longer than 64 bytes; we fail loudly in development instead. */
export const CALLBACK_DATA_MAX_BYTES = 64;

export class CallbackDataTooLongError extends Error {
  constructor(readonly packed: string) {
    super(
      `callback data is ${Buffer.byteLength(packed)} bytes (max ${CALLBACK_DATA_MAX_BYTES}): ${packed.slice(0, 20)}…`,
    );
    this.name = "CallbackDataTooLongError";
  }
}

/**
 * A typed callback-data codec ("prefix:field:field") that refuses to pack more than 64 bytes. Values must not
 * contain ":"; put a short server-side id in callback data, never the data itself.
 */
export function defineCallbackData<T extends Schema>(prefix: string, schema: T) {
  const codec = createCallbackData(prefix, schema);
  return {
    pack(data: Parameters<typeof codec.pack>[0]): string {
      let packed: string;
      try {
        packed = codec.pack(data);
      } catch {
        throw new CallbackDataTooLongError(`${prefix}:${Object.values(data).join(":")}`);
      }
      if (Buffer.byteLength(packed, "utf8") > CALLBACK_DATA_MAX_BYTES)
        throw new CallbackDataTooLongError(packed);
      return packed;
    },
    unpack: codec.unpack,
    filter: codec.filter,
  };
}
