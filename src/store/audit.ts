import type { Redis } from "ioredis";
import { keys } from "./keys.ts";

/** Append-only audit trail (admin actions, withdrawals, approvals) in a capped Redis stream. */
interface AuditEntry {
  actor: number | "system";
  action: string;
  /** Already masked; never raw account numbers, phones or secrets. */
  details?: Record<string, string | number | boolean | undefined>;
}

export class AuditLog {
  constructor(
    private readonly redis: Redis,
    private readonly maxLength = 10_000,
  ) {}

  async record(entry: AuditEntry): Promise<string> {
    const fields = [
      "actor",
      String(entry.actor),
      "action",
      entry.action,
      "details",
      JSON.stringify(entry.details ?? {}),
    ];
    const id = await this.redis.xadd(keys.audit(), "MAXLEN", "~", String(this.maxLength), "*", ...fields);
    return id ?? "";
  }

  async recent(count = 20): Promise<Array<AuditEntry & { id: string; at: string }>> {
    const rows = await this.redis.xrevrange(keys.audit(), "+", "-", "COUNT", count);
    return rows.map(([id, fields]) => {
      const map = new Map<string, string>();
      for (let index = 0; index + 1 < fields.length; index += 2) map.set(fields[index]!, fields[index + 1]!);
      const actor = map.get("actor") ?? "system";
      return {
        id,
        at: new Date(Number(id.split("-")[0])).toISOString(),
        actor: actor === "system" ? "system" : Number(actor),
        action: map.get("action") ?? "",
        details: JSON.parse(map.get("details") ?? "{}"),
      };
    });
  }
}
