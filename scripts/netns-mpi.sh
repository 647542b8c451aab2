#!/usr/bin/env bash
# The sharded crowd on a simulated network, on one machine: every rank of
# `crowd_mpi` runs in a network namespace of its own, and the ranks talk
# OpenMPI over TCP through links with a delay and a rate, as ranks on
# separate machines behind one switch would.
#
#   scripts/netns-mpi.sh [--ranks 4] [--agents 1000000] [--steps 20]
#       [--delays "0 0.2 1"] [--rate 1gbit] [--bin PATH] [--mpirun "FLAGS"]
#       [-- CROWD_MPI_FLAGS...]
#
# The network: a hub namespace joined to each rank's namespace by a veth
# pair (10.77.K.1 on the hub's end `cnpmpi-hK`, 10.77.K.2 on the rank's end
# `mpinet`); the hub routes between them. Each end of each pair sends at
# most --rate (tbf). Each packet between two ranks is delayed once by the
# one-way delay: with `tc netem` on the ranks' ends when the kernel has it;
# otherwise the hub routes the packets it forwards through a tun device
# into scripts/delay-line.py (SCHED_FIFO, so that busy ranks do not starve
# it), which writes each back after the delay. Before each run the script
# measures the TCP round trip between two ranks' namespaces and prints it.
#
# Launching: mpirun runs in the hub namespace and treats each rank's
# namespace as a host (a hostfile of the ranks' addresses, and an rsh
# agent that runs OpenMPI's daemon there with `ip netns exec`, in a UTS
# namespace named after it), so every rank reaches its daemon on its own
# loopback and the others over its veth: `--mca btl tcp,self`,
# `btl_tcp_if_include mpinet`, `oob_tcp_if_include 10.77.0.0/16`.
# Traffic stays between the namespaces made here; they have no route
# elsewhere.
#
# Everything made here (namespaces, links, the delay line, the ranks, a
# temporary directory) is removed on exit, on failure and on interrupt;
# a run killed outright leaves namespaces named cnpmpi-*, which the next
# run removes first. Needs root, iproute2, tc, OpenMPI (`mpirun`), and
# python3 for the delay line and the round-trip probe.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

ranks=4 agents=1000000 steps=20 delays="0 0.2 1" rate=1gbit bin="" mpirun_flags=""
while [ $# -gt 0 ]; do
    case $1 in
        --ranks) ranks=$2; shift 2 ;;
        --agents) agents=$2; shift 2 ;;
        --steps) steps=$2; shift 2 ;;
        --delays) delays=$2; shift 2 ;;
        --rate) rate=$2; shift 2 ;;
        --bin) bin=$2; shift 2 ;;
        --mpirun) mpirun_flags=$2; shift 2 ;;
        --) shift; break ;;
        *) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
    esac
done
extra=("$@")
if [ "$(id -u)" != 0 ]; then
    echo "netns-mpi: needs root (network namespaces, tc)" >&2
    exit 1
fi
if [ "$ranks" -lt 2 ] || [ "$ranks" -gt 200 ]; then
    echo "netns-mpi: --ranks must be 2 to 200" >&2
    exit 1
fi
for tool in ip tc mpirun python3 unshare chrt; do
    command -v "$tool" >/dev/null || { echo "netns-mpi: $tool is missing" >&2; exit 1; }
done

prefix=cnpmpi
hub=$prefix-hub
rank_ns() { echo "$prefix-r$1"; }
work=$(mktemp -d)
delay_pid=""

teardown() {
    set +e
    if [ -n "$delay_pid" ]; then
        kill "$delay_pid" 2>/dev/null
        wait "$delay_pid" 2>/dev/null
        delay_pid=""
    fi
    for ns in "$hub" $(for k in $(seq 0 $((ranks - 1))); do rank_ns "$k"; done); do
        ip netns pids "$ns" >/dev/null 2>&1 || continue
        # Only processes inside the namespaces made here: ranks, daemons.
        pids=$(ip netns pids "$ns")
        [ -z "$pids" ] || kill $pids 2>/dev/null
        ip netns del "$ns"
    done
    rm -rf "$work"
}
trap teardown EXIT
trap 'exit 130' INT TERM HUP

if [ -z "$bin" ]; then
    cargo build --release -p canopy-mpi --features mpi --example crowd_mpi
    target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
    bin="$target_dir/release/examples/crowd_mpi"
fi
bin=$(realpath "$bin")

# Left over by a run that was killed outright.
teardown
work=$(mktemp -d)

# The network.
in_hub() { ip netns exec "$hub" "$@"; }
ip netns add "$hub"
ip -n "$hub" link set lo up
in_hub sysctl -qw net.ipv4.ip_forward=1 net.ipv4.conf.all.rp_filter=0 \
    net.ipv4.conf.default.rp_filter=0
for k in $(seq 0 $((ranks - 1))); do
    ns=$(rank_ns "$k")
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    # Steps here take longer than TCP's idle timeout, which would restart
    # slow start at every exchange; on machines fast enough to matter the
    # links never idle that long.
    ip netns exec "$ns" sysctl -qw net.ipv4.tcp_slow_start_after_idle=0
    ip link add "$prefix-h$k" netns "$hub" type veth peer name mpinet netns "$ns"
    ip -n "$hub" addr add "10.77.$k.1/24" dev "$prefix-h$k"
    ip -n "$ns" addr add "10.77.$k.2/24" dev mpinet
    ip -n "$hub" link set "$prefix-h$k" up
    ip -n "$ns" link set mpinet up
    ip -n "$ns" route add 10.77.0.0/16 via "10.77.$k.1"
    in_hub sysctl -qw "net.ipv4.conf.$prefix-h$k.rp_filter=0"
    in_hub tc qdisc add dev "$prefix-h$k" root tbf rate "$rate" burst 16kb latency 20ms
done

if ip netns exec "$(rank_ns 0)" tc qdisc add dev mpinet root netem delay 1ms rate "$rate" 2>/dev/null; then
    ip netns exec "$(rank_ns 0)" tc qdisc del dev mpinet root
    netem=1
    echo "netns-mpi: delays by tc netem on each rank's link, rate $rate by netem and tbf"
else
    netem=0
    echo "netns-mpi: this kernel has no tc netem (sch_netem); delays by scripts/delay-line.py in the hub namespace, rate $rate by tbf on both ends of each link"
    ip -n "$hub" tuntap add mode tun name "$prefix-delay"
    ip -n "$hub" link set "$prefix-delay" up
    in_hub sysctl -qw "net.ipv4.conf.$prefix-delay.rp_filter=0"
    # Packets arriving from a rank's link are routed into the delay line;
    # those the line writes back arrive on the tun and take the main table.
    ip -n "$hub" route add default dev "$prefix-delay" table 100
fi

# Sets the one-way delay between ranks to $1 ms (0: none).
set_delay() {
    local d=$1 k ns
    for k in $(seq 0 $((ranks - 1))); do
        ns=$(rank_ns "$k")
        if [ "$netem" = 1 ]; then
            if [ "$d" = 0 ]; then
                ip netns exec "$ns" tc qdisc replace dev mpinet root tbf rate "$rate" burst 16kb latency 20ms
            else
                ip netns exec "$ns" tc qdisc replace dev mpinet root netem delay "${d}ms" rate "$rate"
            fi
        else
            ip netns exec "$ns" tc qdisc replace dev mpinet root tbf rate "$rate" burst 16kb latency 20ms
            ip -n "$hub" rule del iif "$prefix-h$k" lookup 100 2>/dev/null || true
            [ "$d" = 0 ] || ip -n "$hub" rule add iif "$prefix-h$k" lookup 100 priority 100
        fi
    done
    if [ "$netem" = 0 ]; then
        if [ -n "$delay_pid" ]; then
            kill "$delay_pid"
            wait "$delay_pid" 2>/dev/null || true
            delay_pid=""
        fi
        if [ "$d" != 0 ]; then
            ip netns exec "$hub" chrt -f 10 python3 scripts/delay-line.py "$prefix-delay" "$d" &
            delay_pid=$!
            sleep 0.3
        fi
    fi
}

# The median TCP round trip between rank 0's and rank 1's namespaces.
probe() {
    cat >"$work/probe.py" <<'EOF'
import socket, sys, time
if sys.argv[1] == "serve":
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", 7777))
    s.listen()
    c, _ = s.accept()
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while d := c.recv(64):
        c.sendall(d)
else:
    for attempt in range(50):
        try:
            c = socket.create_connection((sys.argv[2], 7777), timeout=5)
            break
        except OSError:
            time.sleep(0.05)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    times = []
    for _ in range(101):
        t = time.perf_counter()
        c.sendall(b"x")
        c.recv(64)
        times.append(time.perf_counter() - t)
    times.sort()
    print(f"{times[50] * 1e3:.3f}")
EOF
    ip netns exec "$(rank_ns 1)" python3 "$work/probe.py" serve &
    local server=$!
    ip netns exec "$(rank_ns 0)" python3 "$work/probe.py" client 10.77.1.2
    wait "$server"
}

# Each rank's namespace as a host.
for k in $(seq 0 $((ranks - 1))); do echo "10.77.$k.2 slots=1"; done >"$work/hosts"
cat >"$work/agent" <<EOF
#!/bin/sh
# OpenMPI's rsh agent: run the daemon's command in the namespace of the
# address it was given, under a host name of its own.
host=\$1
shift
k=\${host#10.77.}
k=\${k%.2}
exec ip netns exec "$prefix-r\$k" unshare --uts sh -c "hostname $prefix-r\$k; \$*"
EOF
chmod +x "$work/agent"

summary=()
for d in $delays; do
    set_delay "$d"
    rtt=$(probe)
    echo "== $ranks ranks, $agents agents, $steps steps, one-way delay $d ms, rate $rate: TCP round trip $rtt ms =="
    status=0
    # In the background, so that a signal ends the wait (and the trap
    # tears down) at once rather than after the run.
    (in_hub timeout 1800 mpirun --allow-run-as-root --oversubscribe -n "$ranks" \
        --hostfile "$work/hosts" --mca plm_rsh_agent "$work/agent" \
        --mca oob_tcp_if_include 10.77.0.0/16 \
        --mca btl tcp,self --mca btl_tcp_if_include mpinet \
        --mca mpi_yield_when_idle 1 -x RAYON_NUM_THREADS=1 $mpirun_flags \
        "$bin" --agents "$agents" --steps "$steps" --print-every 0 "${extra[@]}" \
        | tee "$work/run.out") &
    wait $! || status=$?
    if [ "$status" != 0 ] || ! grep -q '^median per step' "$work/run.out"; then
        echo "netns-mpi: the run with a one-way delay of $d ms failed (status $status)" >&2
        exit 1
    fi
    summary+=("delay $d ms (round trip $rtt ms): $(grep '^median per step' "$work/run.out" | sed 's/^median per step: //')")
done
echo
echo "== summary: $ranks ranks, $agents agents, $steps steps, rate $rate (medians per step) =="
printf '%s\n' "${summary[@]}"
