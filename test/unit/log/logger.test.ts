import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { createLogger } from "#src/log/logger.js";
import { maskDigits, scrubText } from "#src/log/mask.js";

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      lines.push(chunk.toString());
      callback();
    },
  });
  return { lines, logger: createLogger({ level: "info", pretty: false, destination }) };
}

describe("masking", () => {
  it("keeps only the last four digits", () => {
    expect(maskDigits("0123456789")).toBe("******6789");
    expect(maskDigits("+254712345678")).toBe("+********5678");
    expect(maskDigits("123")).toBe("***");
  });

  it("scrubs bot tokens and long numbers from free text", () => {
    const text = "GET https://api.telegram.org/bot123456:ABCdefGHIjklMNOpqrSTUvwx/getMe for 0123456789";
    const scrubbed = scrubText(text);
    expect(scrubbed).not.toContain("ABCdefGHIjklMNOpqrSTUvwx");
    expect(scrubbed).not.toContain("0123456789");
    expect(scrubbed).toContain("******6789");
  });
});

describe("logger redaction", () => {
  it("never writes API keys, secrets, full account numbers or phone numbers", () => {
    const { lines, logger } = capture();
    logger.info(
      {
        apiKey: "key-abcdef",
        webhook: { secret: "whsec-123" },
        beneficiary: { bankAccountNumber: "0123456789", bankName: "GTBANK PLC" },
        identifiers: { phoneNumber: "+254712345678" },
        headers: { "x-api-key": "key-abcdef" },
      },
      "quote requested",
    );
    const out = lines.join("");
    expect(out).toContain("quote requested");
    expect(out).toContain("GTBANK PLC");
    for (const leaked of ["key-abcdef", "whsec-123", "0123456789", "+254712345678"])
      expect(out).not.toContain(leaked);
    expect(out).toContain("******6789");
    expect(out).toContain("+********5678");
  });

  it("scrubs tokens inside error messages", () => {
    const { lines, logger } = capture();
    logger.error({ err: new Error("fetch failed for /bot123:AAAAAAAAAAAAAAAAAAAAAAAA/sendMessage") }, "boom");
    expect(lines.join("")).not.toContain("AAAAAAAAAAAAAAAAAAAAAAAA");
  });

  it("logs an error by what explains it, never the update context a grammY BotError carries", () => {
    const { lines, logger } = capture();
    const inner = Object.assign(
      new Error("Call to 'sendMessage' failed! (400: Bad Request: chat not found)"),
      {
        method: "sendMessage",
        error_code: 400,
        payload: { chat_id: 1, text: "account 0123456789" },
      },
    );
    const botError = Object.assign(new Error("Error in middleware: chat not found"), {
      error: inner,
      ctx: { message: { text: "my account is 0123456789, pin 4321" }, session: { secret: "s" } },
    });
    logger.error({ err: botError }, "update handler failed");
    const [line] = lines;
    const logged = JSON.parse(line ?? "{}") as { err: Record<string, unknown> };
    expect(logged.err).toMatchObject({
      message: "Error in middleware: chat not found",
      cause: { method: "sendMessage", error_code: 400 },
    });
    expect(line).not.toContain("ctx");
    expect(line).not.toContain("payload");
    expect(line).not.toContain("0123456789");
    expect(line).not.toContain("pin 4321");
  });

  it("masks fields down to the sixth level, in arrays too, and leaves the caller's objects as they were", () => {
    const { lines, logger } = capture();
    const fields = {
      token: "123456:ABCDEF",
      order: { beneficiary: { identifiers: { phoneNumber: "+254712345678", network: "Safaricom" } } },
      recipients: [{ bankAccountNumber: "0123456789" }, { tillNumber: 5_123_456 }],
      headers: { authorization: "Bearer abc.def" },
      config: { webhook: { signing: { secret: { value: "whsec-deep" } } } },
      a: { b: { c: { d: { e: { phone: "+2348012345678" } } } } },
    };
    const before = structuredClone(fields);
    logger.info(fields, "deep fields");
    const logged = JSON.parse(lines[0] ?? "{}") as typeof fields & { msg: string };
    expect(logged.msg).toBe("deep fields");
    expect(logged.token).toBe("[redacted]");
    expect(logged.order.beneficiary.identifiers).toEqual({
      phoneNumber: "+********5678",
      network: "Safaricom",
    });
    expect(logged.recipients).toEqual([{ bankAccountNumber: "******6789" }, { tillNumber: "***3456" }]);
    expect(logged.headers.authorization).toBe("[redacted]");
    // A secret key is masked whole, whatever it holds.
    expect(logged.config.webhook.signing.secret).toBe("[unset]");
    expect(logged.a.b.c.d.e.phone).toBe("+*********5678");
    expect(fields).toEqual(before);
  });

  it("masks a child logger's bindings, and its children's", () => {
    const { lines, logger } = capture();
    const child = logger.child({ module: "feed", apiKey: "key-abcdef" });
    child.child({ beneficiary: { accountNumber: "0123456789" } }).warn("from a grandchild");
    const line = lines[0] ?? "";
    expect(line).toContain('"module":"feed"');
    expect(line).toContain("from a grandchild");
    expect(line).not.toContain("key-abcdef");
    expect(line).not.toContain("0123456789");
    expect(line).toContain("******6789");
  });
});
