/**
 * Rules that tie variables together. They read the raw strings, so they are reported even when another variable
 * failed its own check (zod skips refinements of an object that has errors).
 */
export function crossFieldProblems(env: Record<string, string | undefined>): string[] {
  const value = (name: string) => {
    const raw = env[name]?.trim();
    return raw ? raw : undefined;
  };
  const flag = (name: string) => ["true", "1", "yes"].includes(value(name)?.toLowerCase() ?? "");
  const problems: string[] = [];
  const webhookMode = value("BOT_MODE") === "webhook";
  if (webhookMode && !value("PUBLIC_URL")) problems.push("PUBLIC_URL is required when BOT_MODE=webhook");
  if (webhookMode && !value("BOT_TOKEN")) problems.push("BOT_TOKEN is required when BOT_MODE=webhook");
  if (value("PAYOUT_API_BASE_URL") && !value("PAYOUT_API_KEY")) {
    problems.push("PAYOUT_API_KEY is required when PAYOUT_API_BASE_URL is set");
  }
  if (value("PAYOUT_API_BASE_URL") && !value("PAYOUT_WEBHOOK_SECRET") && !flag("WEBHOOK_ALLOW_UNSIGNED")) {
    problems.push(
      "PAYOUT_WEBHOOK_SECRET is required when PAYOUT_API_BASE_URL is set (webhooks must be signed)",
    );
  }
  const role = value("PROCESS_ROLE");
  const missing = ["REDIS_URL", "BOT_TOKEN", "PAYOUT_API_BASE_URL"].filter((name) => !value(name));
  if ((role === "web" || role === "worker") && missing.length > 0) {
    // Split processes must share one Redis (queues), one bot and one payout API (not a per-process sandbox).
    problems.push(
      `${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} required when PROCESS_ROLE=${role}`,
    );
  }
  if (value("PAYOUT_ENV") === "production") {
    if (!value("PAYOUT_API_BASE_URL")) {
      problems.push(
        "PAYOUT_API_BASE_URL is required when PAYOUT_ENV=production (the embedded sandbox is not for real money)",
      );
    }
    if (!value("REDIS_URL")) {
      problems.push(
        "REDIS_URL is required when PAYOUT_ENV=production (queues and orders must outlive the process)",
      );
    }
    if (flag("WEBHOOK_ALLOW_UNSIGNED"))
      problems.push("WEBHOOK_ALLOW_UNSIGNED must not be true when PAYOUT_ENV=production");
  }
  return problems;
}
