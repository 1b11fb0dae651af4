#!/usr/bin/env bash
# Restore a backup made by backup.sh into a Redis data directory, with the bot and Redis stopped
# (docs/production.md, "Backups"):
#
#   deploy/redis/restore.sh BACKUP.rdb DATA_DIR
#
# Production Redis runs with AOF on, and a Redis with AOF on loads only its AOF at start: an RDB file copied into
# its directory would be ignored. So this script loads the backup into a temporary redis-server on DATA_DIR (AOF
# off, no TCP port, a unix socket only), turns AOF on there — Redis then writes a fresh AOF from what it loaded —
# waits until that AOF is complete, and stops it. The normal server, started afterwards on DATA_DIR, loads the
# restored data from that AOF. What DATA_DIR held before is kept in DATA_DIR/before-restore-<time>/.
set -euo pipefail

backup="${1:?usage: restore.sh BACKUP.rdb DATA_DIR}"
data="${2:?usage: restore.sh BACKUP.rdb DATA_DIR}"
[ -f "$backup" ] || { echo "restore: no file $backup" >&2; exit 1; }
mkdir -p "$data"
if command -v redis-check-rdb >/dev/null 2>&1; then
  redis-check-rdb "$backup" >/dev/null || { echo "restore: $backup is not a valid RDB file" >&2; exit 1; }
fi

socket="$data/restore.sock"
if redis-cli -s "$socket" ping >/dev/null 2>&1; then
  echo "restore: a redis-server already answers on $socket" >&2
  exit 1
fi
aside="$data/before-restore-$(date -u +%Y%m%dT%H%M%SZ)"
for name in dump.rdb appendonlydir appendonly.aof; do
  if [ -e "$data/$name" ]; then mkdir -p "$aside" && mv "$data/$name" "$aside/"; fi
done
cp "$backup" "$data/dump.rdb"

redis-server --dir "$data" --dbfilename dump.rdb --appendonly no --save "" --port 0 \
  --unixsocket "$socket" --unixsocketperm 700 --daemonize no --logfile "$data/restore.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT

cli() { redis-cli -s "$socket" "$@"; }
info() { cli info persistence | tr -d '\r' | sed -n "s/^$1://p"; }
for _ in $(seq 1 300); do
  if [ "$(cli ping 2>/dev/null)" = "PONG" ] && [ "$(info loading)" = "0" ]; then break; fi
  sleep 0.1
done
[ "$(cli ping 2>/dev/null)" = "PONG" ] || { echo "restore: redis-server did not load $backup (see $data/restore.log)" >&2; exit 1; }
keyspace="$(cli info keyspace | tr -d '\r' | grep '^db' | tr '\n' ' ')"

cli config set appendonly yes >/dev/null
for _ in $(seq 1 600); do
  if [ "$(info aof_enabled)" = "1" ] && [ "$(info aof_rewrite_in_progress)" = "0" ] &&
    [ "$(info aof_rewrite_scheduled)" = "0" ]; then break; fi
  sleep 0.1
done
[ "$(info aof_last_bgrewrite_status)" = "ok" ] && [ "$(info aof_enabled)" = "1" ] ||
  { echo "restore: the AOF was not written (see $data/restore.log)" >&2; exit 1; }
cli shutdown save >/dev/null 2>&1 || true
wait "$server" || true
trap - EXIT
rm -f "$data/restore.log"
echo "restore: ${keyspace:-no keys }loaded into $data (AOF and RDB)"
if [ -d "$aside" ]; then echo "restore: what $data held before is in $aside"; fi
