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
});
