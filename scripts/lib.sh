# Shared by the benchmark scripts (sourced, not run): a work directory whose servers are stopped
# and files removed at exit, free loopback ports, waiting for a server, and an overloadsql config.
# The caller sets `script` (its name, for messages) before sourcing.

# A temporary directory, $work, and the cleanup of $pids and $work at exit.
work=$(mktemp -d "/tmp/overloadsql-$script.XXXXXX")
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
log() { echo "$script: $*" >&2; }

# wait_sql PORT LOG: until the server answers user sbtest, at most 60 s; else show its log.
wait_sql() {
  for _ in $(seq 600); do
    mariadb -h 127.0.0.1 -P "$1" -u sbtest -psbtest --skip-ssl -e 'SELECT 1' >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "$script: the server on port $1 did not answer within 60 s; its log:" >&2
  tail -20 "$2" >&2
  return 1
}

# overloadsql_config FILE PORT [LINES]: a config on loopback PORT (and a free admin port) with
# no admission control, users default (admin) and sbtest, and LINES added at the top level.
overloadsql_config() {
  cat >"$1" <<CONFIG
listen = "127.0.0.1:$2"
admin_listen = "127.0.0.1:$(free_port)"
http_listen = ""
admission_control = "off"
${3:-}

[[users]]
name = "default"
admin = true

[[users]]
name = "sbtest"
password = "sbtest"
CONFIG
}
