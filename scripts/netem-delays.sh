#!/usr/bin/env bash
# Applies the lock experiments' latency model with real Linux `tc netem`, for hosts whose kernel has it
# (for example the containers of a docker-compose deployment). The in-process harness cannot use netem on
# the development machines (no sch_netem), so it injects the same delays with a user-space proxy
# (io.synod.bench.netdelay.DelayProxy); this script is the kernel equivalent. See docs/lock-experiments.md.
#
# Model: a round-trip time R between two hosts is injected as R/2 on the egress of EACH host, like the proxy
# adds R/2 per direction. netem only shapes egress, so run the script on every host (container).
#
# Usage:
#   netem-delays.sh apply --dev DEV [--rule DST=ONE_WAY_MS]... [--delay-ms ONE_WAY_MS]
#                         [--jitter-ms MS] [--distribution normal|pareto|paretonormal|uniform]
#                         [--rate RATE] [--dry-run]
#   netem-delays.sh clear --dev DEV [--dry-run]
#   netem-delays.sh show  --dev DEV
#
#   --delay-ms D      one-way delay for all egress traffic (no --rule), or for traffic matching no rule
#   --rule DST=D      one-way delay D ms for egress traffic to DST (IPv4 address or CIDR); repeatable.
#                     Typical use on a ZooKeeper server container: --rule <peer-subnet>=SERVER_RTT/2
#                     --rule <client-subnet>=CLIENT_RTT/2; on a client container: --delay-ms CLIENT_RTT/2
#   --jitter-ms J     netem jitter (with --distribution: its spread; netem's default is uniform +-J)
#   --rate RATE       netem bandwidth cap per rule, tc syntax (e.g. 100mbit)
#   --dry-run         print the tc commands instead of running them
#
# Examples (client RTT 100 ms, server RTT 50 ms, servers on 172.28.1.0/24, clients on 172.28.2.0/24):
#   on each server:  netem-delays.sh apply --dev eth0 --rule 172.28.1.0/24=25 --rule 172.28.2.0/24=50
#   on each client:  netem-delays.sh apply --dev eth0 --delay-ms 50
#   to undo:         netem-delays.sh clear --dev eth0
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
  exit "${1:-2}"
}

die() {
  echo "netem-delays.sh: $*" >&2
  exit 2
}

[[ $# -ge 1 ]] || usage 2
action="$1"
shift
case "$action" in
  apply|clear|show) ;;
  -h|--help|help) usage 0 ;;
  *) die "unknown action '$action' (apply, clear, show)" ;;
esac

dev=""
default_delay_ms=""
jitter_ms=""
distribution=""
rate=""
dry_run=0
rules=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dev) dev="${2:-}"; shift 2 ;;
    --delay-ms) default_delay_ms="${2:-}"; shift 2 ;;
    --rule) rules+=("${2:-}"); shift 2 ;;
    --jitter-ms) jitter_ms="${2:-}"; shift 2 ;;
    --distribution) distribution="${2:-}"; shift 2 ;;
    --rate) rate="${2:-}"; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) usage 0 ;;
    *) die "unknown option '$1'" ;;
  esac
done

[[ -n "$dev" ]] || die "--dev is required"
[[ "$dev" =~ ^[A-Za-z0-9_.@-]+$ ]] || die "bad device name '$dev'"
number='^[0-9]+([.][0-9]+)?$'
[[ -z "$default_delay_ms" || "$default_delay_ms" =~ $number ]] || die "--delay-ms must be a number of ms"
[[ -z "$jitter_ms" || "$jitter_ms" =~ $number ]] || die "--jitter-ms must be a number of ms"
case "$distribution" in
  ""|normal|pareto|paretonormal|uniform) ;;
  *) die "--distribution must be normal, pareto, paretonormal or uniform" ;;
esac
[[ -z "$distribution" || -n "$jitter_ms" ]] || die "--distribution needs --jitter-ms"
[[ -z "$rate" || "$rate" =~ ^[0-9]+([.][0-9]+)?[a-zA-Z]*$ ]] || die "bad --rate '$rate'"
[[ ${#rules[@]} -le 14 ]] || die "at most 14 --rule options"
# Validate every rule before touching the device, so a typo never leaves half a configuration behind.
for rule in "${rules[@]}"; do
  [[ "$rule" == *=* ]] || die "--rule must be DST=ONE_WAY_MS, got '$rule'"
  [[ "${rule%%=*}" =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}(/[0-9]{1,2})?$ ]] || die "bad destination '${rule%%=*}' (IPv4 or CIDR)"
  [[ "${rule#*=}" =~ $number ]] || die "bad delay '${rule#*=}' in --rule $rule"
done

run() {
  if [[ $dry_run -eq 1 ]]; then
    echo "$*"
  else
    "$@"
  fi
}

require_tc() {
  [[ $dry_run -eq 1 ]] && return 0
  command -v tc >/dev/null 2>&1 || die "tc not found (install iproute2)"
  [[ $(id -u) -eq 0 ]] || die "must run as root (or with CAP_NET_ADMIN)"
}

# netem arguments for one one-way delay.
netem_args() {
  local delay_ms="$1"
  local args=(delay "${delay_ms}ms")
  if [[ -n "$jitter_ms" ]]; then
    args+=("${jitter_ms}ms")
    # uniform is netem's behaviour when no distribution table is named.
    if [[ -n "$distribution" && "$distribution" != uniform ]]; then
      args+=(distribution "$distribution")
    fi
  fi
  if [[ -n "$rate" ]]; then
    args+=(rate "$rate")
  fi
  echo "${args[@]}"
}

case "$action" in
  show)
    require_tc
    run tc qdisc show dev "$dev"
    run tc filter show dev "$dev"
    ;;
  clear)
    require_tc
    # Deleting the root qdisc restores the default; a missing one is not an error.
    if [[ $dry_run -eq 1 ]]; then
      echo "tc qdisc del dev $dev root"
    else
      tc qdisc del dev "$dev" root 2>/dev/null || true
    fi
    ;;
  apply)
    require_tc
    [[ -n "$default_delay_ms" || ${#rules[@]} -gt 0 ]] || die "nothing to apply: give --delay-ms and/or --rule"
    if [[ $dry_run -eq 1 ]]; then
      echo "tc qdisc del dev $dev root  # (ignored if absent)"
    else
      tc qdisc del dev "$dev" root 2>/dev/null || true
    fi
    if [[ ${#rules[@]} -eq 0 ]]; then
      # One delay for everything leaving this host.
      # shellcheck disable=SC2046
      run tc qdisc add dev "$dev" root netem $(netem_args "$default_delay_ms")
    else
      # HTB root: class 1:1 is the default (unmatched traffic), classes 1:2.. hold one netem each and
      # u32 filters send each destination to its class.
      run tc qdisc add dev "$dev" root handle 1: htb default 1
      run tc class add dev "$dev" parent 1: classid 1:1 htb rate 100gbit
      if [[ -n "$default_delay_ms" ]]; then
        # shellcheck disable=SC2046
        run tc qdisc add dev "$dev" parent 1:1 handle 10: netem $(netem_args "$default_delay_ms")
      fi
      class=2
      for rule in "${rules[@]}"; do
        dst="${rule%%=*}"
        delay_ms="${rule#*=}"
        run tc class add dev "$dev" parent 1: classid "1:$class" htb rate 100gbit
        # shellcheck disable=SC2046
        run tc qdisc add dev "$dev" parent "1:$class" handle "$((class * 10)):" netem $(netem_args "$delay_ms")
        run tc filter add dev "$dev" protocol ip parent 1: prio 1 u32 match ip dst "$dst" flowid "1:$class"
        class=$((class + 1))
      done
    fi
    ;;
esac
