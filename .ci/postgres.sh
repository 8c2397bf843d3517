#!/usr/bin/env bash
# Start a throwaway PostgreSQL server on 127.0.0.1 for the store tests and benchmarks.
# Installs Debian's postgresql package when no server binaries are present. Idempotent.
# Prints one line for the caller to eval:  export NEARDUP_TEST_POSTGRES_URL=postgresql://...
#   eval "$(bash .ci/postgres.sh)"
set -euo pipefail
PORT=${NEARDUP_PG_PORT:-55432}
DIR=${NEARDUP_PG_DIR:-/tmp/neardup-pg}
DB=neardup_test

find_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    if [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ]; then echo "$d"; return 0; fi
  done
  return 1
}

BIN=$(find_bin || true)
if [ -z "$BIN" ]; then
  echo "installing postgresql (Debian package)" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends postgresql >&2
  BIN=$(find_bin)
fi
id postgres >/dev/null 2>&1 || useradd --system --create-home postgres
as_pg() { su postgres -s /bin/bash -c "$1"; }

if ! as_pg "$BIN/pg_ctl -D $DIR/data status" >/dev/null 2>&1; then
  rm -rf "$DIR"
  mkdir -p "$DIR"
  chown postgres "$DIR"
  as_pg "$BIN/initdb -D $DIR/data -A trust -U postgres -E UTF8 --locale=C.UTF-8" >"$DIR.initdb.log" 2>&1 \
    || { cat "$DIR.initdb.log" >&2; exit 1; }
  as_pg "$BIN/pg_ctl -D $DIR/data -l $DIR/server.log -w -t 60 \
    -o '-p $PORT -k $DIR -c listen_addresses=127.0.0.1' start" >&2
fi
as_pg "$BIN/psql -h 127.0.0.1 -p $PORT -U postgres -tAc \"SELECT 1 FROM pg_database WHERE datname='$DB'\"" \
  | grep -q 1 || as_pg "$BIN/createdb -h 127.0.0.1 -p $PORT -U postgres $DB" >&2
echo "export NEARDUP_TEST_POSTGRES_URL=postgresql://postgres@127.0.0.1:$PORT/$DB"
