# shellcheck shell=bash
# Network namespaces for scripts/record-captures. Everything lives in namespaces this file creates;
# the addresses below exist only inside them.
#
#   wt-client c0 10.77.0.1/24 fd77::1/64  <==veth==>  s0 10.77.0.2/24 fd77::2/64 wt-server   (direct)
#   wt-client c1 10.77.1.1/24 <==veth==> m1 [wt-middle: impair-bridge.py] m2 <==veth==> s1 10.77.1.2/24 wt-server
#
# Offloads are turned off on every veth so that captured frames are wire-sized and checksums are
# computed in software (i.e. correct in the capture).

NS_CLIENT=wt-client
NS_SERVER=wt-server
NS_MIDDLE=wt-middle
WT_NAMESPACES=("$NS_CLIENT" "$NS_SERVER" "$NS_MIDDLE")

CLIENT4=10.77.0.1 SERVER4=10.77.0.2 CLIENT6=fd77::1 SERVER6=fd77::2
LCLIENT4=10.77.1.1 LSERVER4=10.77.1.2

nsx() { local ns=$1; shift; ip netns exec "$ns" "$@"; }

# `ip netns exec NS` bind-mounts /etc/netns/NS/resolv.conf over /etc/resolv.conf: the client namespace
# resolves through the dnsmasq that scripts/record-captures runs in the server namespace. The file
# carries a marker line and is removed by netns_teardown (only if it has the marker).
NETNS_RESOLV=/etc/netns/$NS_CLIENT/resolv.conf
NETNS_RESOLV_MARK="# written by wiretally scripts/lib/netns.sh (removed on exit)"
resolv_setup() {
    mkdir -p "$(dirname "$NETNS_RESOLV")"
    if [ -e "$NETNS_RESOLV" ] && ! grep -qxF "$NETNS_RESOLV_MARK" "$NETNS_RESOLV"; then
        echo "netns.sh: $NETNS_RESOLV exists and is not ours; refusing to overwrite" >&2; return 1
    fi
    printf '%s\nnameserver %s\noptions timeout:2 attempts:1\n' "$NETNS_RESOLV_MARK" "$SERVER4" > "$NETNS_RESOLV"
}
# Point the client namespace's resolver at another dnsmasq address (the `latency` scenario resolves
# through the delayed path at 10.77.1.2); the file must be ours.
resolv_point_at() { # addr
    grep -qxF "$NETNS_RESOLV_MARK" "$NETNS_RESOLV" || return 1
    printf '%s\nnameserver %s\noptions timeout:2 attempts:1\n' "$NETNS_RESOLV_MARK" "$1" > "$NETNS_RESOLV"
}
resolv_teardown() {
    if [ -f "$NETNS_RESOLV" ] && grep -qxF "$NETNS_RESOLV_MARK" "$NETNS_RESOLV"; then
        rm -f "$NETNS_RESOLV"
        rmdir "$(dirname "$NETNS_RESOLV")" 2>/dev/null || true
        rmdir /etc/netns 2>/dev/null || true
    fi
}

offloads_off() { # ns ifname
    local f
    for f in tso gso gro lro tx rx sg tx-gso-partial tx-udp-segmentation rx-gro-list rx-udp-gro-forwarding; do
        nsx "$1" ethtool -K "$2" "$f" off >/dev/null 2>&1 || true
    done
}

no_ipv6() { # ns ifname
    nsx "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=1"
}

# Kill processes that are still inside our namespaces (left by an interrupted earlier run of this
# script: they can only have been started by it), then delete the namespaces.
netns_teardown() {
    local ns pid
    for ns in "${WT_NAMESPACES[@]}"; do
        if ip netns list | awk '{print $1}' | grep -qx "$ns"; then
            for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null || true; done
            sleep 0.2
            for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
            ip netns del "$ns" 2>/dev/null || true
        fi
    done
    resolv_teardown
}

netns_setup() {
    netns_teardown
    resolv_setup
    local ns
    for ns in "${WT_NAMESPACES[@]}"; do
        ip netns add "$ns"
        nsx "$ns" ip link set lo up
        nsx "$ns" sysctl -qw net.ipv6.conf.default.accept_ra=0 net.ipv6.conf.all.accept_ra=0
    done
    nsx "$NS_MIDDLE" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1

    # direct link
    ip link add c0 netns "$NS_CLIENT" type veth peer name s0 netns "$NS_SERVER"
    # lossy path through the middle namespace
    ip link add c1 netns "$NS_CLIENT" type veth peer name m1 netns "$NS_MIDDLE"
    ip link add m2 netns "$NS_MIDDLE" type veth peer name s1 netns "$NS_SERVER"

    nsx "$NS_CLIENT" ip link set c0 address 02:77:00:00:00:01
    nsx "$NS_SERVER" ip link set s0 address 02:77:00:00:00:02
    nsx "$NS_CLIENT" ip link set c1 address 02:77:00:01:00:01
    nsx "$NS_SERVER" ip link set s1 address 02:77:00:01:00:02
    nsx "$NS_MIDDLE" ip link set m1 address 02:77:00:01:00:fe
    nsx "$NS_MIDDLE" ip link set m2 address 02:77:00:01:00:ff

    # no link-local addresses on the direct link (global fd77:: addresses only, no DAD)
    nsx "$NS_CLIENT" sysctl -qw net.ipv6.conf.c0.addr_gen_mode=1
    nsx "$NS_SERVER" sysctl -qw net.ipv6.conf.s0.addr_gen_mode=1
    no_ipv6 "$NS_CLIENT" c1
    no_ipv6 "$NS_SERVER" s1

    offloads_off "$NS_CLIENT" c0; offloads_off "$NS_SERVER" s0
    offloads_off "$NS_CLIENT" c1; offloads_off "$NS_SERVER" s1
    offloads_off "$NS_MIDDLE" m1; offloads_off "$NS_MIDDLE" m2

    nsx "$NS_CLIENT" ip addr add "$CLIENT4/24" dev c0
    nsx "$NS_CLIENT" ip -6 addr add "$CLIENT6/64" dev c0 nodad
    nsx "$NS_SERVER" ip addr add "$SERVER4/24" dev s0
    nsx "$NS_SERVER" ip -6 addr add "$SERVER6/64" dev s0 nodad
    nsx "$NS_CLIENT" ip addr add "$LCLIENT4/24" dev c1
    nsx "$NS_SERVER" ip addr add "$LSERVER4/24" dev s1

    # permanent neighbour entries: no ARP / neighbour discovery in the captures
    nsx "$NS_CLIENT" ip neigh replace "$SERVER4" lladdr 02:77:00:00:00:02 dev c0 nud permanent
    nsx "$NS_SERVER" ip neigh replace "$CLIENT4" lladdr 02:77:00:00:00:01 dev s0 nud permanent
    nsx "$NS_CLIENT" ip -6 neigh replace "$SERVER6" lladdr 02:77:00:00:00:02 dev c0 nud permanent
    nsx "$NS_SERVER" ip -6 neigh replace "$CLIENT6" lladdr 02:77:00:00:00:01 dev s0 nud permanent
    nsx "$NS_CLIENT" ip neigh replace "$LSERVER4" lladdr 02:77:00:01:00:02 dev c1 nud permanent
    nsx "$NS_SERVER" ip neigh replace "$LCLIENT4" lladdr 02:77:00:01:00:01 dev s1 nud permanent

    nsx "$NS_MIDDLE" ip link set m1 promisc on
    nsx "$NS_MIDDLE" ip link set m2 promisc on
    nsx "$NS_CLIENT" ip link set c0 up; nsx "$NS_SERVER" ip link set s0 up
    nsx "$NS_CLIENT" ip link set c1 up; nsx "$NS_SERVER" ip link set s1 up
    nsx "$NS_MIDDLE" ip link set m1 up; nsx "$NS_MIDDLE" ip link set m2 up
    # let IPv6 link-local DAD and the unsolicited MLD reports that follow link-up pass before any
    # capture starts
    sleep 3
}
