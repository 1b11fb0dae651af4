#!/usr/bin/env bash
# Copy the bot's Redis to a timestamped RDB file, checked before it is kept (docs/production.md, "Backups").
#
#   deploy/redis/backup.sh [REDIS_URL] [BACKUP_DIR]
#
# REDIS_URL (default redis://127.0.0.1:6379) names the server; a password is best given as REDISCLI_AUTH rather
# than in the URL, which other users of the machine can read in the process list. The snapshot comes over the
# network (`redis-cli --rdb`, what a replica's first sync gets), so this runs anywhere redis-cli does — the host, or
# the redis image next to the server — and needs no access to the server's disk. Keeps the newest KEEP (default 48)
# files in BACKUP_DIR (default ./backups) and prints the path of the new one.
set -euo pipefail

url="${1:-${REDIS_URL:-redis://127.0.0.1:6379}}"
dir="${2:-${BACKUP_DIR:-./backups}}"
keep="${KEEP:-48}"

mkdir -p "$dir"
stamp="$(date -u +%Y%m%dT%H%M%SZ)"
final="$dir/payout-bot-redis-$stamp.rdb"
partial="$final.partial"
trap 'rm -f "$partial"' EXIT

# Its progress lines go to stderr: shown only when it fails.
if ! log="$(redis-cli -u "$url" --no-auth-warning --rdb "$partial" 2>&1)"; then
  echo "backup: redis-cli --rdb failed: $log" >&2
  exit 1
fi
# A truncated or corrupt file is worse than none: it would be found only on the day it is needed.
if command -v redis-check-rdb >/dev/null 2>&1; then
  redis-check-rdb "$partial" >/dev/null
fi
mv "$partial" "$final"

# The newest $keep backups stay; names sort by time.
ls -1 "$dir"/payout-bot-redis-*.rdb | sort | head -n "-$keep" | xargs -r rm -f --
echo "$final"
