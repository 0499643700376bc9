#!/usr/bin/env bash
# Benchmark, not a test: how the cost of writes grows with the table, overloadsql beside MariaDB
# in one run on the same machine, both with a log sync per commit (storage_sync = "commit",
# innodb_flush_log_at_trx_commit=1).
#
#   scripts/scale.sh                         # one sysbench table of 10,000 rows, then 1,000,000
#   SCALE_SIZES="10000 100000" scripts/scale.sh
#
# For each size: the time of `sysbench oltp_common prepare` of one table (create and load), then
# the median of 200 single-row UPDATEs by primary key right after the load, then the same once
# the server is quiet (steady state: its process used under 5% of a core over 2 s, which is
# when the load's background work, such as compactions, is done; at most 300 s), and the median
# of 20 INSERTs of 1,000 rows (each its own autocommit statement), then the server's resident
# memory and the data directory's size.
# Needs sysbench, MariaDB's server (Debian `sysbench`, `mariadb-server`), python3-pymysql and Go.
# Prints one Markdown table on stdout; progress goes to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=${SCALE_SIZES:-10000 1000000}
for tool in sysbench mariadbd mariadb-install-db mariadb go /usr/bin/python3; do
  command -v "$tool" >/dev/null || { echo "scale.sh: $tool is missing (apt-get install sysbench mariadb-server)" >&2; exit 1; }
done
/usr/bin/python3 -c 'import pymysql' 2>/dev/null || { echo "scale.sh: python3-pymysql is missing" >&2; exit 1; }

script=scale.sh
# shellcheck source=scripts/lib.sh
. scripts/lib.sh

log "building overloadsql"
go build -o "$work/overloadsql" ./cmd/overloadsql

# start_overloadsql N, start_mariadb N: a fresh server with an empty data directory; sets port,
# pid and datadir.
start_overloadsql() {
  port=$(free_port)
  local dir=$work/osql-$1
  mkdir -p "$dir"
  overloadsql_config "$dir/config.toml" "$port" "data_dir = \"$dir/data\"
storage_sync = \"commit\""
  "$work/overloadsql" --config "$dir/config.toml" >"$dir/server.log" 2>&1 &
  pid=$!
  pids+=("$pid")
  datadir=$dir/data
  wait_sql "$port" "$dir/server.log"
}
start_mariadb() {
  port=$(free_port)
  datadir=$work/maria-$1
  mariadb-install-db --no-defaults --datadir="$datadir" --user="$(id -un)" --auth-root-authentication-method=normal \
    --skip-test-db >"$work/maria-install-$1.log" 2>&1 || { cat "$work/maria-install-$1.log" >&2; exit 1; }
  mariadbd --no-defaults --datadir="$datadir" --user="$(id -un)" --bind-address=127.0.0.1 --port="$port" \
    --socket="$work/maria-$1.sock" --pid-file="$work/maria-$1.pid" --skip-log-bin \
    --innodb-buffer-pool-size=256M --innodb-flush-log-at-trx-commit=1 --max-connections=200 \
    >"$work/maria-$1.log" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 600); do [ -S "$work/maria-$1.sock" ] && break; sleep 0.1; done
  mariadb --no-defaults -S "$work/maria-$1.sock" -u root -e "
    CREATE DATABASE main;
    CREATE USER sbtest@'127.0.0.1' IDENTIFIED BY 'sbtest';
    GRANT ALL ON main.* TO sbtest@'127.0.0.1';" || { cat "$work/maria-$1.log" >&2; exit 1; }
  wait_sql "$port" "$work/maria-$1.log"
}

# measure NAME N: prepare one table of N rows, then the write latencies; one result line.
measure() {
  local name=$1 n=$2 start prepare_s
  log "$name: prepare 1 table x $n rows"
  start=$(date +%s.%N)
  sysbench oltp_common --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=sbtest \
    --mysql-password=sbtest --mysql-db=main --mysql-ssl=off --tables=1 --table-size="$n" prepare \
    >"$work/$name-$n.prepare" 2>&1 || { cat "$work/$name-$n.prepare" >&2; exit 1; }
  prepare_s=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
  log "$name: writes at $n rows"
  /usr/bin/python3 - "$port" "$n" "$name" "$prepare_s" "$pid" "$datadir" <<'PY'
import os, random, statistics, subprocess, sys, time
import pymysql
port, n, name, prepare_s, pid, datadir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
c = pymysql.connect(host="127.0.0.1", port=port, user="sbtest", password="sbtest", database="main", autocommit=True)
cur = c.cursor()
rng = random.Random(1)
def timed(q, args=None):
    t = time.perf_counter()
    cur.execute(q, args)
    return (time.perf_counter() - t) * 1000
def update_median():
    return statistics.median(timed("UPDATE sbtest1 SET k = k + 1 WHERE id = %s", (rng.randint(1, n),)) for _ in range(200))
def cpu_seconds():
    with open("/proc/%s/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
def wait_quiet():
    start = time.monotonic()
    while time.monotonic() - start < 300:
        before = cpu_seconds()
        time.sleep(2)
        if cpu_seconds() - before < 0.1:
            break
    return time.monotonic() - start
update_after_load = update_median()
settle_s = wait_quiet()
update_steady = update_median()
base = n + 1
inserts = []
for i in range(20):
    rows = ",".join("(%d, %d, 'c', 'pad')" % (base + j, rng.randint(1, n)) for j in range(1000))
    inserts.append(timed("INSERT INTO sbtest1 (id, k, c, pad) VALUES " + rows))
    base += 1000
rss = 0
with open("/proc/%s/status" % pid) as f:
    for line in f:
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) // 1024
disk = int(subprocess.check_output(["du", "-sm", datadir]).split()[0])
print("| %s | %d | %s | %.2f | %.2f (%.0f s) | %.1f | %d | %d |" % (name, n, prepare_s, update_after_load, update_steady, settle_s, statistics.median(inserts), rss, disk))
PY
}

rows=()
for n in $sizes; do
  start_overloadsql "$n"
  rows+=("$(measure overloadsql "$n")")
  kill -TERM "$pid"
  start_mariadb "$n"
  rows+=("$(measure mariadb "$n")")
  kill -TERM "$pid"
done

echo "scale.sh: overloadsql $(git describe --always --dirty 2>/dev/null || echo '?') vs MariaDB $(mariadbd --version | awk '{print $3}'); $(nproc) CPUs; sync per commit on both; load average $(cut -d' ' -f1-3 /proc/loadavg) at the end."
echo
echo "| server | rows | prepare s | UPDATE by PK after the load, median ms | UPDATE by PK in steady state, median ms (time to quiet) | INSERT of 1,000 rows, median ms | RSS MiB | data dir MiB |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
