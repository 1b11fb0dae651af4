/**
 * Callback data is whatever a client sends back: a forged button can carry anything up to 64 bytes. Every codec
 * here declares the exact shape of each field, and both its filter and its parser accept nothing else, so a
 * forged or outdated payload matches no handler and ends at the fallback's "older screen" toast instead of
 * reaching Redis or the payout API.
 */

/** Telegram rejects callback_data longer than 64 bytes; we fail loudly in development instead. */
const CALLBACK_DATA_MAX_BYTES = 64;

export class CallbackDataTooLongError extends Error {
  constructor(readonly packed: string) {
    super(
      `callback data is ${Buffer.byteLength(packed)} bytes (max ${CALLBACK_DATA_MAX_BYTES}): ${packed.slice(0, 20)}…`,
    );
    this.name = "CallbackDataTooLongError";
  }
}

/** A non-negative integer of at most `digits` digits, written without leading zeros (pages, list indexes). */
interface IntField {
  kind: "int";
  digits: number;
}
export const int = (digits: number): IntField => ({ kind: "int", digits });

/** One of a few literal values. */
export const oneOf = (...values: readonly string[]): RegExp =>
  new RegExp(values.map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|"));

/** The API's order reference and our own short ids: ASCII letters, digits, "_" and "-". */
export const ID = /[A-Za-z0-9_-]{1,48}/;
/** A UUID, the shape of the API's payment-link ref. */
export const UUID = /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/;

/** A field: a pattern for strings (never matching ":"), or an integer. */
type Field = RegExp | IntField;
type Schema = Record<string, Field>;
type Values<T extends Schema> = { [K in keyof T]: T[K] extends IntField ? number : string };
type Clause<T extends Schema> = { [K in keyof T]?: string | number | Field };

const isInt = (field: Field | string | number): field is IntField =>
  typeof field === "object" && !(field instanceof RegExp) && field.kind === "int";

function sourceOf(field: Field | string | number): string {
  if (typeof field === "string" || typeof field === "number")
    return String(field).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  if (isInt(field)) return `0|[1-9]\\d{0,${field.digits - 1}}`;
  return field.source;
}

/**
 * A codec "prefix:field:field". Fields are packed in alphabetical order of their names (the order buttons
 * already in chats were drawn with). `filter()` is anchored and exact; `parse()` returns undefined for anything
 * that is not ours or is malformed; `unpack()` throws for the same (use it after a `filter()` matched).
 */
export function defineCallbackData<T extends Schema>(prefix: string, schema: T) {
  const names = Object.keys(schema).sort() as (keyof T & string)[];
  const compile = (clause: Clause<T> = {}) =>
    new RegExp(
      `^${[prefix, ...names.map((name) => `(${sourceOf(clause[name] ?? schema[name]!)})`)].join(":")}$`,
    );
  const strict = compile();

  function parse(data: string | undefined): Values<T> | undefined {
    if (data === undefined || Buffer.byteLength(data, "utf8") > CALLBACK_DATA_MAX_BYTES) return undefined;
    const match = strict.exec(data);
    if (!match) return undefined;
    const values: Record<string, string | number> = {};
    names.forEach((name, index) => {
      const raw = match[index + 1]!;
      values[name] = isInt(schema[name]!) ? Number(raw) : raw;
    });
    return values as Values<T>;
  }

  return {
    pack(data: Values<T>): string {
      const packed = [prefix, ...names.map((name) => String(data[name]))].join(":");
      if (Buffer.byteLength(packed, "utf8") > CALLBACK_DATA_MAX_BYTES)
        throw new CallbackDataTooLongError(packed);
      if (!strict.test(packed))
        throw new RangeError(`callback data does not fit its schema: ${packed.slice(0, 24)}`);
      return packed;
    },
    /** pack(), or undefined when a value (say, an id someone typed) does not fit its field. */
    tryPack(data: Values<T>): string | undefined {
      const packed = [prefix, ...names.map((name) => String(data[name]))].join(":");
      return Buffer.byteLength(packed, "utf8") <= CALLBACK_DATA_MAX_BYTES && strict.test(packed)
        ? packed
        : undefined;
    },
    parse,
    unpack(data: string): Values<T> {
      const values = parse(data);
      if (!values) throw new RangeError(`malformed callback data for "${prefix}"`);
      return values;
    },
    /** An anchored pattern for bot.callbackQuery(): fixed values where the clause gives them (a string, or a narrower field). */
    filter(clause?: Clause<T>): RegExp {
      return clause ? compile(clause) : strict;
    },
  };
}
