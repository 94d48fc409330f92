#!/usr/bin/env bash
# The lock-benchmark client of docker-compose.yml: applies its side of the latency model with tc netem
# (apply-netem.sh client), waits (bounded) until every ZooKeeper server serves, then runs
# `synod bench locks-at` once and leaves its results in RESULTS_DIR (bind-mounted ./bench-results).
#
# Environment:
#   ZK_CONNECT             the ensemble's client addresses (default zk1:2181,zk2:2181,zk3:2181)
#   WAIT_FOR_ENSEMBLE_S    how long to wait for every server to answer srvr with a mode (default 180)
#   CLIENT_RTT_MS, SERVER_RTT_MS   the condition (SERVER_RTT_MS is applied by the servers; here it only
#                          names the output directory and the label)
#   RESULTS_DIR            where the output directory is created (default /results)
#   BENCH_CLIENTS, BENCH_REQUESTS, BENCH_INTERARRIVAL_MS, BENCH_SERVICE_MS, BENCH_LOCKS, BENCH_SEED,
#   BENCH_BASELINE_OPS     locks-at's --clients, --requests, --interarrival-ms, --service-ms, --locks,
#                          --seed, --baseline-ops (defaults: locks-at's own)
#   BENCH_LABEL            --label (default "client RTT <C> ms / server RTT <S> ms (tc netem)", naming NETEM instead when not on)
#   RESULTS_OWNER          UID:GID to hand the results to (the container runs as root for tc)
#   SYNOD_HOME             where the image keeps the bench jar and lib/ (default /opt/synod)
#   NETEM                  on (default) | dry-run | off, as in entrypoint-zk.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

die() {
  echo "entrypoint-bench.sh: $*" >&2
  exit 2
}

connect="${ZK_CONNECT:-zk1:2181,zk2:2181,zk3:2181}"
wait_s="${WAIT_FOR_ENSEMBLE_S:-180}"
client_rtt="${CLIENT_RTT_MS:-0}"
server_rtt="${SERVER_RTT_MS:-0}"
results_dir="${RESULTS_DIR:-/results}"
synod_home="${SYNOD_HOME:-/opt/synod}"
netem="${NETEM:-on}"
# The default label says where the delay came from, so results of a NETEM=off run are not taken for netem's.
case "$netem" in
  on) shaping="tc netem" ;;
  *) shaping="NETEM=$netem: no delay applied here" ;;
esac
label="${BENCH_LABEL:-client RTT $client_rtt ms / server RTT $server_rtt ms ($shaping)}"

[[ "$wait_s" =~ ^[0-9]+$ ]] && (( wait_s >= 1 && wait_s <= 3600 )) || die "WAIT_FOR_ENSEMBLE_S must be in 1..3600"
[[ "$client_rtt" =~ ^[0-9]+$ && "$server_rtt" =~ ^[0-9]+$ ]] || die "CLIENT_RTT_MS and SERVER_RTT_MS must be whole ms"
[[ -n "${RESULTS_OWNER:-}" && ! "$RESULTS_OWNER" =~ ^[0-9]+:[0-9]+$ ]] && die "RESULTS_OWNER must be UID:GID"
jar="$(ls "$synod_home"/synod-bench*.jar 2>/dev/null | head -n 1 || true)"
[[ -n "$jar" ]] || die "no synod-bench jar in SYNOD_HOME=$synod_home"

case "$netem" in
  on) "$here/apply-netem.sh" client ;;
  dry-run) "$here/apply-netem.sh" client --dry-run ;;
  off) echo "entrypoint-bench.sh: NETEM=off: no latency injected on the client side" ;;
  *) die "NETEM must be on, dry-run or off, got '$netem'" ;;
esac

# srvr answers "Mode: leader|follower|standalone" only once the server is in a quorum and serving.
srvr_mode() {
  timeout 5 bash -c 'exec 3<>"/dev/tcp/$1/$2" && printf srvr >&3 && cat <&3' _ "$1" "$2" 2>/dev/null \
    | sed -n 's/^Mode: //p' || true
}

echo "entrypoint-bench.sh: waiting up to $wait_s s for $connect to serve"
deadline=$(( SECONDS + wait_s ))
while true; do
  modes=()
  serving=0
  IFS=',' read -r -a addresses <<<"$connect"
  for address in "${addresses[@]}"; do
    mode="$(srvr_mode "${address%:*}" "${address##*:}")"
    modes+=("$address=${mode:-down}")
    [[ -n "$mode" ]] && serving=$(( serving + 1 ))
  done
  if (( serving == ${#addresses[@]} )); then
    echo "entrypoint-bench.sh: ensemble serving: ${modes[*]}"
    break
  fi
  if (( SECONDS >= deadline )); then
    echo "entrypoint-bench.sh: ensemble not serving after $wait_s s: ${modes[*]}" >&2
    exit 1
  fi
  sleep 2
done

out="$results_dir/locks-at-c${client_rtt}-s${server_rtt}-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
args=(locks-at --connect "$connect" --out "$out" --label "$label")
[[ -n "${BENCH_CLIENTS:-}" ]] && args+=(--clients "$BENCH_CLIENTS")
[[ -n "${BENCH_REQUESTS:-}" ]] && args+=(--requests "$BENCH_REQUESTS")
[[ -n "${BENCH_INTERARRIVAL_MS:-}" ]] && args+=(--interarrival-ms "$BENCH_INTERARRIVAL_MS")
[[ -n "${BENCH_SERVICE_MS:-}" ]] && args+=(--service-ms "$BENCH_SERVICE_MS")
[[ -n "${BENCH_LOCKS:-}" ]] && args+=(--locks "$BENCH_LOCKS")
[[ -n "${BENCH_SEED:-}" ]] && args+=(--seed "$BENCH_SEED")
[[ -n "${BENCH_BASELINE_OPS:-}" ]] && args+=(--baseline-ops "$BENCH_BASELINE_OPS")

echo "entrypoint-bench.sh: synod bench $(printf '%q ' "${args[@]}")"
set +e
java -Djava.awt.headless=true -cp "$jar:$synod_home/lib/*" io.synod.bench.BenchCli "${args[@]}" 2>&1 \
  | tee "$out/console.log"
status=${PIPESTATUS[0]}
set -e
if [[ -n "${RESULTS_OWNER:-}" ]]; then
  chown -R "$RESULTS_OWNER" "$out"
fi
echo "entrypoint-bench.sh: locks-at exited with $status; results in $out (./bench-results/$(basename "$out") on the host)"
exit "$status"
