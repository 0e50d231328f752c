#!/usr/bin/env bash
# netns-hosts.sh -- separate "hosts" on this one machine, for the deploy tests (NetnsHosts.java) and by hand.
#
# Host I is the network namespace rl-nI with one interface, eth0 = 10.77.0.(10+I)/24 (rl-n1 = 10.77.0.11, ...),
# the peer of a veth rl-hI whose other end sits on the bridge rl-br0 (10.77.0.1/24) in the root namespace. The
# segment is closed: the bridge has no uplink, forwarding is left as it is (nothing routes to or from the
# segment), the namespaces have no default route and IPv6 is off in them, and each namespace's nftables table
# `inet rlhosts` drops anything it sends to an address outside 10.77.0.0/24 (loopback excepted). So every
# packet stays between the namespaces this script made and the bridge on this machine.
#
# Usage (root):
#   netns-hosts.sh up N                  make hosts 1..N (keeps the ones that exist; 1 <= N <= 40)
#   netns-hosts.sh down                  kill every process inside the hosts, remove hosts, veths, bridge, state
#   netns-hosts.sh exec I CMD [ARG...]   run CMD inside host I (exec: the pid is CMD's)
#   netns-hosts.sh ip I                  print host I's address ("host" or 0: the bridge's, 10.77.0.1)
#   netns-hosts.sh partition I [J...]    cut host I off from hosts J... (none named: from every other host);
#                                        J may be "host" (the bridge address, where the tests' clients run)
#   netns-hosts.sh heal [I]              remove every cut involving I (no I: every cut)
#   netns-hosts.sh degrade I LOSS RATE   make host I's link lossy and narrow: drop LOSS % of the packets it sends
#                                        and receives (0-100) and cap what it sends at RATE kbit/s (0: no cap);
#                                        the kernel here has no netem, so no added latency
#   netns-hosts.sh restore I             undo degrade
#   netns-hosts.sh pids I                pids of the processes inside host I
#   netns-hosts.sh kill I [SIGNAL]       send SIGNAL (default KILL) to every process inside host I
#   netns-hosts.sh status                hosts, their addresses, cuts and processes
#
# A cut {I,J} drops (no RST: as a dead cable would) every packet between the two addresses, on both ends.
# Cuts live in $RL_NETNS_STATE/cuts (default /run/raftline-netns-hosts); after each change every host's
# nftables set `cut` is rewritten from that file, so `partition 1 3; partition 2 3` leaves {1,2} | {3}.
# Exit codes: 0 done, 1 a command failed, 2 bad usage.
set -euo pipefail

readonly NS_PREFIX=rl-n VETH_PREFIX=rl-h BRIDGE=rl-br0 NET=10.77.0 MAX_HOSTS=40
readonly BRIDGE_IP=$NET.1 STATE=${RL_NETNS_STATE:-/run/raftline-netns-hosts}

usage() { echo "netns-hosts: $*" >&2; exit 2; }
fail() { echo "netns-hosts: $*" >&2; exit 1; }

ns_name() { printf '%s%s' "$NS_PREFIX" "$1"; }
addr_of() { case $1 in host | 0) echo "$BRIDGE_IP" ;; *) echo "$NET.$((10 + $1))" ;; esac; }
inside() { local i=$1; shift; ip netns exec "$(ns_name "$i")" "$@"; }
# The hosts that exist now, by number.
hosts() { ip netns list 2>/dev/null | awk -v p="^$NS_PREFIX[0-9]+\$" '$1 ~ p { sub(/^[^0-9]*/, "", $1); print $1 }' | sort -n; }
is_host() { [[ $1 =~ ^[0-9]+$ ]] && hosts | grep -qx "$1"; }
need_host() { is_host "${1:-}" || usage "no host '${1:-}' (make it with: up N)"; }

cmd_up() {
  local n=${1:-}
  [[ $n =~ ^[0-9]+$ ]] && ((n >= 1 && n <= MAX_HOSTS)) || usage "up N, with 1 <= N <= $MAX_HOSTS"
  command -v nft >/dev/null || fail "nft not found (apt-get install nftables)"
  mkdir -p "$STATE"
  [[ -f $STATE/cuts ]] || : >"$STATE/cuts"
  # The segment must not be routed anywhere else already: then our bridge would not be where 10.77.0.x goes.
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    if ip -4 route show to match "$NET.11" | grep -v '^default' | grep -q .; then
      fail "$NET.0/24 is already routed on this machine ($(ip -4 route show to match "$NET.11" | grep -v '^default' | head -n 1)); not making $BRIDGE"
    fi
    ip link add name "$BRIDGE" type bridge
  fi
  sysctl -q -w "net.ipv6.conf.$BRIDGE.disable_ipv6=1" >/dev/null 2>&1 || true
  ip addr replace "$BRIDGE_IP/24" dev "$BRIDGE"
  ip link set dev "$BRIDGE" up
  local i ns veth
  for ((i = 1; i <= n; i++)); do
    ns=$(ns_name "$i")
    veth=$VETH_PREFIX$i
    is_host "$i" || ip netns add "$ns"
    if ! ip link show "$veth" >/dev/null 2>&1; then
      ip link add name "$veth" type veth peer name eth0 netns "$ns"
    fi
    sysctl -q -w "net.ipv6.conf.$veth.disable_ipv6=1" >/dev/null 2>&1 || true
    ip link set dev "$veth" master "$BRIDGE"
    ip link set dev "$veth" up
    inside "$i" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 >/dev/null 2>&1 || true
    inside "$i" sysctl -q -w net.ipv6.conf.default.disable_ipv6=1 >/dev/null 2>&1 || true
    inside "$i" ip link set dev lo up
    inside "$i" ip addr replace "$(addr_of "$i")/24" dev eth0
    inside "$i" ip link set dev eth0 up
    # Rebuilt on every up: the cut set (filled by apply_cuts) and the guard that keeps traffic on the segment.
    inside "$i" nft -f - <<EOF
table inet rlhosts
delete table inet rlhosts
table inet rlhosts {
  set cut { type ipv4_addr; }
  chain input {
    type filter hook input priority filter - 5; policy accept;
    iif "lo" accept
    ip saddr @cut drop
  }
  chain output {
    type filter hook output priority filter - 5; policy accept;
    oif "lo" accept
    meta nfproto ipv6 drop
    ip daddr != $NET.0/24 drop
    ip daddr @cut drop
  }
}
EOF
  done
  # Where the root namespace now sends the hosts' addresses: our bridge, and nothing else.
  for i in $(hosts); do
    ip -4 route get "$(addr_of "$i")" | grep -q "dev $BRIDGE" || fail "$(addr_of "$i") is not routed to $BRIDGE"
  done
  apply_cuts
  local line="up:"
  for i in $(hosts); do line+=" $(ns_name "$i")=$(addr_of "$i")"; done
  echo "$line host=$BRIDGE_IP"
}

cmd_down() {
  local i pids
  for i in $(hosts); do
    pids=$(ip netns pids "$(ns_name "$i")" 2>/dev/null | tr '\n' ' ')
    if [[ -n ${pids// /} ]]; then
      # shellcheck disable=SC2086
      kill -CONT $pids 2>/dev/null || true # a stopped process dies only once it runs again
      # shellcheck disable=SC2086
      kill -KILL $pids 2>/dev/null || true
    fi
  done
  for i in $(hosts); do
    ip link del "$VETH_PREFIX$i" 2>/dev/null || true # takes the namespace's eth0 with it
    ip netns del "$(ns_name "$i")" 2>/dev/null || true
  done
  # veths left behind by a namespace removed some other way
  local link
  for link in $(ip -o link show 2>/dev/null | awk -F': ' -v p="^$VETH_PREFIX[0-9]+(@|\$)" '$2 ~ p { sub(/@.*/, "", $2); print $2 }'); do
    ip link del "$link" 2>/dev/null || true
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  rm -rf "$STATE"
  echo "down: no $NS_PREFIX* hosts, $VETH_PREFIX* veths or $BRIDGE left"
}

# Normalised cut "a b" (a < b, the bridge written as 0).
cut_line() {
  local a=$1 b=$2
  [[ $a == host ]] && a=0
  [[ $b == host ]] && b=0
  if ((a < b)); then echo "$a $b"; else echo "$b $a"; fi
}

apply_cuts() {
  local i a b peers
  for i in $(hosts); do
    peers=()
    while read -r a b; do
      [[ -n ${a:-} ]] || continue
      if [[ $a == "$i" ]]; then peers+=("$(addr_of "$b")"); elif [[ $b == "$i" ]]; then peers+=("$(addr_of "$a")"); fi
    done <"$STATE/cuts"
    if ((${#peers[@]})); then
      printf 'flush set inet rlhosts cut\nadd element inet rlhosts cut { %s }\n' "$(IFS=,; echo "${peers[*]}")" | inside "$i" nft -f -
    else
      inside "$i" nft flush set inet rlhosts cut
    fi
  done
}

cmd_partition() {
  local i=${1:-}
  need_host "$i"
  shift
  local others=("$@") j
  if ((${#others[@]} == 0)); then
    for j in $(hosts); do [[ $j == "$i" ]] || others+=("$j"); done
  fi
  for j in "${others[@]}"; do
    [[ $j == host ]] || need_host "$j"
    [[ $j == "$i" ]] && continue
    grep -qx "$(cut_line "$i" "$j")" "$STATE/cuts" || cut_line "$i" "$j" >>"$STATE/cuts"
  done
  apply_cuts
  echo "partition: $(ns_name "$i") cut from ${others[*]:-nothing}"
}

cmd_heal() {
  [[ -f $STATE/cuts ]] || fail "no hosts are up"
  if (($# == 0)); then
    : >"$STATE/cuts"
  else
    need_host "$1"
    awk -v i="$1" '$1 != i && $2 != i' "$STATE/cuts" >"$STATE/cuts.tmp"
    mv "$STATE/cuts.tmp" "$STATE/cuts"
  fi
  apply_cuts
  echo "heal: ${1:-every host}; cuts left: $(paste -sd';' "$STATE/cuts")"
}

cmd_degrade() {
  need_host "${1:-}"
  local i=$1 loss=${2:-} rate=${3:-}
  [[ $loss =~ ^[0-9]+$ ]] && ((loss <= 100)) || usage "degrade I LOSS RATE: LOSS is a percentage, 0-100"
  [[ $rate =~ ^[0-9]+$ ]] || usage "degrade I LOSS RATE: RATE is kbit/s, 0 for no cap"
  cmd_restore "$i" >/dev/null
  inside "$i" nft -f - <<EOF
table inet rldegrade {
  chain input {
    type filter hook input priority filter - 10; policy accept;
    iif "lo" accept
    numgen random mod 100 < $loss drop
  }
  chain output {
    type filter hook output priority filter - 10; policy accept;
    oif "lo" accept
    numgen random mod 100 < $loss drop
  }
}
EOF
  if ((rate > 0)); then
    inside "$i" tc qdisc replace dev eth0 root tbf rate "${rate}kbit" burst 16kb latency 200ms
  fi
  echo "degrade: $(ns_name "$i") drops $loss % and sends at most $rate kbit/s (0: no cap)"
}

cmd_restore() {
  need_host "${1:-}"
  inside "$1" nft delete table inet rldegrade 2>/dev/null || true
  inside "$1" tc qdisc del dev eth0 root 2>/dev/null || true
  echo "restore: $(ns_name "$1") link as made"
}

cmd_kill() {
  need_host "${1:-}"
  local sig=${2:-KILL} pids
  pids=$(ip netns pids "$(ns_name "$1")" | tr '\n' ' ')
  if [[ -z ${pids// /} ]]; then
    echo "$(ns_name "$1"): no processes"
    return 0
  fi
  # shellcheck disable=SC2086
  kill -s "$sig" $pids
  echo "$(ns_name "$1"): SIG${sig#SIG} sent to $pids"
}

cmd_status() {
  ip -br addr show "$BRIDGE" 2>/dev/null || echo "$BRIDGE: absent"
  local i
  for i in $(hosts); do
    printf '%s %s cut={%s} pids=[%s]\n' "$(ns_name "$i")" "$(addr_of "$i")" \
      "$(inside "$i" nft list set inet rlhosts cut 2>/dev/null | sed -n 's/.*elements = { \(.*\) }.*/\1/p')" \
      "$(ip netns pids "$(ns_name "$i")" | paste -sd' ')"
  done
  if [[ -f $STATE/cuts ]]; then echo "cuts: $(paste -sd';' "$STATE/cuts")"; else echo "cuts: (no hosts up)"; fi
}

main() {
  local cmd=${1:-help}
  (($#)) && shift
  case $cmd in
    help | -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; return 0 ;;
  esac
  [[ $(id -u) == 0 ]] || fail "needs root (network namespaces)"
  case $cmd in
    up) cmd_up "$@" ;;
    down) cmd_down ;;
    exec)
      need_host "${1:-}"
      local i=$1
      shift
      (($#)) || usage "exec I CMD [ARG...]"
      exec ip netns exec "$(ns_name "$i")" "$@"
      ;;
    ip)
      [[ ${1:-} == host || ${1:-} == 0 ]] || need_host "${1:-}"
      addr_of "$1"
      ;;
    partition) cmd_partition "$@" ;;
    heal) cmd_heal "$@" ;;
    degrade) cmd_degrade "$@" ;;
    restore) cmd_restore "$@" ;;
    pids) need_host "${1:-}"; ip netns pids "$(ns_name "$1")" ;;
    kill) cmd_kill "$@" ;;
    status) cmd_status ;;
    *) usage "unknown command '$cmd' (netns-hosts.sh help)" ;;
  esac
}
main "$@"
