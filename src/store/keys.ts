/** Every Redis key the store writes, in one place (docs/architecture.md lists them). */
export const keys = {
  user: (userId: number) => `user:${userId}`,
  usersAll: () => "users:all",
  usersByUsername: () => "users:byusername",
  order: (orderId: string) => `order:${orderId}`,
  orderByHash: (hash: string) => `order:byhash:${hash}`,
  orderByQuote: (quoteId: string) => `order:byquote:${quoteId}`,
  userOrders: (userId: number) => `user:${userId}:orders`,
  ordersOpen: () => "orders:open",
  ordersAll: () => "orders:all",
  recipients: (userId: number) => `user:${userId}:recipients`,
  recipientByToken: (token: string) => `recipient:token:${token}`,
  audit: () => "audit",
  refund: (orderId: string) => `refund:${orderId}`,
  refundsOpen: () => "refunds:open",
  refundByTransaction: (transactionId: string) => `refund:tx:${transactionId}`,
  idempotency: (scope: string, key: string) => `idem:${scope}:${key}`,
} as const;
