# Sourced by scripts and shell tests: start the API twin on a free loopback port.
#
#   twin_start APISIM_BIN LOG [twin options...]
#
# Starts the twin with --listen 127.0.0.1:0 (the kernel picks a port no one holds, so parallel
# tests never race for one), waits up to 10 s for its "serving" line and sets
#   twin_pid   the twin's process id (stop it with: kill "$twin_pid")
#   twin_port  the port it bound
#   twin_api   http://127.0.0.1:PORT/api/external/v1
#   twin_rpc   http://127.0.0.1:PORT/rpc
# Returns 1, with the twin's log on stderr, if it exits or says nothing in time.
twin_start() {
  local bin=$1 log=$2
  shift 2
  "$bin" --listen 127.0.0.1:0 "$@" >"$log" 2>&1 &
  twin_pid=$!
  twin_port=
  local _
  for _ in $(seq 200); do
    twin_port=$(sed -n 's|^airlock-apisim: serving http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$log")
    [ -n "$twin_port" ] && break
    kill -0 "$twin_pid" 2>/dev/null || break
    sleep 0.05
  done
  if [ -z "$twin_port" ]; then
    echo "airlock-apisim did not start:" >&2
    cat "$log" >&2
    kill "$twin_pid" 2>/dev/null
    return 1
  fi
  twin_api="http://127.0.0.1:$twin_port/api/external/v1"
  twin_rpc="http://127.0.0.1:$twin_port/rpc"
}
