#!/usr/bin/env bash
# Applies this container's side of the lock experiments' latency model with tc netem, by calling
# scripts/netem-delays.sh once per network device. Used by entrypoint-zk.sh and entrypoint-bench.sh.
#
# Model (scripts/netem-delays.sh, docs/lock-experiments.md): an RTT R between two hosts is injected as
# R/2 on the egress of EACH host. The ZooKeeper servers sit on two networks: SERVER_SUBNET (peers) and
# CLIENT_SUBNET (clients); the bench client sits on CLIENT_SUBNET only and reaches the servers at their
# addresses there. So:
#   server: egress to SERVER_SUBNET delayed SERVER_RTT_MS/2, egress to CLIENT_SUBNET CLIENT_RTT_MS/2
#   client: egress to CLIENT_SUBNET delayed CLIENT_RTT_MS/2
# giving client<->server RTT = CLIENT_RTT_MS and server<->server RTT = SERVER_RTT_MS. Traffic to any
# other destination (the Docker gateway, the embedded DNS on 127.0.0.11) is not delayed.
#
# Usage: apply-netem.sh server|client [--dry-run]
# Environment: SERVER_RTT_MS, CLIENT_RTT_MS (whole RTTs in ms, >= 0; 0 = no delay), SERVER_SUBNET,
#   CLIENT_SUBNET (IPv4 CIDRs), optional NETEM_JITTER_MS, NETEM_DISTRIBUTION, NETEM_RATE (passed to
#   netem-delays.sh as --jitter-ms, --distribution, --rate), NETEM_SCRIPT (default: next to this repo's
#   scripts/ dir or /opt/synod/scripts/netem-delays.sh).
# The device carrying each subnet is found from `ip -o -4 addr show` (the interface whose address lies
# in the subnet), because Docker does not promise which of a container's networks becomes eth0.
set -euo pipefail

die() {
  echo "apply-netem.sh: $*" >&2
  exit 2
}

[[ $# -ge 1 ]] || die "usage: apply-netem.sh server|client [--dry-run]"
role="$1"
shift
case "$role" in
  server|client) ;;
  *) die "role must be 'server' or 'client', got '$role'" ;;
esac
dry_run=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --dry-run) dry_run=(--dry-run); shift ;;
    *) die "unknown option '$1'" ;;
  esac
done

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
netem_script="${NETEM_SCRIPT:-}"
if [[ -z "$netem_script" ]]; then
  for candidate in "$here/../scripts/netem-delays.sh" /opt/synod/scripts/netem-delays.sh; do
    if [[ -x "$candidate" ]]; then
      netem_script="$candidate"
      break
    fi
  done
fi
[[ -n "$netem_script" && -x "$netem_script" ]] || die "netem-delays.sh not found (set NETEM_SCRIPT)"

cidr_re='^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})/([0-9]{1,2})$'
ms_re='^[0-9]+$'

# 32-bit integer of a dotted IPv4 address.
ipv4_to_int() {
  local IFS=.
  # shellcheck disable=SC2086
  set -- $1
  echo $(( ($1 << 24) | ($2 << 16) | ($3 << 8) | $4 ))
}

# in_subnet ADDR CIDR: true when ADDR lies in CIDR.
in_subnet() {
  local addr="$1" cidr="$2"
  local prefix="${cidr#*/}" net="${cidr%/*}"
  local mask=$(( prefix == 0 ? 0 : (0xFFFFFFFF << (32 - prefix)) & 0xFFFFFFFF ))
  (( ($(ipv4_to_int "$addr") & mask) == ($(ipv4_to_int "$net") & mask) ))
}

# device_for_subnet CIDR: the interface that has an IPv4 address in CIDR (empty if none).
device_for_subnet() {
  local cidr="$1" line dev addr
  while read -r line; do
    # "2: eth0    inet 172.28.1.11/24 brd 172.28.1.255 scope global eth0 ..."
    read -r _ dev _ addr _ <<<"$line"
    addr="${addr%/*}"
    dev="${dev%%@*}"
    if [[ "$addr" =~ ^[0-9.]+$ ]] && in_subnet "$addr" "$cidr"; then
      echo "$dev"
      return 0
    fi
  done < <(ip -o -4 addr show)
}

# One-way delay for an RTT: R/2, keeping a half millisecond for odd R (netem takes fractions).
half_ms() {
  local rtt="$1"
  if (( rtt % 2 == 0 )); then echo $(( rtt / 2 )); else echo "$(( rtt / 2 )).5"; fi
}

client_rtt="${CLIENT_RTT_MS:-}"
server_rtt="${SERVER_RTT_MS:-}"
[[ "$client_rtt" =~ $ms_re ]] || die "CLIENT_RTT_MS must be a whole number of ms, got '$client_rtt'"
[[ "$role" == client || "$server_rtt" =~ $ms_re ]] || die "SERVER_RTT_MS must be a whole number of ms, got '$server_rtt'"
[[ "${CLIENT_SUBNET:-}" =~ $cidr_re ]] || die "CLIENT_SUBNET must be an IPv4 CIDR, got '${CLIENT_SUBNET:-}'"
[[ "$role" == client || "${SERVER_SUBNET:-}" =~ $cidr_re ]] || die "SERVER_SUBNET must be an IPv4 CIDR, got '${SERVER_SUBNET:-}'"

# subnet=RTT pairs this role shapes.
targets=("$CLIENT_SUBNET=$client_rtt")
if [[ "$role" == server ]]; then
  targets=("$SERVER_SUBNET=$server_rtt" "$CLIENT_SUBNET=$client_rtt")
fi

extra=()
[[ -n "${NETEM_JITTER_MS:-}" ]] && extra+=(--jitter-ms "$NETEM_JITTER_MS")
[[ -n "${NETEM_DISTRIBUTION:-}" ]] && extra+=(--distribution "$NETEM_DISTRIBUTION")
[[ -n "${NETEM_RATE:-}" ]] && extra+=(--rate "$NETEM_RATE")

# Group the rules by device: one netem-delays.sh call per device replaces its whole configuration.
declare -A rules_by_device=()
devices=()
for target in "${targets[@]}"; do
  subnet="${target%%=*}"
  rtt="${target#*=}"
  dev="$(device_for_subnet "$subnet")"
  [[ -n "$dev" ]] || die "no network device with an address in $subnet (is this container attached to that network?)"
  if [[ -z "${rules_by_device[$dev]+set}" ]]; then
    devices+=("$dev")
    rules_by_device[$dev]=""
  fi
  if (( rtt > 0 )); then
    rules_by_device[$dev]+=" --rule $subnet=$(half_ms "$rtt")"
  fi
  echo "apply-netem.sh: $role: to $subnet via $dev: RTT $rtt ms, so $(half_ms "$rtt") ms on this side"
done

for dev in "${devices[@]}"; do
  # shellcheck disable=SC2206
  rules=(${rules_by_device[$dev]})
  if [[ ${#rules[@]} -eq 0 ]]; then
    # Every RTT on this device is 0: remove any shaping left from an earlier run.
    "$netem_script" clear --dev "$dev" "${dry_run[@]}"
  else
    "$netem_script" apply --dev "$dev" "${rules[@]}" "${extra[@]}" "${dry_run[@]}"
  fi
done
