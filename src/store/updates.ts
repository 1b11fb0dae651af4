import type { Redis } from "ioredis";
import type { HeldWrite, HeldWrites } from "./held-writes.ts";
import { keys } from "./keys.ts";
import type { LuaScript } from "./script.ts";
import type { FirstReads, FirstReadsAnswer, UpdateReads } from "./update-reads.ts";
import {
  ACK,
  ACQUIRE,
  RECORD,
  RECORD_AND_ACQUIRE,
  RELEASE,
  REMOVE,
  RENEW,
  recordAcquireAndRead,
  SEEN_TTL_SECONDS,
} from "./update-scripts.ts";

/**
 * The durable Telegram update inbox (src/updates drives it). An update is recorded once per update_id (a marker
 * kept for a day, Telegram's own retention), queued on its chat's list in arrival order, and leaves the list only
 * when the holder of the chat's lease acknowledges it. One lease per chat across every process: whoever holds it
 * handles that chat's updates one at a time. A lease names its owner (a ProcessRegistry id) and carries a fencing
 * token; a lease whose owner's heartbeat (`process:<id>`, store/processes.ts) has lapsed (the process died) can be
 * taken over at once, and one that was never released expires after `leaseMs` (a live but stuck holder). Only the
 * current token can acknowledge.
 *
 * List entries are "<update_id>\n<update JSON>" so the scripts can read the id without a JSON parser (the Lua of
 * ioredis-mock, local mode's Redis stand-in, has no cjson).
 */

/** A chat's head update handed to the lease holder. */
export interface Claim {
  chat: string;
  /** The fencing token of the lease (increases with every grant, across all chats). */
  token: number;
  updateId: number;
  /** The update's JSON as recorded. */
  json: string;
  /** How many times this update has been handed out, this time included. */
  attempt: number;
  /** Its first reads, made with the record-and-acquire that granted it (`withFirstReads` hands them to the update). */
  firstReads?: FirstReadsAnswer;
}

function inboxEntry(updateId: number, json: string): string {
  return `${updateId}\n${json}`;
}

function parseEntry(entry: string): { updateId: number; json: string } {
  const cut = entry.indexOf("\n");
  return { updateId: Number(entry.slice(0, cut)), json: entry.slice(cut + 1) };
}

export class UpdateRepository {
  /** The heartbeat key prefix as the server sees it (the script builds the lease owner's key from it). */
  private readonly alivePrefix: string;

  /** RECORD_AND_ACQUIRE with the first reads, for the read-ahead count of `reads`. */
  private readonly recordAcquireAndRead: LuaScript | undefined;

  constructor(
    private readonly redis: Redis,
    /** The chat-state writes (session, conversation) committed with an acknowledgement. */
    private readonly held: HeldWrites,
    private readonly leaseMs = 120_000,
    /** The per-update read cache: with it, an update started at once gets its first reads with its lease. */
    private readonly reads?: UpdateReads,
  ) {
    this.alivePrefix = `${redis.options.keyPrefix ?? ""}${keys.process("")}`;
    this.recordAcquireAndRead = reads ? recordAcquireAndRead(reads.readAheadCount) : undefined;
  }

  /** Durably queue an update on its chat; false when this update_id was already recorded (a redelivery). */
  async record(chat: string, updateId: number, json: string): Promise<boolean> {
    const recorded = await RECORD.run(
      this.redis,
      [keys.updateSeen(updateId), keys.updateQueue(chat), keys.updatesReady()],
      [inboxEntry(updateId, json), chat, SEEN_TTL_SECONDS],
    );
    return recorded === 1;
  }

  /**
   * `record`, then `acquire` for `owner` in the same round trip: `claim` is the chat's head update (this one, or one
   * queued before it) when the lease was free; none when the update was already recorded or a live process (this
   * one included) holds the lease. With `firstReads` (UpdateReads.plan of this update), a claim of this very update
   * carries them, made in the same script under the lease just granted (the conversation state read right after it,
   * in the same write).
   */
  async recordAndAcquire(
    chat: string,
    updateId: number,
    json: string,
    owner: string,
    firstReads?: FirstReads,
  ): Promise<{ fresh: boolean; claim?: Claim }> {
    const inboxKeys = [
      keys.updateSeen(updateId),
      keys.updateQueue(chat),
      keys.updatesReady(),
      keys.updateLease(chat),
      keys.updateFence(),
      keys.updateTries(),
    ];
    const inboxArgs = [
      inboxEntry(updateId, json),
      chat,
      SEEN_TTL_SECONDS,
      owner,
      this.leaseMs,
      this.alivePrefix,
    ];
    let answer: [number, number?, string?, number?, ...FirstReadsAnswer["values"]];
    let conversation: Buffer | null = null;
    if (firstReads && this.recordAcquireAndRead) {
      let reply: unknown;
      [reply, conversation] = await this.recordAcquireAndRead.runThenGetBuffer(
        this.redis,
        [...inboxKeys, ...firstReads.keys],
        [...inboxArgs, ...firstReads.args],
        firstReads.conversationKey,
      );
      answer = reply as typeof answer;
    } else {
      answer = (await RECORD_AND_ACQUIRE.run(this.redis, inboxKeys, inboxArgs)) as typeof answer;
    }
    const [recorded, token, entry, attempt, ...values] = answer;
    if (recorded !== 1) return { fresh: false };
    if (!token || token <= 0 || entry === undefined) return { fresh: true };
    const claim: Claim = { chat, token: Number(token), ...parseEntry(entry), attempt: Number(attempt) };
    if (firstReads && values.length > 0) {
      claim.firstReads = { reads: firstReads, values: values as FirstReadsAnswer["values"], conversation };
    }
    return { fresh: true, claim };
  }

  /** Take the chat's lease and its head update; undefined when another live process holds it or nothing waits. */
  async acquire(chat: string, owner: string): Promise<Claim | undefined> {
    const answer = (await ACQUIRE.run(
      this.redis,
      [
        keys.updateLease(chat),
        keys.updateQueue(chat),
        keys.updatesReady(),
        keys.updateFence(),
        keys.updateTries(),
      ],
      [owner, this.leaseMs, this.alivePrefix, chat],
    )) as [number, string?, number?];
    const [token, entry, attempt] = answer;
    if (token <= 0 || entry === undefined) return undefined;
    return { chat, token: Number(token), ...parseEntry(entry), attempt: Number(attempt) };
  }

  /**
   * Handle an update (`handle`) holding the chat-state writes it makes, for `ack` to commit. Rejects, with nothing
   * to commit, when `handle` does.
   */
  holdingStateWrites(handle: () => Promise<unknown>): Promise<HeldWrite[]> {
    return this.held.collect(handle);
  }

  /**
   * Handle `claim`'s update with the first reads its claim carries, if any (UpdateReads.withAnswer): once, as they
   * were when it was granted (handling the claim again reads Redis).
   */
  withFirstReads<T>(claim: Claim, handle: () => Promise<T>): Promise<T> {
    const answer = claim.firstReads;
    claim.firstReads = undefined;
    return this.reads ? this.reads.withAnswer(answer, handle) : handle();
  }

  /**
   * Acknowledge the claimed update (it leaves the inbox), commit the chat state its handling wrote (`writes`, from
   * `holdingStateWrites`) and get the chat's next update under the same lease, in one script. `undefined` next: the
   * chat is drained and the lease released. Throws StaleLeaseError when the lease was taken over meanwhile: nothing
   * is acknowledged or written (the new holder handles the update again, from the state it started from).
   */
  async ack(claim: Claim, owner: string, writes: readonly HeldWrite[] = []): Promise<Claim | undefined> {
    const stateKeys: string[] = [];
    const stateArgs: (string | Buffer | number)[] = [];
    for (const write of writes) {
      stateKeys.push(write.key);
      stateArgs.push(write.value === null ? -1 : write.ttlSeconds, write.value ?? "");
    }
    const answer = (await ACK.run(
      this.redis,
      [
        keys.updateLease(claim.chat),
        keys.updateQueue(claim.chat),
        keys.updatesReady(),
        keys.updateTries(),
        keys.updateCalls(claim.updateId),
        ...stateKeys,
      ],
      [`${owner}|${claim.token}`, String(claim.updateId), claim.chat, this.leaseMs, ...stateArgs],
    )) as [number, string?, number?];
    const [ok, entry, attempt] = answer;
    if (ok !== 1) throw new StaleLeaseError(claim.chat, claim.token);
    if (entry === undefined) return undefined;
    return { chat: claim.chat, token: claim.token, ...parseEntry(entry), attempt: Number(attempt) };
  }

  /** Extend our lease while a long handler runs; false when it is no longer ours. */
  async renew(claim: Claim, owner: string): Promise<boolean> {
    return (
      (await RENEW.run(
        this.redis,
        [keys.updateLease(claim.chat)],
        [`${owner}|${claim.token}`, this.leaseMs],
      )) === 1
    );
  }

  /** Give the lease back without acknowledging (shutdown, or a handler failure to retry later). */
  async release(claim: Claim, owner: string): Promise<void> {
    await RELEASE.run(this.redis, [keys.updateLease(claim.chat)], [`${owner}|${claim.token}`]);
  }

  /** Without leases (UPDATE_LEASE=off): drop one handled update from its chat's list. */
  async remove(chat: string, updateId: number, json: string): Promise<void> {
    await REMOVE.run(
      this.redis,
      [keys.updateQueue(chat), keys.updatesReady(), keys.updateTries(), keys.updateCalls(updateId)],
      [inboxEntry(updateId, json), chat, String(updateId)],
    );
  }

  /** Chats with queued updates (the orphan sweep; small: a chat leaves the set when drained). */
  readyChats(): Promise<string[]> {
    return this.redis.smembers(keys.updatesReady());
  }

  /** The Telegram calls recorded while handling `updateId` (sequence number → recorded answer). */
  async recordedCalls(updateId: number): Promise<Map<number, string>> {
    const all = await this.redis.hgetall(keys.updateCalls(updateId));
    return new Map(Object.entries(all).map(([seq, value]) => [Number(seq), value]));
  }

  /** Keep one call's answer until the update is acknowledged (or a day, if it never is). */
  async recordCall(updateId: number, seq: number, answer: string, first: boolean): Promise<void> {
    const key = keys.updateCalls(updateId);
    // The lifetime is set with an attempt's first record; acknowledging the update deletes the hash anyway. One
    // round trip without MULTI: both commands leave in one write, and nothing reads the hash between them.
    if (first)
      await this.redis.pipeline().hset(key, String(seq), answer).expire(key, SEEN_TTL_SECONDS).exec();
    else await this.redis.hset(key, String(seq), answer);
  }

  /** Queued updates of one chat (tests, diagnostics). */
  async queued(chat: string): Promise<number> {
    return this.redis.llen(keys.updateQueue(chat));
  }
}

export class StaleLeaseError extends Error {
  constructor(
    readonly chat: string,
    readonly token: number,
  ) {
    super(`the lease of chat ${chat} (token ${token}) is no longer held`);
    this.name = "StaleLeaseError";
  }
}
