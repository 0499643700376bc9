#!/usr/bin/env bash
# Benchmark, not a test: sysbench's OLTP workloads against overloadsql and against MariaDB,
# side by side in one run on the same machine, so the figures can be compared.
#
#   scripts/sysbench.sh                      # 4 threads, 2 tables x 10000 rows, 20 s per workload
#   SYSBENCH_TIME=60 scripts/sysbench.sh     # longer runs
#   SYSBENCH_SYNC=none scripts/sysbench.sh   # no log sync per commit on either server
#   SYSBENCH_BASELINE=/path/to/old/overloadsql scripts/sysbench.sh
#                                            # also an older build, in the same run (a build from
#                                            # before the storage: its config has no storage keys)
#
# Needs sysbench and MariaDB's server (Debian packages `sysbench`, `mariadb-server`; install them
# for the benchmark only: this script starts its own MariaDB on a loopback port with a temporary
# data directory, never the system service) and Go to build overloadsql. Both servers run with
# their overload/durability extras off: overloadsql with no rejection or drop thresholds and no
# admission control (a slow write must not fail other threads' statements with 202). Both have
# the same durability: SYSBENCH_SYNC=commit (default) is storage_sync = "commit" against
# innodb_flush_log_at_trx_commit=1 (a log sync per commit), none is storage_sync = "none"
# against innodb_flush_log_at_trx_commit=2. Prints one Markdown table on stdout; progress goes
# to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

threads=${SYSBENCH_THREADS:-4}
tables=${SYSBENCH_TABLES:-2}
table_size=${SYSBENCH_TABLE_SIZE:-10000}
duration=${SYSBENCH_TIME:-20}
workloads=(oltp_point_select oltp_read_only oltp_read_write oltp_insert)
sync=${SYSBENCH_SYNC:-commit}
case $sync in
  commit) innodb_flush=1 ;;
  none) innodb_flush=2 ;;
  *) echo "sysbench.sh: SYSBENCH_SYNC must be commit or none, not $sync" >&2; exit 1 ;;
esac

for tool in sysbench mariadbd mariadb-install-db mariadb go /usr/bin/python3; do
  command -v "$tool" >/dev/null || { echo "sysbench.sh: $tool is missing (apt-get install sysbench mariadb-server)" >&2; exit 1; }
done

script=sysbench.sh
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

# --- overloadsql ---------------------------------------------------------------------------------
log "building overloadsql"
go build -o "$work/overloadsql" ./cmd/overloadsql
osql_port=$(free_port)
mkdir "$work/osql"
overloadsql_config "$work/osql/config.toml" "$osql_port" "data_dir = \"$work/osql/data\"
storage_sync = \"$sync\""
"$work/overloadsql" --config "$work/osql/config.toml" >"$work/osql/server.log" 2>&1 &
pids+=($!)
wait_sql "$osql_port" "$work/osql/server.log"

baseline=${SYSBENCH_BASELINE:-}
if [ -n "$baseline" ]; then
  [ -x "$baseline" ] || { echo "sysbench.sh: SYSBENCH_BASELINE=$baseline is not an executable" >&2; exit 1; }
  base_port=$(free_port)
  mkdir "$work/base"
  overloadsql_config "$work/base/config.toml" "$base_port"
  "$baseline" --config "$work/base/config.toml" >"$work/base/server.log" 2>&1 &
  pids+=($!)
  wait_sql "$base_port" "$work/base/server.log"
fi

# --- MariaDB -------------------------------------------------------------------------------------
maria_port=$(free_port)
log "initialising MariaDB in $work/maria"
mariadb-install-db --no-defaults --datadir="$work/maria" --user="$(id -un)" --auth-root-authentication-method=normal \
  --skip-test-db >"$work/maria-install.log" 2>&1 || { cat "$work/maria-install.log" >&2; exit 1; }
mariadbd --no-defaults --datadir="$work/maria" --user="$(id -un)" --bind-address=127.0.0.1 --port="$maria_port" \
  --socket="$work/maria.sock" --pid-file="$work/maria.pid" --skip-log-bin \
  --innodb-buffer-pool-size=256M --innodb-flush-log-at-trx-commit=$innodb_flush --max-connections=200 \
  >"$work/maria.log" 2>&1 &
pids+=($!)
for _ in $(seq 600); do [ -S "$work/maria.sock" ] && break; sleep 0.1; done
mariadb --no-defaults -S "$work/maria.sock" -u root -e "
  CREATE DATABASE main;
  CREATE USER sbtest@'127.0.0.1' IDENTIFIED BY 'sbtest';
  GRANT ALL ON main.* TO sbtest@'127.0.0.1';" || { cat "$work/maria.log" >&2; exit 1; }
wait_sql "$maria_port" "$work/maria.log"
maria_version=$(mariadb -h 127.0.0.1 -P "$maria_port" -u sbtest -psbtest --skip-ssl -N -e 'SELECT VERSION()')

# --- runs ----------------------------------------------------------------------------------------
# bench NAME PORT: prepare the tables, run every workload, write NAME.<workload> result lines.
bench() {
  local name=$1 port=$2
  local common=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=sbtest
    --mysql-password=sbtest --mysql-db=main --mysql-ssl=off --tables="$tables" --table-size="$table_size")
  log "$name: prepare $tables tables x $table_size rows"
  local start=$SECONDS
  sysbench oltp_common "${common[@]}" prepare >"$work/$name.prepare" 2>&1 || { cat "$work/$name.prepare" >&2; exit 1; }
  echo "$((SECONDS - start))" >"$work/$name.prepare_s"
  for w in "${workloads[@]}"; do
    log "$name: $w, $threads threads, ${duration} s"
    if ! sysbench "$w" "${common[@]}" --threads="$threads" --time="$duration" --report-interval=0 \
      run >"$work/$name.$w" 2>&1; then
      echo "FAILED" >>"$work/$name.$w"
      log "$name: $w failed: $(grep -m1 -i 'error' "$work/$name.$w" || tail -1 "$work/$name.$w")"
    fi
  done
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
bench overloadsql "$osql_port"
[ -z "$baseline" ] || bench baseline "$base_port"
bench mariadb "$maria_port"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# tps FILE: transactions per second, or "failed".
tps() { grep -q FAILED "$1" && { echo failed; return; }; sed -n 's/.*transactions: *[0-9]* *(\([0-9.]*\) per sec.).*/\1/p' "$1"; }
p95() { grep -q FAILED "$1" && { echo -; return; }; sed -n 's/.*95th percentile: *\([0-9.]*\).*/\1/p' "$1"; }
errs() { grep -q FAILED "$1" && { echo -; return; }; sed -n 's/.*ignored errors: *\([0-9]*\).*/\1/p' "$1"; }

echo "sysbench $(sysbench --version | cut -d' ' -f2), $threads threads, $tables tables x $table_size rows, ${duration} s per workload, sync per commit: $sync;"
echo "overloadsql $(git describe --always --dirty 2>/dev/null || echo '?') vs MariaDB $maria_version; $(nproc) CPUs; load average $load_before before, $load_after after."
echo "prepare (create + load): overloadsql $(cat "$work/overloadsql.prepare_s") s, MariaDB $(cat "$work/mariadb.prepare_s") s"
echo
echo "| workload | overloadsql tps | MariaDB tps | overloadsql / MariaDB | overloadsql p95 ms | MariaDB p95 ms | overloadsql ignored errors |"
echo "|---|---|---|---|---|---|---|"
for w in "${workloads[@]}"; do
  o=$(tps "$work/overloadsql.$w")
  m=$(tps "$work/mariadb.$w")
  ratio=$(awk -v o="$o" -v m="$m" 'BEGIN { if (o + 0 > 0 && m + 0 > 0) printf "%.2f", o / m; else print "-" }')
  echo "| $w | $o | $m | $ratio | $(p95 "$work/overloadsql.$w") | $(p95 "$work/mariadb.$w") | $(errs "$work/overloadsql.$w") |"
done
if [ -n "$baseline" ]; then
  echo
  echo "baseline $baseline (prepare $(cat "$work/baseline.prepare_s") s):"
  echo
  echo "| workload | overloadsql tps | baseline tps | overloadsql / baseline |"
  echo "|---|---|---|---|"
  for w in "${workloads[@]}"; do
    o=$(tps "$work/overloadsql.$w")
    b=$(tps "$work/baseline.$w")
    ratio=$(awk -v o="$o" -v b="$b" 'BEGIN { if (o + 0 > 0 && b + 0 > 0) printf "%.2f", o / b; else print "-" }')
    echo "| $w | $o | $b | $ratio |"
  done
fi
for w in "${workloads[@]}"; do
  if grep -q FAILED "$work/overloadsql.$w"; then
    echo
    echo "overloadsql $w output:"
    tail -20 "$work/overloadsql.$w"
  fi
done
