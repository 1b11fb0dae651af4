import type { Message, Update, User } from "grammy/types";
import {
  ActorChatDriver,
  type ButtonSelector,
  type PressedButton,
  type SendOptions,
} from "./actor-driver.ts";
import type { InlineAnswer } from "./inline.ts";
import type { MemberStatus } from "./types.ts";
import { UserDriver } from "./user-driver.ts";

type Actor = UserDriver | User;
const userOf = (actor: Actor): User => (actor instanceof UserDriver ? actor.user : actor);

/** A group chat with members; the bot sees messages as Telegram's privacy mode allows. */
export class GroupDriver extends ActorChatDriver {
  addMember(actor: Actor, status: MemberStatus = "member"): this {
    const user = userOf(actor);
    this.host.world.ensureUser(user);
    this.state.members.set(user.id, status);
    return this;
  }

  removeMember(actor: Actor): this {
    this.state.members.set(userOf(actor).id, "left");
    return this;
  }

  memberStatus(actor: Actor): MemberStatus {
    return this.state.members.get(userOf(actor).id) ?? "left";
  }

  /** With privacy mode on (the default) a non-admin bot only sees commands and replies to its messages. */
  setPrivacyMode(enabled: boolean): this {
    this.state.privacyMode = enabled;
    return this;
  }

  /** Changes the bot's own status here and tells the bot with a my_chat_member update. */
  setBotStatus(status: MemberStatus, by?: Actor): void {
    const { world } = this.host;
    this.pushMemberChange("my_chat_member", world.bot, status, by ? userOf(by) : world.bot);
  }

  /**
   * Promotes, demotes, restricts or removes a member (`by`: who did it, else the member themselves) and, as on
   * Telegram, tells the bot with a chat_member update only when the bot is an administrator here (and asked for
   * chat_member in allowed_updates).
   */
  setMemberStatus(actor: Actor, status: MemberStatus, by?: Actor): void {
    const user = userOf(actor);
    this.host.world.ensureUser(user);
    const botStatus = this.state.members.get(this.host.world.bot.id);
    if (botStatus === "administrator" || botStatus === "creator")
      this.pushMemberChange("chat_member", user, status, by ? userOf(by) : user);
    else this.state.members.set(user.id, status);
  }

  private pushMemberChange(
    kind: "my_chat_member" | "chat_member",
    user: User,
    status: MemberStatus,
    from: User,
  ): void {
    const { world, updates } = this.host;
    const old = this.state.members.get(user.id) ?? "left";
    this.state.members.set(user.id, status);
    const member = (value: MemberStatus) => ({
      status: value,
      user,
      ...(value === "kicked" ? { until_date: 0 } : {}),
    });
    updates.push({
      [kind]: {
        chat: this.state.chat,
        from,
        date: world.unixTime(),
        old_chat_member: member(old),
        new_chat_member: member(status),
      },
    } as Omit<Update, "update_id">);
  }

  /** A member writes in the group; resolves to the message (even when privacy mode hides it from the bot). */
  async send(from: Actor, text: string, options: SendOptions = {}): Promise<Message> {
    const user = userOf(from);
    const status = this.state.members.get(user.id);
    if (!status || status === "left" || status === "kicked")
      throw new Error(`${user.first_name} is not a member of ${this.label()}; call addMember() first.`);
    return this.postUserMessage(user, text, options, this.botSees(text, options));
  }

  async press(from: Actor, message: Message | number, selector: ButtonSelector): Promise<PressedButton> {
    return this.pressAs(userOf(from), message, selector);
  }

  /** `from` sends any callback data from a button of `message` (a forged or outdated button). */
  async pressData(from: Actor, message: Message | number, data: string): Promise<PressedButton> {
    return this.forgeAs(userOf(from), message, data);
  }

  /** `from` picks an inline result and sends it into this group. */
  async sendInlineResult(from: Actor, answer: InlineAnswer, resultId: string): Promise<Message> {
    return this.postInlineResult(userOf(from), answer, resultId);
  }

  protected override seesEverything(): boolean {
    const status = this.state.members.get(this.host.world.bot.id);
    if (!status || status === "left" || status === "kicked") return false;
    return !this.state.privacyMode || status === "administrator" || status === "creator";
  }

  private botSees(text: string, options: SendOptions): boolean {
    const { world } = this.host;
    const botStatus = this.state.members.get(world.bot.id);
    if (!botStatus || botStatus === "left" || botStatus === "kicked") return false;
    if (!this.state.privacyMode || botStatus === "administrator" || botStatus === "creator") return true;
    const replyId = typeof options.replyTo === "number" ? options.replyTo : options.replyTo?.message_id;
    if (replyId !== undefined && this.state.messages.get(replyId)?.from?.id === world.bot.id) return true;
    const command = /^\/[a-zA-Z0-9_]{1,32}(?:@([a-zA-Z0-9_]{3,32}))?(?=$|\s)/.exec(text);
    if (!command) return false;
    const addressee = command[1];
    return addressee === undefined || addressee.toLowerCase() === world.bot.username?.toLowerCase();
  }
}
