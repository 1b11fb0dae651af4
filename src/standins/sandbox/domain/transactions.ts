import type { Core } from "#src/standins/sandbox/core.js";
import * as ids from "#src/standins/sandbox/ids.js";
import type { TransactionRecord } from "./state.ts";

type NewTransaction = Omit<
  TransactionRecord,
  "id" | "metadataId" | "ref" | "walletId" | "createdAt" | "updatedAt"
>;

/** Create and store a transaction in the wallet of its currency. */
export function addTransaction(core: Core, fields: NewTransaction): TransactionRecord {
  const now = core.clock.now();
  const tx: TransactionRecord = {
    id: ids.uuid(),
    metadataId: ids.uuid(),
    ref: ids.transactionRef(),
    walletId: core.state.account.wallets[fields.currency].id,
    createdAt: now,
    updatedAt: now,
    ...fields,
  };
  core.state.transactions.push(tx);
  return tx;
}

/** GET /transaction: by id, orderId or hash; the latest match wins (notes §7). */
export function findTransaction(
  core: Core,
  by: { id?: string; orderId?: string; hash?: string },
): TransactionRecord | undefined {
  const list = core.state.transactions;
  for (let index = list.length - 1; index >= 0; index -= 1) {
    const tx = list[index];
    if (!tx) continue;
    if (by.id !== undefined && tx.id !== by.id) continue;
    if (by.orderId !== undefined && tx.orderId !== by.orderId) continue;
    if (by.hash !== undefined && tx.hash !== by.hash) continue;
    return tx;
  }
  return undefined;
}
