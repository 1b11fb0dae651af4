import { PAYOUT_WEBHOOK_PATH } from "#src/http/server.js";
import type { Logger } from "#src/log/logger.js";

/** What registration needs from the payout API client (PayoutApi satisfies it). */
interface WebhookRegistrationApi {
  getUser(): Promise<{
    account?: { webhook?: { url?: string; secret?: string; isActive?: boolean } | undefined };
  }>;
  registerWebhook(input: { url: string; secret: string }): Promise<unknown>;
  updateWebhook(input: { url: string; secret: string }): Promise<unknown>;
}

type RegistrationAction = "registered" | "updated" | "unchanged";

/**
 * Make the account's webhook point at this deployment: `${publicUrl}/webhooks/payout` with our secret.
 * POST /webhook/register when the account has none, PUT /webhook when the URL, the secret or the active flag
 * differs, nothing otherwise (so restarts do not trigger test pings).
 */
export async function ensureWebhookRegistered(input: {
  api: WebhookRegistrationApi;
  publicUrl: string;
  secret: string;
  logger?: Logger;
}): Promise<{ action: RegistrationAction; url: string }> {
  const url = `${input.publicUrl.replace(/\/+$/, "")}${PAYOUT_WEBHOOK_PATH}`;
  const user = await input.api.getUser();
  const current = user.account?.webhook;
  let action: RegistrationAction = "unchanged";
  if (!current?.url) {
    await input.api.registerWebhook({ url, secret: input.secret });
    action = "registered";
  } else if (
    current.url !== url ||
    current.isActive === false ||
    (current.secret !== undefined && current.secret !== input.secret)
  ) {
    await input.api.updateWebhook({ url, secret: input.secret });
    action = "updated";
  }
  input.logger?.info({ action, url }, "payout webhook registration");
  return { action, url };
}
