# Sourced by .ci/run. Installs PostgreSQL from Debian's packages when no server binary is found,
# starts a throwaway cluster on 127.0.0.1 and exports LOOM_TEST_POSTGRES_DSN for the tests.
pg_bin() {
  for d in /usr/lib/postgresql/*/bin /usr/local/bin /usr/bin; do
    [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  done
  return 1
}

postgres_start() {
  local bin
  if ! bin=$(pg_bin); then
    echo "ci: installing PostgreSQL from Debian's packages"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    bin=$(pg_bin) || { echo "ci: PostgreSQL install failed" >&2; return 1; }
  fi
  PG_DATA=$(mktemp -d /tmp/loom-ci-pg.XXXXXX)
  chown -R nobody "$PG_DATA" 2>/dev/null || true
  local port=55432
  local run_as=()
  [ "$(id -u)" = 0 ] && run_as=(runuser -u nobody --)
  "${run_as[@]}" "$bin/initdb" -D "$PG_DATA/data" -U loom --auth=trust >/dev/null
  "${run_as[@]}" "$bin/pg_ctl" -D "$PG_DATA/data" -l "$PG_DATA/log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $PG_DATA -c fsync=off -c max_connections=200" start >/dev/null
  PG_CTL=("${run_as[@]}" "$bin/pg_ctl" -D "$PG_DATA/data")
  export LOOM_TEST_POSTGRES_DSN="postgresql://loom@127.0.0.1:$port/postgres"
  echo "ci: PostgreSQL running at $LOOM_TEST_POSTGRES_DSN"
}

postgres_stop() {
  [ -n "${PG_DATA:-}" ] || return 0
  "${PG_CTL[@]}" stop -m fast >/dev/null 2>&1 || true
  rm -rf "$PG_DATA"
}

postgres_start
