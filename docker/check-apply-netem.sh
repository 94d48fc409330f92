#!/usr/bin/env bash
# Checks docker/apply-netem.sh without Docker or netem: runs it with --dry-run against a stand-in `ip`
# that prints the interfaces a compose container would have, and compares the tc commands with the
# latency model (R/2 per side per destination subnet). Exits non-zero on the first mismatch.
#   docker/check-apply-netem.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# fake_ip NAME "ADDR/PREFIX DEV" ...: a directory with an `ip` that prints those addresses.
fake_ip() {
  local dir="$work/$1"
  shift
  mkdir -p "$dir"
  {
    echo '#!/usr/bin/env bash'
    echo "cat <<'EOF'"
    echo '1: lo    inet 127.0.0.1/8 scope host lo\       valid_lft forever preferred_lft forever'
    local n=40 spec
    for spec in "$@"; do
      echo "$n: ${spec#* }    inet ${spec% *} brd 0.0.0.0 scope global ${spec#* }\\       valid_lft forever preferred_lft forever"
      n=$((n + 2))
    done
    echo 'EOF'
  } >"$dir/ip"
  chmod +x "$dir/ip"
  echo "$dir"
}

failures=0
# expect NAME OUTPUT PATTERN...: every pattern (an extended regex) matches some line of OUTPUT.
expect() {
  local name="$1" output="$2"
  shift 2
  local pattern
  for pattern in "$@"; do
    if ! grep -Eq -- "$pattern" <<<"$output"; then
      echo "FAIL $name: no line matches /$pattern/ in:" >&2
      sed 's/^/    /' <<<"$output" >&2
      failures=$((failures + 1))
    fi
  done
}

run() {
  local path="$1"
  shift
  env PATH="$path:$PATH" SERVER_SUBNET=172.28.1.0/24 CLIENT_SUBNET=172.28.2.0/24 "$@" 2>&1
}

# A server whose client network became eth0 and server network eth1 (Docker promises no order).
server_ip="$(fake_ip server '172.28.2.11/24 eth0' '172.28.1.11/24 eth1')"
client_ip="$(fake_ip client '172.28.2.100/24 eth0')"

out="$(run "$server_ip" CLIENT_RTT_MS=100 SERVER_RTT_MS=50 "$here/apply-netem.sh" server --dry-run)"
expect "server C=100 S=50" "$out" \
  '^tc qdisc add dev eth1 parent 1:2 handle 20: netem delay 25ms$' \
  '^tc filter add dev eth1 protocol ip parent 1: prio 1 u32 match ip dst 172.28.1.0/24 flowid 1:2$' \
  '^tc qdisc add dev eth0 parent 1:2 handle 20: netem delay 50ms$' \
  '^tc filter add dev eth0 protocol ip parent 1: prio 1 u32 match ip dst 172.28.2.0/24 flowid 1:2$'

out="$(run "$client_ip" CLIENT_RTT_MS=100 SERVER_RTT_MS=50 "$here/apply-netem.sh" client --dry-run)"
expect "client C=100" "$out" \
  '^tc qdisc add dev eth0 parent 1:2 handle 20: netem delay 50ms$' \
  '^tc filter add dev eth0 protocol ip parent 1: prio 1 u32 match ip dst 172.28.2.0/24 flowid 1:2$'

# Odd RTT: half a millisecond per side; RTT 0: that device is cleared, not given a 0 ms netem.
out="$(run "$server_ip" CLIENT_RTT_MS=25 SERVER_RTT_MS=0 NETEM_JITTER_MS=2 NETEM_DISTRIBUTION=normal \
  "$here/apply-netem.sh" server --dry-run)"
expect "server C=25 S=0 jitter" "$out" \
  '^tc qdisc del dev eth1 root$' \
  '^tc qdisc add dev eth0 parent 1:2 handle 20: netem delay 12.5ms 2ms distribution normal$'
if grep -q 'dev eth1 .*netem' <<<"$out"; then
  echo "FAIL server C=25 S=0: a netem qdisc on the server network although SERVER_RTT_MS=0" >&2
  failures=$((failures + 1))
fi

# Both subnets on one device (a single-network variant): one call with two rules.
one_ip="$(fake_ip one '172.28.1.11/24 eth0' '172.28.2.11/24 eth0')"
out="$(run "$one_ip" CLIENT_RTT_MS=100 SERVER_RTT_MS=50 "$here/apply-netem.sh" server --dry-run)"
expect "one device" "$out" \
  '^tc qdisc add dev eth0 parent 1:2 handle 20: netem delay 25ms$' \
  '^tc qdisc add dev eth0 parent 1:3 handle 30: netem delay 50ms$'

# Bad input is refused with exit 2 before anything is applied.
for bad in "CLIENT_RTT_MS=abc SERVER_RTT_MS=50" "CLIENT_RTT_MS=10 SERVER_RTT_MS=-1" \
  "CLIENT_RTT_MS=10 SERVER_RTT_MS=5 CLIENT_SUBNET=10.9.9.0/24"; do
  set +e
  # shellcheck disable=SC2086
  out="$(run "$server_ip" $bad "$here/apply-netem.sh" server --dry-run)"
  status=$?
  set -e
  if [[ $status -ne 2 ]] || grep -q '^tc ' <<<"$out"; then
    echo "FAIL bad input '$bad': exit $status, output:" >&2
    sed 's/^/    /' <<<"$out" >&2
    failures=$((failures + 1))
  fi
done

if [[ $failures -gt 0 ]]; then
  echo "check-apply-netem.sh: $failures failure(s)" >&2
  exit 1
fi
echo "check-apply-netem.sh: all checks passed"
