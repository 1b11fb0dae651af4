/**
 * Whose details the recipient steps ask for. Sending money, the user names someone else ("the recipient's phone
 * number"); asking for money (a request), the user is the one who receives and is asked for their own ("your
 * M-Pesa or Airtel Money number"). The screens whose words differ have a requester's version under
 * `request:own.<path>`, at the same path as the sender's `payout:<path>`; every other screen says the same to both.
 */
export type Voice = "sender" | "requester";

type VoicedPath =
  | "country.title"
  | "ng.bank_prompt"
  | "ng.account_prompt"
  | "ng.confirm_name"
  | "ng.enquiry.invalid_account"
  | "ke.method_prompt"
  | "ke.phone_prompt"
  | "ke.network_guess"
  | "ke.name_prompt"
  | "ke.business_prompt"
  | "za.bank_prompt"
  | "za.account_prompt"
  | "za.name_prompt"
  | "gh.phone_prompt"
  | "gh.name_prompt"
  | "button.name_ok"
  | "button.change_recipient";

/** The i18n key of a screen whose words depend on who receives the money. */
export function voiced(voice: Voice, path: VoicedPath): string {
  return voice === "requester" ? `request:own.${path}` : `payout:${path}`;
}
