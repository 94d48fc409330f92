#!/usr/bin/env bash
# One ZooKeeper server of the docker-compose ensemble (docker-compose.yml): applies this container's
# side of the latency model with tc netem (apply-netem.sh), writes zoo.cfg and myid from the
# environment, then runs QuorumPeerMain from the bench module's runtime classpath, so the server is
# exactly the ZooKeeper version pinned in the pom (3.9.5).
#
# Environment:
#   ZK_MY_ID            this server's id (1-255), required
#   ZK_SERVERS          the ensemble, required: space-separated ID=HOST:QUORUM_PORT:ELECTION_PORT, e.g.
#                       "1=172.28.1.11:2888:3888 2=172.28.1.12:2888:3888 3=172.28.1.13:2888:3888".
#                       docker-compose.yml gives the servers' addresses on the server network, so peer
#                       traffic stays on that network (and gets the server RTT).
#   ZK_CLIENT_PORT      client port (default 2181); ZK_CLIENT_PORT_ADDRESS binds it to one address
#                       (default: all, so clients on the client network reach it)
#   ZK_DATA_DIR         data directory (default /data/zk); ZK_TICK_TIME_MS (default 2000)
#   ZK_FORCE_SYNC       yes|no (default no, as the in-process harness: the experiments measure the
#                       network, not the disk)
#   ZK_HEAP_MB          server heap (default 512)
#   SYNOD_LIB_DIR       ZooKeeper and its runtime dependencies (default /opt/synod/lib)
#   ZK_LOGBACK_CONFIG   logback configuration (default: logback-zk.xml next to this script)
#   NETEM               on (default) | dry-run (print the tc commands) | off (no shaping, e.g. a local
#                       run on a machine without netem); the netem variables are apply-netem.sh's:
#                       SERVER_RTT_MS, CLIENT_RTT_MS, SERVER_SUBNET, CLIENT_SUBNET, NETEM_JITTER_MS, ...
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

die() {
  echo "entrypoint-zk.sh: $*" >&2
  exit 2
}

my_id="${ZK_MY_ID:-}"
servers="${ZK_SERVERS:-}"
client_port="${ZK_CLIENT_PORT:-2181}"
client_port_address="${ZK_CLIENT_PORT_ADDRESS:-}"
data_dir="${ZK_DATA_DIR:-/data/zk}"
tick_time_ms="${ZK_TICK_TIME_MS:-2000}"
force_sync="${ZK_FORCE_SYNC:-no}"
heap_mb="${ZK_HEAP_MB:-512}"
lib_dir="${SYNOD_LIB_DIR:-/opt/synod/lib}"
logback_config="${ZK_LOGBACK_CONFIG:-$here/logback-zk.xml}"
netem="${NETEM:-on}"

# Check everything before shaping the network or writing anything.
[[ "$my_id" =~ ^[0-9]+$ ]] && (( my_id >= 1 && my_id <= 255 )) || die "ZK_MY_ID must be in 1..255, got '$my_id'"
[[ -n "$servers" ]] || die "ZK_SERVERS is required (ID=HOST:QUORUM_PORT:ELECTION_PORT ...)"
[[ "$client_port" =~ ^[0-9]+$ ]] && (( client_port >= 1 && client_port <= 65535 )) || die "bad ZK_CLIENT_PORT '$client_port'"
[[ "$tick_time_ms" =~ ^[0-9]+$ ]] && (( tick_time_ms >= 100 )) || die "ZK_TICK_TIME_MS must be >= 100, got '$tick_time_ms'"
[[ "$force_sync" == yes || "$force_sync" == no ]] || die "ZK_FORCE_SYNC must be yes or no, got '$force_sync'"
[[ "$heap_mb" =~ ^[0-9]+$ ]] && (( heap_mb >= 64 )) || die "ZK_HEAP_MB must be >= 64, got '$heap_mb'"
ls "$lib_dir"/zookeeper-3*.jar >/dev/null 2>&1 || die "no ZooKeeper jar in SYNOD_LIB_DIR=$lib_dir"
[[ -r "$logback_config" ]] || die "ZK_LOGBACK_CONFIG $logback_config not readable"
server_lines=""
self_listed=0
for entry in $servers; do
  [[ "$entry" =~ ^([0-9]+)=([A-Za-z0-9._-]+):([0-9]+):([0-9]+)$ ]] \
    || die "bad ZK_SERVERS entry '$entry' (want ID=HOST:QUORUM_PORT:ELECTION_PORT)"
  id="${BASH_REMATCH[1]}"
  [[ "$id" == "$my_id" ]] && self_listed=1
  server_lines+="server.$id=${BASH_REMATCH[2]}:${BASH_REMATCH[3]}:${BASH_REMATCH[4]}:participant"$'\n'
done
(( self_listed )) || die "ZK_SERVERS does not list this server's id $my_id"

case "$netem" in
  on) "$here/apply-netem.sh" server ;;
  dry-run) "$here/apply-netem.sh" server --dry-run ;;
  off) echo "entrypoint-zk.sh: NETEM=off: no latency injected" ;;
  *) die "NETEM must be on, dry-run or off, got '$netem'" ;;
esac

mkdir -p "$data_dir"
echo "$my_id" >"$data_dir/myid"
config="$data_dir/zoo.cfg"
{
  echo "# Written by docker/entrypoint-zk.sh for server $my_id"
  echo "tickTime=$tick_time_ms"
  echo "initLimit=10"
  echo "syncLimit=5"
  echo "dataDir=$data_dir"
  echo "clientPort=$client_port"
  [[ -n "$client_port_address" ]] && echo "clientPortAddress=$client_port_address"
  # A static ensemble, as in the in-process harness (ZkEnsemble): no dynamic reconfiguration.
  echo "reconfigEnabled=false"
  echo "standaloneEnabled=true"
  echo "admin.enableServer=false"
  # srvr: the healthcheck, the bench's wait and locks-at's follower choice; ruok: manual checks.
  echo "4lw.commands.whitelist=srvr,ruok"
  echo "maxClientCnxns=0"
  echo "forceSync=$force_sync"
  printf '%s' "$server_lines"
} >"$config"
echo "entrypoint-zk.sh: server $my_id, config $config:"
sed 's/^/  /' "$config"

exec java -Xms64m "-Xmx${heap_mb}m" -XX:+UseSerialGC -Djava.awt.headless=true \
  "-Dlogback.configurationFile=$logback_config" "-Dzookeeper.log.dir=$data_dir" \
  -Dzookeeper.jmx.log4j.disable=true \
  -cp "$lib_dir/*" org.apache.zookeeper.server.quorum.QuorumPeerMain "$config"
