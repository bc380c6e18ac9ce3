# Sourced by .ci/run (and by hand: `source .ci/postgres.sh` ... `postgres_stop`).
#
# Installs PostgreSQL from Debian's packages when no server binary is found, starts a throwaway
# cluster on 127.0.0.1 (data and socket in a fresh temp dir, trust auth, fsync off: it only lives
# for one test run) and exports LOOM_TEST_POSTGRES_DSN for the tests. Under CI the PostgreSQL tests
# fail rather than skip when that variable is missing or the server is unreachable
# (tests/conftest.py), so a broken start here cannot turn into a green run that tested nothing.
#
# initdb and postgres refuse to run as root: as root the cluster runs as `nobody`.

pg_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin /usr/local/bin /usr/bin; do
    [ -x "$d/pg_ctl" ] && [ -x "$d/initdb" ] && [ -x "$d/postgres" ] && { echo "$d"; return 0; }
  done
  return 1
}

pg_free_port() {
  local port
  for port in $(seq "${LOOM_CI_PG_PORT:-55432}" $(( ${LOOM_CI_PG_PORT:-55432} + 20 ))); do
    # nothing answers a connect on a free port
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return 0; fi
  done
  return 1
}

postgres_start() {
  local bin port
  if ! bin=$(pg_bin); then
    echo "ci: installing PostgreSQL from Debian's packages"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >/dev/null
    bin=$(pg_bin) || { echo "ci: PostgreSQL install failed: no pg_ctl/initdb/postgres found" >&2; return 1; }
  fi
  port=$(pg_free_port) || { echo "ci: no free port for PostgreSQL near ${LOOM_CI_PG_PORT:-55432}" >&2; return 1; }
  PG_DATA=$(mktemp -d /tmp/loom-ci-pg.XXXXXX)
  local run_as=()
  if [ "$(id -u)" = 0 ]; then
    chown -R nobody "$PG_DATA"
    run_as=(runuser -u nobody --)
  fi
  PG_CTL=("${run_as[@]}" "$bin/pg_ctl" -D "$PG_DATA/data")
  if ! "${run_as[@]}" "$bin/initdb" -D "$PG_DATA/data" -U loom --auth=trust -E UTF8 --locale=C --no-sync \
      >"$PG_DATA/initdb.log" 2>&1; then
    echo "ci: initdb failed:" >&2; cat "$PG_DATA/initdb.log" >&2; return 1
  fi
  if ! "${PG_CTL[@]}" -l "$PG_DATA/log" -w -t 60 start \
      -o "-c listen_addresses=127.0.0.1 -p $port -k $PG_DATA -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
      >/dev/null; then
    echo "ci: PostgreSQL did not start:" >&2; cat "$PG_DATA/log" >&2; return 1
  fi
  export LOOM_TEST_POSTGRES_DSN="postgresql://loom@127.0.0.1:$port/postgres"
  echo "ci: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') running at $LOOM_TEST_POSTGRES_DSN"
}

postgres_stop() {
  [ -n "${PG_DATA:-}" ] || return 0
  "${PG_CTL[@]}" stop -m fast -w >/dev/null 2>&1 || true
  rm -rf "$PG_DATA"
  unset PG_DATA LOOM_TEST_POSTGRES_DSN
  echo "ci: PostgreSQL stopped"
}

postgres_start
