#!/usr/bin/env bash
# A Spark standalone cluster of N nodes on this machine: one Linux network namespace per node, each
# joined by a veth pair to a bridge that lives in a namespace of its own, each node's link shaped in
# both directions with tc (tbf), a Spark Master in node 0 and one Worker per node, whose executors are
# launched inside the Worker's namespace. Needs root and iproute2 (ip, tc).
#
# Everything is named after a run id R (1..250): namespaces ferry-R-node<K> and ferry-R-bridge, state
# under /run/ferry-netns/R, host files under /etc/netns/ferry-R-*. Node K has the address 10.213.R.(K+1)
# and the host name node<K> (SPARK_LOCAL_HOSTNAME; every node's /etc/hosts names all nodes), so each
# node's Ferry finds itself in the generated topology file by host name. Nothing outside the
# namespaces this script made is given an address or contacted.
#
# Loss is random drops of a node's outgoing packets by nftables (nft, 'numgen random'), in the kernel on
# the node's own link, since this machine's kernel has no netem qdisc and no tc gact action. Delay and
# jitter need netem; where the kernel lacks it the script refuses them and says so instead of faking
# them with a userspace delay.
set -euo pipefail

readonly STATE_ROOT=/run/ferry-netns
SCRIPT="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")"
readonly SCRIPT
readonly SUBNET_PREFIX=10.213
readonly NAME_PATTERN='^ferry-([0-9]+)-(node[0-9]+|bridge)$'

usage() {
    cat <<'USAGE'
usage: scripts/netns-cluster.sh <command> [options]

  up --classpath FILE [--nodes N] [--rate R] [--delay D] [--loss P%] [--run R] [--dir DIR]
     [--worker-cores C] [--worker-memory M] [--timeout S] [--owner PID]
        make the namespaces, links and shaping, start the Master and Workers, wait (bounded) until every
        Worker registered; prints the run id, the master URL and the topology file as KEY=VALUE lines.
        FILE holds a ':'-separated class path whose jars (Ferry's own left out) become SPARK_HOME/jars.
        R is a tc rate (e.g. 500mbit, 1gbit, 10gbit); --loss drops P% of every node's packets (nftables).
        The cluster belongs to PID (default: the caller);
        a later run tears it down as stale once PID has exited.
  run [up options] -- COMMAND...
        up, then COMMAND inside node 0's namespace with FERRY_NETNS_* in its environment, then down;
        torn down also on failure, on --timeout (whole run) and on SIGINT/SIGTERM.
  exec --run R --node K -- COMMAND...   run COMMAND in node K's namespace with the cluster's environment
  submit --run R -- SPARK-SUBMIT-ARGS... spark-submit (client mode) against the run's Master from node 0;
                                        --run defaults to $FERRY_NETNS_RUN (set inside 'run')
  link --run R --node K up|down         take node K's link down or bring it back (a fault)
  partition --run R --node K --peer J on|off
                                        cut (or heal) the path between nodes K and J only: both keep
                                        their links to every other node (a fault)
  loss --run R --node K|all P%|off       drop P% (0.01..50) of node K's (or every node's) outgoing
                                        packets at random, or stop and print how many were dropped (a fault)
  kill --run R --node K                 SIGKILL every process in node K (its Worker and executors), as
                                        a machine that dies; the namespace and link stay (a fault)
  counters --run R                      per node: bytes and packets sent/received on its link and the
                                        qdisc counters, one line per node
  down --run R                          stop every process in the run's namespaces and delete them
  clean-stale                           tear down runs whose owner process has exited
  list                                  the ferry-* namespaces of this machine
USAGE
}

die() {
    echo "netns-cluster: $*" >&2
    exit 1
}

log() {
    echo "netns-cluster: $*" >&2
}

# P% (or P) as basis points of 10000, for nft's 'numgen random mod 10000 < N'; 0.01% .. 50%.
loss_basis_points() {
    echo "$1" | awk '
        match($0, /^[0-9]+(\.[0-9]+)?%?$/) { p = $0; sub(/%$/, "", p); n = int(p * 100 + 0.5); if (n >= 1 && n <= 5000) { print n; exit 0 } }
        { exit 1 }' || die "loss '$1' is not a percentage between 0.01% and 50% (e.g. 1%)"
}

loss_available() {
    command -v nft >/dev/null 2>&1 || return 1
    local probe="ferry-probe-nft-$$" ok=1
    ip netns add "$probe" 2>/dev/null || return 1
    ip netns exec "$probe" nft add table inet ferry_probe 2>/dev/null && ok=0
    ip netns del "$probe" 2>/dev/null || true
    return $ok
}

# Node K drops P% of what it sends on its link (eth0), chosen per packet at random by the kernel: TCP
# sees what a lossy link would give it (retransmits, a smaller window). 'off' removes the rule and prints
# how many packets it dropped.
set_loss() {
    local run="$1" k="$2" loss="$3" namespace points
    namespace="$(node_ns "$run" "$k")"
    ip netns list | awk '{print $1}' | grep -qx "$namespace" || die "no node $k in run $run"
    if [ "$loss" = "off" ]; then
        local dropped
        dropped="$(ip netns exec "$namespace" nft list table inet ferry_loss 2>/dev/null | sed -nE 's/.*counter packets ([0-9]+) bytes.*/\1/p' | head -n 1)"
        ip netns exec "$namespace" nft delete table inet ferry_loss 2>/dev/null || true
        ip -n "$namespace" link set eth0 gso_max_segs 65535 2>/dev/null || true
        echo "netns-cluster: node $k loss off: dropped ${dropped:-0} packets"
        return 0
    fi
    points="$(loss_basis_points "$loss")"
    loss_available || die "loss needs nftables ('nft', Debian's nftables package) and netfilter in the kernel"
    ip netns exec "$namespace" nft delete table inet ferry_loss 2>/dev/null || true
    # The output hook sees TCP's segments before GSO cuts them into wire packets: one segment per packet,
    # so a drop loses one packet of the wire, not up to 64 KiB of them at once.
    ip -n "$namespace" link set eth0 gso_max_segs 1
    ip netns exec "$namespace" nft -f - <<NFT
table inet ferry_loss {
    chain egress {
        type filter hook output priority 0; policy accept;
        oifname "eth0" numgen random mod 10000 < $points counter drop
    }
}
NFT
    log "node $k drops $loss of its outgoing packets"
}

require_tools() {
    [ "$(id -u)" = "0" ] || die "needs root to make network namespaces (running as uid $(id -u))"
    command -v ip >/dev/null 2>&1 || die "needs 'ip' from iproute2"
    command -v tc >/dev/null 2>&1 || die "needs 'tc' from iproute2"
}

node_ns() { echo "ferry-$1-node$2"; }
bridge_ns() { echo "ferry-$1-bridge"; }
node_address() { echo "$SUBNET_PREFIX.$1.$(($2 + 1))"; }

# The start time of a process (field 22 of /proc/PID/stat), so a reused pid is not taken for the owner.
start_time() {
    [ -r "/proc/$1/stat" ] || return 1
    sed -E 's/^.*\) //' "/proc/$1/stat" | awk '{print $20}'
}

owner_alive() {
    local state="$STATE_ROOT/$1"
    [ -f "$state/owner" ] || return 1
    local pid started
    read -r pid started <"$state/owner"
    [ "$(start_time "$pid" 2>/dev/null || true)" = "$started" ]
}

run_ids() {
    { ip netns list 2>/dev/null | awk '{print $1}' | sed -nE "s/$NAME_PATTERN/\\1/p"; ls "$STATE_ROOT" 2>/dev/null | grep -E '^[0-9]+$' || true; } | sort -un
}

# Stops every process in a namespace (executors, Workers, the Master, a driver), bounded: TERM, then KILL.
stop_processes() {
    local namespace="$1" pids attempt
    for attempt in $(seq 1 50); do
        pids="$(ip netns pids "$namespace" 2>/dev/null || true)"
        [ -n "$pids" ] || return 0
        if [ "$attempt" -lt 40 ]; then
            # shellcheck disable=SC2086
            kill -TERM $pids 2>/dev/null || true
        else
            # shellcheck disable=SC2086
            kill -KILL $pids 2>/dev/null || true
        fi
        sleep 0.25
    done
    log "processes still in $namespace after KILL: $(ip netns pids "$namespace" 2>/dev/null | tr '\n' ' ')"
}

down() {
    local run="$1" namespace
    for namespace in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^ferry-$run-(node[0-9]+|bridge)$" || true); do
        stop_processes "$namespace"
    done
    for namespace in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^ferry-$run-(node[0-9]+|bridge)$" || true); do
        # Deleting a namespace deletes its veth ends (and so their peers) and their qdiscs.
        ip netns del "$namespace" 2>/dev/null || log "could not delete namespace $namespace"
        rm -rf "/etc/netns/$namespace"
    done
    rm -rf "${STATE_ROOT:?}/$run"
}

clean_stale() {
    local run
    for run in $(run_ids); do
        if ! owner_alive "$run"; then
            log "tearing down stale run $run (its owner exited)"
            down "$run"
        fi
    done
}

free_run_id() {
    local run used
    used=" $(run_ids | tr '\n' ' ') "
    for run in $(seq 1 250); do
        case "$used" in
            *" $run "*) ;;
            *) echo "$run"; return 0 ;;
        esac
    done
    die "all 250 run ids are in use (see: $0 list)"
}

# Bits per second of a tc rate such as 500mbit, 1gbit, 1.5gbit or 100000000bit.
rate_bits() {
    local rate="$1"
    echo "$rate" | awk '
        match($0, /^[0-9]+(\.[0-9]+)?/) {
            number = substr($0, 1, RLENGTH); unit = substr($0, RLENGTH + 1)
            if (unit == "bit") factor = 1; else if (unit == "kbit") factor = 1e3
            else if (unit == "mbit") factor = 1e6; else if (unit == "gbit") factor = 1e9
            else exit 1
            printf "%.0f\n", number * factor; exit 0
        }
        { exit 1 }' || die "--rate '$rate' is not a rate like 500mbit, 1gbit or 10gbit"
}

netem_available() {
    local probe="ferry-probe-$$"
    ip netns add "$probe" 2>/dev/null || return 1
    local ok=1
    ip -n "$probe" link add dummy0 type dummy 2>/dev/null && tc -n "$probe" qdisc add dev dummy0 root netem delay 1ms 2>/dev/null && ok=0
    ip netns del "$probe" 2>/dev/null || true
    return $ok
}

# tbf on both directions of node K's link: its eth0 (what the node sends) and its port on the bridge (what it receives).
shape() {
    local namespace="$1" device="$2" rate="$3" bits burst
    bits="$(rate_bits "$rate")"
    # 4 ms at the rate, at least 128 KiB, so a 64 KiB GSO segment always fits one burst.
    burst=$((bits / 8 / 250))
    [ "$burst" -ge 131072 ] || burst=131072
    tc -n "$namespace" qdisc add dev "$device" root handle 1: tbf rate "$rate" burst "$burst" latency 50ms
}

spark_home() {
    local directory="$1" classpath_file="$2" jars entry linked=0
    jars="$directory/spark-home/jars"
    mkdir -p "$jars"
    # The launcher takes SPARK_HOME/jars as a distribution's class path only when RELEASE exists.
    echo "Spark 4.2.0 laid out by Ferry's scripts/netns-cluster.sh" >"$directory/spark-home/RELEASE"
    [ -r "$classpath_file" ] || die "--classpath $classpath_file is not a readable file"
    for entry in $(tr ':' ' ' <"$classpath_file"); do
        case "$entry" in
            *.jar) ;;
            *) continue ;;
        esac
        [ -f "$entry" ] || continue
        case "$(basename "$entry")" in ferry-*) continue ;; esac
        case "$entry" in */dev/ferry/*) continue ;; esac
        ln -sf "$entry" "$jars/$(basename "$entry")"
        linked=$((linked + 1))
    done
    ls "$jars"/spark-core_2.13-*.jar >/dev/null 2>&1 || die "no spark-core jar among the $linked jars of $classpath_file"
    echo "$directory/spark-home"
}

topology_file() {
    local file="$1" nodes="$2" mbps="$3" k
    {
        echo '{'
        echo "  \"name\": \"netns-$nodes-nodes\","
        echo "  \"description\": \"$nodes network namespaces on one machine, TCP only, each link shaped to $mbps Mbit/s\","
        echo '  "nodes": ['
        for k in $(seq 0 $((nodes - 1))); do
            echo "    {\"hostname\": \"node$k\", \"netInterfaces\": [{\"name\": \"eth0\", \"kind\": \"ETHERNET\", \"speedMbps\": $mbps, \"up\": true}]}$([ "$k" -lt $((nodes - 1)) ] && echo ,)"
        done
        echo '  ]'
        echo '}'
    } >"$file"
}

# The environment of every process in node K: Spark binds and advertises the node's address and name.
node_env() {
    local run="$1" k="$2" state="$STATE_ROOT/$1"
    echo "SPARK_HOME=$(cat "$state/spark-home")"
    echo "SPARK_SCALA_VERSION=2.13"
    echo "SPARK_LOCAL_IP=$(node_address "$run" "$k")"
    echo "SPARK_LOCAL_HOSTNAME=node$k"
    echo "SPARK_DAEMON_MEMORY=256m"
    echo "FERRY_NETNS_RUN=$run"
    echo "FERRY_NETNS_NODE=$k"
    echo "FERRY_NETNS_MASTER=$(cat "$state/master")"
    echo "FERRY_NETNS_TOPOLOGY=$(cat "$state/topology")"
    echo "FERRY_NETNS_NODES=$(cat "$state/nodes")"
    echo "FERRY_NETNS_SCRIPT=$SCRIPT"
}

exec_in_node() {
    local run="$1" k="$2"
    shift 2
    local -a environment
    mapfile -t environment < <(node_env "$run" "$k")
    exec ip netns exec "$(node_ns "$run" "$k")" env -u SPARK_TESTING "${environment[@]}" "$@"
}

# The java command line Spark's own launcher builds for a main class (as bin/spark-class does), into LAUNCHED.
launcher_command() {
    local run="$1" k="$2"
    shift 2
    local java="${JAVA:-java}" home word
    home="$(cat "$STATE_ROOT/$run/spark-home")"
    local -a environment printed
    mapfile -t environment < <(node_env "$run" "$k")
    mapfile -d '' printed < <(env "${environment[@]}" "$java" -Xmx128m -cp "$home/jars/*" org.apache.spark.launcher.Main "$@")
    LAUNCHED=()
    # The launcher's output opens with an empty word and a newline; the command starts at the java binary.
    for word in "${printed[@]}"; do
        [ "${#LAUNCHED[@]}" -eq 0 ] && word="${word#$'\n'}"
        [ -z "$word" ] && [ "${#LAUNCHED[@]}" -eq 0 ] && continue
        LAUNCHED+=("$word")
    done
    [ "${#LAUNCHED[@]}" -gt 0 ] || die "Spark's launcher printed no command for $*"
}

# A Spark daemon in node K (as sbin/spark-daemon.sh starts one), output to its log.
start_daemon() {
    local run="$1" k="$2" log_file="$3"
    shift 3
    local -a environment
    mapfile -t environment < <(node_env "$run" "$k")
    launcher_command "$run" "$k" "$@"
    nohup ip netns exec "$(node_ns "$run" "$k")" env -u SPARK_TESTING "${environment[@]}" "${LAUNCHED[@]}" >"$log_file" 2>&1 </dev/null &
    echo "$! $log_file" >>"$STATE_ROOT/$run/daemons"
}

# spark-submit in client mode from node 0, so the driver is a process of the cluster's first node.
submit() {
    local run="$1"
    shift
    [ -f "$STATE_ROOT/$run/master" ] || die "no run $run (see: $0 list)"
    local address
    address="$(node_address "$run" 0)"
    launcher_command "$run" 0 org.apache.spark.deploy.SparkSubmit --master "$(cat "$STATE_ROOT/$run/master")" --deploy-mode client \
        --conf "spark.driver.host=$address" --conf "spark.driver.bindAddress=$address" \
        --conf "spark.ferry.topology.file=$(cat "$STATE_ROOT/$run/topology")" "$@"
    exec_in_node "$run" 0 "${LAUNCHED[@]}"
}

wait_for() {
    local deadline="$1" what="$2" log_file="$3"
    shift 3
    until "$@"; do
        daemons_alive "$log_file"
        if [ "$(date +%s)" -ge "$deadline" ]; then
            log "timed out waiting for $what; the last lines of $log_file:"
            tail -n 40 "$log_file" >&2 || true
            return 1
        fi
        sleep 0.5
    done
}

# Fails at once, with the daemon's log, when a daemon this run started has exited.
daemons_alive() {
    local pid daemon_log
    while read -r pid daemon_log; do
        if ! kill -0 "$pid" 2>/dev/null; then
            log "a Spark daemon exited early; the last lines of $daemon_log:"
            tail -n 40 "$daemon_log" >&2 || true
            exit 1
        fi
    done <"$STATE_ROOT/$run/daemons"
}

registered_workers() {
    grep -c "Registering worker" "$1" 2>/dev/null || true
}

up() {
    local nodes=2 rate=1gbit delay="" loss="" run="" directory="" classpath="" cores=1 memory=1g timeout=180 owner="$PPID"
    while [ $# -gt 0 ]; do
        case "$1" in
            --nodes) nodes="$2"; shift 2 ;;
            --rate) rate="$2"; shift 2 ;;
            --delay) delay="$2"; shift 2 ;;
            --loss) loss="$2"; shift 2 ;;
            --run) run="$2"; shift 2 ;;
            --dir) directory="$2"; shift 2 ;;
            --classpath) classpath="$2"; shift 2 ;;
            --worker-cores) cores="$2"; shift 2 ;;
            --worker-memory) memory="$2"; shift 2 ;;
            --timeout) timeout="$2"; shift 2 ;;
            --owner) owner="$2"; shift 2 ;;
            *) die "up: unknown option '$1'" ;;
        esac
    done
    [[ "$nodes" =~ ^[0-9]+$ ]] && [ "$nodes" -ge 1 ] && [ "$nodes" -le 16 ] || die "--nodes '$nodes' must be 1..16"
    [[ "$timeout" =~ ^[0-9]+$ ]] || die "--timeout '$timeout' must be seconds"
    [ -n "$classpath" ] || die "up needs --classpath FILE (a ':'-separated class path holding Spark's jars)"
    local bits
    bits="$(rate_bits "$rate")"
    if [ -n "$delay" ] && [ "$delay" != "0" ] && [ "$delay" != "0ms" ]; then
        netem_available || die "--delay needs the netem qdisc, which this kernel ($(uname -r)) does not have ('tc qdisc add ... netem' fails: Specified qdisc kind is unknown). Only --rate (tbf) and --loss (nftables) can be shaped here; a userspace delay would not be the link, so none is faked."
        die "--delay: netem is available on this kernel but not wired into this script yet"
    fi
    [ "$loss" != "0" ] && [ "$loss" != "0%" ] || loss=""
    if [ -n "$loss" ]; then
        loss_basis_points "$loss" >/dev/null
        loss_available || die "--loss needs nftables ('nft', Debian's nftables package) and netfilter in this kernel ($(uname -r))"
    fi
    clean_stale
    [ -n "$run" ] || run="$(free_run_id)"
    [[ "$run" =~ ^[0-9]+$ ]] && [ "$run" -ge 1 ] && [ "$run" -le 250 ] || die "--run '$run' must be 1..250"
    if ip netns list | awk '{print $1}' | grep -qE "^ferry-$run-"; then
        die "run $run already exists (namespaces ferry-$run-*); take it down first: $0 down --run $run"
    fi
    [ -n "$directory" ] || directory="$(mktemp -d "/tmp/ferry-netns-$run.XXXXXX")"
    mkdir -p "$directory/logs"
    directory="$(cd "$directory" && pwd)"
    local state="$STATE_ROOT/$run"
    mkdir -p "$state"
    echo "$owner $(start_time "$owner" || die "owner pid $owner is not running")" >"$state/owner"
    # From here on a failure (or a signal) undoes everything made so far.
    trap 'log "up did not finish; tearing run '"$run"' down"; down '"$run"'' EXIT
    trap 'exit 130' INT TERM
    local deadline=$(( $(date +%s) + timeout ))

    spark_home "$directory" "$classpath" >"$state/spark-home"
    echo "$nodes" >"$state/nodes"
    echo "$directory" >"$state/dir"
    topology_file "$directory/topology.json" "$nodes" $((bits / 1000000))
    echo "$directory/topology.json" >"$state/topology"
    echo "spark://$(node_address "$run" 0):7077" >"$state/master"

    local bridge k namespace
    bridge="$(bridge_ns "$run")"
    ip netns add "$bridge"
    ip -n "$bridge" link set lo up
    ip -n "$bridge" link add br0 type bridge
    ip -n "$bridge" link set br0 up
    for k in $(seq 0 $((nodes - 1))); do
        namespace="$(node_ns "$run" "$k")"
        ip netns add "$namespace"
        ip -n "$namespace" link set lo up
        # Both ends are made inside the namespaces: no interface of this script ever exists in the caller's namespace.
        ip link add eth0 netns "$namespace" type veth peer name "port$k" netns "$bridge"
        ip -n "$bridge" link set "port$k" master br0
        ip -n "$bridge" link set "port$k" up
        ip -n "$namespace" addr add "$(node_address "$run" "$k")/24" dev eth0
        ip -n "$namespace" link set eth0 up
        shape "$namespace" eth0 "$rate"
        shape "$bridge" "port$k" "$rate"
        [ -z "$loss" ] || set_loss "$run" "$k" "$loss"
        mkdir -p "/etc/netns/$namespace"
        {
            echo "127.0.0.1 localhost"
            local j
            for j in $(seq 0 $((nodes - 1))); do
                echo "$(node_address "$run" "$j") node$j"
            done
        } >"/etc/netns/$namespace/hosts"
    done

    start_daemon "$run" 0 "$directory/logs/master.log" org.apache.spark.deploy.master.Master \
        --host "$(node_address "$run" 0)" --port 7077 --webui-port 8080
    wait_for "$deadline" "the Master to listen" "$directory/logs/master.log" \
        grep -qs "Starting Spark master at" "$directory/logs/master.log"
    for k in $(seq 0 $((nodes - 1))); do
        mkdir -p "$directory/work-$k"
        start_daemon "$run" "$k" "$directory/logs/worker-$k.log" org.apache.spark.deploy.worker.Worker \
            --host "$(node_address "$run" "$k")" --webui-port 8081 --cores "$cores" --memory "$memory" \
            --work-dir "$directory/work-$k" "$(cat "$state/master")"
    done
    wait_for "$deadline" "$nodes Workers to register" "$directory/logs/master.log" \
        eval '[ "$(registered_workers "'"$directory/logs/master.log"'")" -ge '"$nodes"' ]'
    trap - EXIT INT TERM
    echo "FERRY_NETNS_RUN=$run"
    echo "FERRY_NETNS_MASTER=$(cat "$state/master")"
    echo "FERRY_NETNS_TOPOLOGY=$directory/topology.json"
    echo "FERRY_NETNS_DIR=$directory"
}

counters() {
    local run="$1" nodes k namespace
    [ -f "$STATE_ROOT/$run/nodes" ] || die "no run $run (see: $0 list)"
    nodes="$(cat "$STATE_ROOT/$run/nodes")"
    for k in $(seq 0 $((nodes - 1))); do
        namespace="$(node_ns "$run" "$k")"
        # ip -s link: RX then TX lines of "bytes packets errors dropped ..."; tc -s qdisc: the tbf's Sent/dropped.
        ip -n "$namespace" -s link show dev eth0 | awk -v node="$k" -v ns="$namespace" '
            /RX:/ { getline; rx_bytes = $1; rx_packets = $2 }
            /TX:/ { getline; tx_bytes = $1; tx_packets = $2 }
            END { printf "node=%s tx_bytes=%s tx_packets=%s rx_bytes=%s rx_packets=%s", node, tx_bytes, tx_packets, rx_bytes, rx_packets }'
        tc -n "$namespace" -s qdisc show dev eth0 | awk '
            /Sent/ { for (i = 1; i <= NF; i++) { if ($i == "Sent") sent = $(i + 1); if ($i == "(dropped") dropped = $(i + 1) } }
            /overlimits/ { for (i = 1; i <= NF; i++) if ($i == "overlimits") over = $(i + 1) }
            END { gsub(",", "", dropped); printf " qdisc_sent_bytes=%s qdisc_dropped=%s qdisc_overlimits=%s\n", sent, dropped, over }'
    done
}

link() {
    local run="$1" k="$2" state="$3"
    case "$state" in up|down) ;; *) die "link: say up or down, not '$state'" ;; esac
    ip -n "$(node_ns "$run" "$k")" link set eth0 "$state"
}

# A blackhole route in each of the two nodes for the other's address: the kernel drops what either sends
# to the other (the sender's connect fails at once), while both keep their routes to every other node, as
# a partition between two racks would. Needs no netfilter, which this kernel may lack as it lacks netem.
partition() {
    local run="$1" k="$2" j="$3" state="$4" verb
    case "$state" in on) verb=add ;; off) verb=del ;; *) die "partition: say on or off, not '$state'" ;; esac
    [ "$k" != "$j" ] || die "partition: node $k cannot be cut from itself"
    ip -n "$(node_ns "$run" "$k")" route "$verb" blackhole "$(node_address "$run" "$j")/32"
    ip -n "$(node_ns "$run" "$j")" route "$verb" blackhole "$(node_address "$run" "$k")/32"
}

# Every process of node K at once with SIGKILL: no shutdown hook, no goodbye to the Master or the driver.
kill_node() {
    local run="$1" k="$2" namespace pids
    namespace="$(node_ns "$run" "$k")"
    ip netns list | awk '{print $1}' | grep -qx "$namespace" || die "no node $k in run $run"
    pids="$(ip netns pids "$namespace" 2>/dev/null || true)"
    [ -n "$pids" ] || die "node $k of run $run has no process to kill"
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    log "killed node $k's processes: $(echo $pids | tr '\n' ' ')"
}

run_command() {
    local -a up_options=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do
        up_options+=("$1")
        shift
    done
    [ "${1:-}" = "--" ] || die "run: put the command after --"
    shift
    [ $# -gt 0 ] || die "run: no command after --"
    # --timeout bounds the whole run here, not only the start-up.
    local timeout=1800 i
    local -a kept=()
    for ((i = 0; i < ${#up_options[@]}; i++)); do
        if [ "${up_options[$i]}" = "--timeout" ]; then
            timeout="${up_options[$((i + 1))]}"
            i=$((i + 1))
        else
            kept+=("${up_options[$i]}")
        fi
    done
    [[ "$timeout" =~ ^[0-9]+$ ]] || die "--timeout '$timeout' must be seconds"
    up_options=("${kept[@]}")
    local output run
    output="$(up "${up_options[@]}" --owner $$)"
    echo "$output" >&2
    run="$(echo "$output" | sed -n 's/^FERRY_NETNS_RUN=//p')"
    trap 'down '"$run"'' EXIT
    trap 'exit 130' INT TERM
    local status=0
    # The command's own environment carries the run (FERRY_NETNS_*); it runs in node 0, like a driver on a cluster node.
    # In the background and waited for, so a SIGINT/SIGTERM is handled at once, not after the command ends.
    ( exec_in_node "$run" 0 timeout --kill-after=15 "$timeout" "$@" ) &
    wait "$!" || status=$?
    [ "$status" -ne 124 ] || log "the command ran past --timeout $timeout s and was stopped"
    return "$status"
}

command="${1:-}"
[ -n "$command" ] || { usage >&2; exit 2; }
shift
case "$command" in
    -h|--help|help) usage ;;
    list) ip netns list 2>/dev/null | awk '{print $1}' | grep -E "$NAME_PATTERN" || true ;;
    up) require_tools; up "$@" ;;
    run) require_tools; run_command "$@" ;;
    down|counters|exec|link|partition|loss|kill|submit)
        require_tools
        run="${FERRY_NETNS_RUN:-}" node="" peer="" rest=()
        while [ $# -gt 0 ]; do
            case "$1" in
                --run) run="$2"; shift 2 ;;
                --node) node="$2"; shift 2 ;;
                --peer) peer="$2"; shift 2 ;;
                --) shift; rest=("$@"); break ;;
                *) rest+=("$1"); shift ;;
            esac
        done
        [[ "$run" =~ ^[0-9]+$ ]] || die "$command needs --run R"
        case "$command" in
            down) down "$run" ;;
            submit) submit "$run" "${rest[@]}" ;;
            counters) counters "$run" ;;
            exec)
                [[ "$node" =~ ^[0-9]+$ ]] || die "exec needs --node K"
                [ "${#rest[@]}" -gt 0 ] || die "exec: no command after --"
                exec_in_node "$run" "$node" "${rest[@]}" ;;
            link)
                [[ "$node" =~ ^[0-9]+$ ]] || die "link needs --node K"
                link "$run" "$node" "${rest[0]:-}" ;;
            partition)
                [[ "$node" =~ ^[0-9]+$ ]] && [[ "$peer" =~ ^[0-9]+$ ]] || die "partition needs --node K --peer J"
                partition "$run" "$node" "$peer" "${rest[0]:-}" ;;
            loss)
                [ "${#rest[@]}" -gt 0 ] || die "loss needs P% or off"
                if [ "$node" = "all" ]; then
                    [ -f "$STATE_ROOT/$run/nodes" ] || die "no run $run (see: $0 list)"
                    for k in $(seq 0 $(($(cat "$STATE_ROOT/$run/nodes") - 1))); do
                        set_loss "$run" "$k" "${rest[0]}"
                    done
                else
                    [[ "$node" =~ ^[0-9]+$ ]] || die "loss needs --node K or --node all"
                    set_loss "$run" "$node" "${rest[0]}"
                fi ;;
            kill)
                [[ "$node" =~ ^[0-9]+$ ]] || die "kill needs --node K"
                kill_node "$run" "$node" ;;
        esac
        ;;
    clean-stale) require_tools; clean_stale ;;
    *) echo "netns-cluster: unknown command '$command'" >&2; usage >&2; exit 2 ;;
esac
