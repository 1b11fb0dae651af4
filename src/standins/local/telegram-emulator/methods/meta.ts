import type { BotCommand, BotCommandScope, ChatMember, User } from "grammy/types";
import { badRequest, QUERY_TOO_OLD } from "#src/standins/local/telegram-emulator/errors.js";
import type { Params } from "#src/standins/local/telegram-emulator/params.js";
import type { MemberStatus } from "#src/standins/local/telegram-emulator/types.js";
import type { ChatState, MenuButton, World } from "#src/standins/local/telegram-emulator/world.js";
import type { Handler } from "./context.ts";

const getMe: Handler = (_params, { world }) => ({
  ...world.bot,
  can_join_groups: true,
  can_read_all_group_messages: false,
  supports_inline_queries: true,
  can_connect_to_business: false,
  has_main_web_app: false,
});

const answerCallbackQuery: Handler = (params, { world, callbackAnswerTimeoutMs }) => {
  const id = params.string("callback_query_id", "query ID is empty");
  const query = world.queries.get(id);
  const now = world.now();
  if (!query || query.answered || now - query.createdAt > callbackAnswerTimeoutMs)
    throw badRequest(QUERY_TOO_OLD);
  const text = params.optString("text");
  if (text !== undefined && text.length > 200) throw badRequest("MESSAGE_TOO_LONG");
  query.answered = true;
  const state = world.chats.get(query.chatId);
  const answer = {
    queryId: id,
    fromId: query.fromId,
    chatId: query.chatId,
    messageId: query.messageId,
    data: query.data,
    text: text === "" ? undefined : text,
    showAlert: params.bool("show_alert"),
    url: params.optString("url"),
    cacheTime: params.optInt("cache_time"),
    latencyMs: now - query.createdAt,
  };
  if (state) world.emit(state, { kind: "callback_answer", answer });
  return true;
};

// --- Commands: stored per scope + language_code, resolved like Telegram clients do.

function scopeKey(world: World, params: Params): string {
  const scope = params.json<BotCommandScope>("scope") ?? { type: "default" };
  const language = params.optString("language_code") ?? "";
  if (language !== "" && !/^[a-z]{2}$/.test(language)) throw badRequest("invalid language code specified");
  const chatId =
    "chat_id" in scope && scope.chat_id !== undefined
      ? world.findChat(
          typeof scope.chat_id === "string" && /^-?\d+$/.test(scope.chat_id)
            ? Number(scope.chat_id)
            : scope.chat_id,
        ).chat.id
      : "";
  const userId = "user_id" in scope ? scope.user_id : "";
  const types = [
    "default",
    "all_private_chats",
    "all_group_chats",
    "all_chat_administrators",
    "chat",
    "chat_administrators",
    "chat_member",
  ];
  if (!types.includes(scope.type)) throw badRequest("unsupported scope type");
  return commandKey(scope.type, chatId, userId, language);
}

function commandKey(type: string, chatId: number | "", userId: number | "", language: string): string {
  return `${type}:${chatId}:${userId}|${language}`;
}

const setMyCommands: Handler = (params, { world }) => {
  const commands = params.json<BotCommand[]>("commands");
  if (!Array.isArray(commands)) throw badRequest("commands is empty");
  if (commands.length > 100) throw badRequest("too many commands specified");
  for (const command of commands) {
    if (typeof command?.command !== "string" || !/^[a-z0-9_]{1,32}$/.test(command.command))
      throw badRequest("BOT_COMMAND_INVALID");
    if (
      typeof command.description !== "string" ||
      command.description.length < 1 ||
      command.description.length > 256
    )
      throw badRequest("command description must be non-empty");
  }
  const key = scopeKey(world, params);
  const list = commands.map(({ command, description }) => ({ command, description }));
  if (list.length === 0) world.commands.delete(key);
  else world.commands.set(key, list);
  return true;
};

const getMyCommands: Handler = (params, { world }) => world.commands.get(scopeKey(world, params)) ?? [];

const deleteMyCommands: Handler = (params, { world }) => {
  world.commands.delete(scopeKey(world, params));
  return true;
};

/** The command menu a Telegram client shows this user in this chat (scope and language fallbacks applied). */
export function resolveCommandMenu(
  world: World,
  userId: number,
  chatId: number,
  language: string,
): BotCommand[] {
  const state = world.chats.get(chatId);
  const isPrivate = !state || state.chat.type === "private";
  const isAdmin = !isPrivate && ["creator", "administrator"].includes(state!.members.get(userId) ?? "");
  const scopes: [string, number | "", number | ""][] = isPrivate
    ? [
        ["chat", chatId, ""],
        ["all_private_chats", "", ""],
        ["default", "", ""],
      ]
    : [
        ["chat_member", chatId, userId],
        ...(isAdmin ? ([["chat_administrators", chatId, ""]] as [string, number, ""][]) : []),
        ["chat", chatId, ""],
        ...(isAdmin ? ([["all_chat_administrators", "", ""]] as [string, "", ""][]) : []),
        ["all_group_chats", "", ""],
        ["default", "", ""],
      ];
  for (const [type, chat, user] of scopes)
    for (const lang of language ? [language, ""] : [""]) {
      const list = world.commands.get(commandKey(type, chat, user, lang));
      if (list) return list;
    }
  return [];
}

// --- Descriptions and names, stored per language.

function textSetter(kind: string, field: string, max: number): Handler {
  return (params, { world }) => {
    const value = params.optString(field) ?? "";
    if (value.length > max) throw badRequest(`${kind} is too long`);
    world.texts.set(`${kind}|${params.optString("language_code") ?? ""}`, value);
    return true;
  };
}

function textGetter(kind: string, field: string): Handler {
  return (params, { world }) => {
    const language = params.optString("language_code") ?? "";
    const value = world.texts.get(`${kind}|${language}`) ?? world.texts.get(`${kind}|`) ?? "";
    return { [field]: kind === "name" && value === "" ? world.bot.first_name : value };
  };
}

// --- Chats and members.

function memberObject(user: User, status: MemberStatus): ChatMember {
  switch (status) {
    case "creator":
      return { status, user, is_anonymous: false };
    case "administrator":
      return {
        status,
        user,
        can_be_edited: false,
        is_anonymous: false,
        can_manage_chat: true,
        can_delete_messages: true,
        can_manage_video_chats: true,
        can_restrict_members: true,
        can_promote_members: false,
        can_change_info: true,
        can_invite_users: true,
        can_post_stories: false,
        can_edit_stories: false,
        can_delete_stories: false,
        can_pin_messages: true,
      } as ChatMember;
    case "kicked":
      return { status, user, until_date: 0 };
    default:
      return { status, user } as ChatMember;
  }
}

function chatFor(params: Params, world: World): ChatState {
  return world.findChat(params.chatId());
}

const getChat: Handler = (params, { world }) => {
  const state = chatFor(params, world);
  return { ...state.chat, accent_color_id: 0, max_reaction_count: 11, accepted_gift_types: {} };
};

const getChatMember: Handler = (params, { world }) => {
  const state = chatFor(params, world);
  const userId = params.int("user_id", "user_id is empty");
  const user = world.userById(userId);
  if (!user) throw badRequest("user not found");
  return memberObject(user, world.chatMember(state, userId));
};

const getChatAdministrators: Handler = (params, { world }) => {
  const state = chatFor(params, world);
  if (state.chat.type === "private") throw badRequest("there are no administrators in the private chat");
  const admins: ChatMember[] = [];
  for (const [userId, status] of state.members) {
    const user = world.userById(userId);
    if (user && (status === "creator" || status === "administrator")) admins.push(memberObject(user, status));
  }
  return admins;
};

const getChatMemberCount: Handler = (params, { world }) => {
  const state = chatFor(params, world);
  if (state.chat.type === "private") return 2;
  return [...state.members.values()].filter((status) => !["left", "kicked"].includes(status)).length;
};

const leaveChat: Handler = (params, { world }) => {
  const state = chatFor(params, world);
  if (state.chat.type === "private") throw badRequest("chat member status can't be changed in private chats");
  state.members.set(world.bot.id, "left");
  return true;
};

const getFile: Handler = (params, { world }) => {
  const file = world.files.get(params.string("file_id", "file_id is empty"));
  if (!file) throw badRequest("invalid file_id");
  return {
    file_id: file.fileId,
    file_unique_id: file.fileUniqueId,
    file_size: file.bytes.length,
    file_path: file.path,
  };
};

const accept: Handler = () => true;

/** As Telegram checks it: a web_app button needs text and an https URL (the Mini App's rule); no chat = the bot's. */
const setChatMenuButton: Handler = (params, { world }) => {
  const button = params.json<MenuButton>("menu_button") ?? { type: "default" };
  if (button.type === "web_app") {
    if (typeof button.text !== "string" || button.text.length < 1 || button.text.length > 64)
      throw badRequest("BUTTON_TEXT_INVALID");
    if (!/^https:\/\//.test(button.web_app?.url ?? "")) throw badRequest("BUTTON_URL_INVALID");
  } else if (button.type !== "commands" && button.type !== "default") {
    throw badRequest("unsupported menu button type");
  }
  const chatId = params.has("chat_id") ? Number(params.chatId()) : 0;
  if (button.type === "default") world.menuButtons.delete(chatId);
  else world.menuButtons.set(chatId, button);
  return true;
};

const getChatMenuButton: Handler = (params, { world }) =>
  world.menuButtons.get(params.has("chat_id") ? Number(params.chatId()) : 0) ??
  world.menuButtons.get(0) ?? { type: "commands" };

export const metaMethods: Record<string, Handler> = {
  getMe,
  answerCallbackQuery,
  setMyCommands,
  getMyCommands,
  deleteMyCommands,
  setMyDescription: textSetter("description", "description", 512),
  getMyDescription: textGetter("description", "description"),
  setMyShortDescription: textSetter("short_description", "short_description", 120),
  getMyShortDescription: textGetter("short_description", "short_description"),
  setMyName: textSetter("name", "name", 64),
  getMyName: textGetter("name", "name"),
  setChatMenuButton,
  getChatMenuButton,
  setMyDefaultAdministratorRights: accept,
  getChat,
  getChatMember,
  getChatAdministrators,
  getChatMemberCount,
  leaveChat,
  getFile,
};
