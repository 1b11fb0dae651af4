import { z } from "zod";
import { messageOrObject, opt } from "./common.ts";

/** POST /webhook/register and PUT /webhook `data` (notes 11). */
export const webhookRegistrationSchema = z.looseObject({
  id: opt(z.string()),
  url: z.string(),
  isActive: opt(z.boolean()),
  createdAt: opt(z.string()),
  updatedAt: opt(z.string()),
});
export type WebhookRegistration = z.output<typeof webhookRegistrationSchema>;

export const webhookRequestSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  secret: z.string().min(1),
});
export type WebhookRequest = z.input<typeof webhookRequestSchema>;

/** POST /webhook/test: shape not documented; a message or an object. */
export const webhookTestResultSchema = messageOrObject;
export type WebhookTestResult = z.output<typeof webhookTestResultSchema>;
