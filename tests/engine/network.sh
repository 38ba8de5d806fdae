#!/bin/sh
# Containers on their pool's bridge (run --network bridge, engine/net.c)
# against a tenant of another pool: its own subnet and bridge, the
# others' containers out of reach, ports published with -p reached from
# the host (127.0.0.1 too) and gone with their container, even after a
# kill -9 of its monitor.
# Usage: network.sh DANAUS. Needs root, /dev/fuse, iptables, iproute2,
# busybox-static, cc.
set -u
danaus=$1
work=$(mktemp -d /tmp/danaus-network-test.XXXXXX)
export DANAUS_STATE=$work/state
. "$(dirname "$0")/checks.sh"
listener= holder= na= nb= # the pools' bridge numbers, once known
rogue=danaus-rogue-$$ # a network namespace of the test's own
# The engine keeps its isolation chain once made (as docker keeps its
# chains); the test takes it away if it made it. The bridges of the
# test's pools, and each rule naming one or its subnet, go too, also
# when the engine failed to take them.
chain_made=$(iptables -w -n -L DANAUS-ISOLATE >/dev/null 2>&1 || echo 1)
drop_rules() { # drop_rules PATTERN: every rule whose spec matches
    for t in filter nat; do
        iptables -w -t $t -S | grep -E -- "$1" | sed 's/^-A /-D /' |
            while read -r r; do eval "iptables -w -t $t $r"; done
    done
}
cleanup() {
    [ -n "$listener" ] && kill "$listener" 2>/dev/null
    [ -n "$holder" ] && kill "$holder" 2>/dev/null
    ip netns del "$rogue" 2>/dev/null
    remove_containers_and_pools
    for n in $na $nb; do
        [ -e "/sys/class/net/danaus$n" ] || continue
        drop_rules "danaus$n( |$)|10\.89\.$n\."
        ip link del "danaus$n"
    done
    if [ -n "$chain_made" ]; then
        iptables -w -D FORWARD -j DANAUS-ISOLATE 2>/dev/null
        iptables -w -F DANAUS-ISOLATE 2>/dev/null
        iptables -w -X DANAUS-ISOLATE 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM PIPE

cc -static -O2 -I "$(dirname "$0")/../../include" -o "$work/attacker" \
    "$(dirname "$0")/attacker.c" || exit 1
img=$work/img
mkdir -p "$img/bin" "$img/etc" "$img/tmp"
cp /bin/busybox "$img/bin/busybox"
for c in sh cat ls grep sleep ip nc awk cut hostname; do ln -s busybox "$img/bin/$c"; done
cp "$work/attacker" "$img/bin/attacker"
"$danaus" image import bb "$img" >/dev/null || exit 1
mkdir -p "$work/back-a" "$work/back-b"
"$danaus" pool create na --cpus 0 --memory 128M --backend "local:$work/back-a" || exit 1
"$danaus" pool create nb --cpus 1 --memory 128M --backend "local:$work/back-b" || exit 1
on() { pool=$1; shift; "$danaus" run --rm --pool "$pool" --image bb --network bridge "$@"; }
address() { sed -n 's/^address=//p' "$DANAUS_STATE/containers/$1/container"; }
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("0.0.0.0", 0)); print(s.getsockname()[1])'
}
# read_from IP PORT: the first line a TCP server there sends, once it
# listens (a container just started may not yet), or the error's name.
read_from() {
    python3 - "$1" "$2" <<'EOF'
import socket, sys, time
for attempt in range(40):
    try:
        s = socket.create_connection((sys.argv[1], int(sys.argv[2])), 5)
        print(s.recv(100).decode().strip())
        break
    except ConnectionRefusedError:
        error = "ConnectionRefusedError"
        time.sleep(0.25)
    except OSError as e:
        error = type(e).__name__
        print(error)
        break
else:
    print(error)
EOF
}
# listening NAME PORT: waits until container NAME listens on PORT.
listening() {
    "$danaus" exec "$1" sh -c "i=0; until busybox netstat -ltun | grep -q ':$2 '; do
        i=\$((i + 1)); [ \$i -gt 100 ] && exit 1; sleep 0.1; done"
}
hostaddr=$(ip -4 -o addr show scope global | grep -v ' danaus' | awk '{print $4}' | cut -d/ -f1 | head -n 1)

# 1. A pool's bridge: the first container gets the subnet's first address.
port=$(free_port)
python3 -c "import socket, time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('0.0.0.0', $port)); s.listen(); time.sleep(300)" &
listener=$!
"$danaus" run -d --name a1 --pool na --image bb --network bridge -- \
    sh -c 'while true; do nc -l -p 7000 </dev/null; done' >/dev/null
listening a1 7000
a1=$(address a1)
na=$(sed -n 's/^bridge=//p' "$DANAUS_STATE/pools/na/pool")
check "the pool's bridge is recorded" 1 "$(echo "$na" | grep -cx '[0-9][0-9]*')"
check "eth0 with the pool's first address, a default route through its bridge" \
    "10.89.$na.2/24|default via 10.89.$na.1" \
    "$("$danaus" exec a1 sh -c 'ip -4 -o addr show eth0 | awk "{print \$4}"; ip route | grep default | cut -d" " -f1-3' | paste -sd'|')"
check "a second container of the pool gets the next address, reaches the first" \
    "10.89.$na.3/24|ok" \
    "$(on na -- sh -c "ip -4 -o addr show eth0 | awk '{print \$4}'; attacker connect $a1 7000" | paste -sd'|')"
check "the host through the bridge and through its own address" "ok|ok" \
    "$(on na -- sh -c "attacker connect 10.89.$na.1 $port; attacker connect $hostaddr $port" | paste -sd'|')"
check "the host's 127.0.0.1 stays out of reach" ECONNREFUSED \
    "$(on na -- attacker connect 127.0.0.1 "$port")"
check "outgoing traffic is masqueraded" 0 \
    "$(iptables -w -t nat -C POSTROUTING -s "10.89.$na.0/24" ! -o "danaus$na" -j MASQUERADE; echo $?)"
# The bridge takes packets for 127.0.0.1 (route_localnet, for published
# ports): something on it with CAP_NET_ADMIN, which containers lack,
# routes 127.0.0.1 to the gateway and tries the host's loopback service.
ip netns add "$rogue"
ip link add "dnr$$" type veth peer name eth0 netns "$rogue"
ip link set "dnr$$" master "danaus$na" up
check "something on the bridge routing 127.0.0.1 to the host is dropped" EINPROGRESS \
    "$(ip netns exec "$rogue" sh -c "ip addr add 10.89.$na.250/24 dev eth0; ip link set eth0 up
        sysctl -qw net.ipv4.conf.all.route_localnet=1 net.ipv4.conf.eth0.route_localnet=1
        ip route add 127.0.0.1/32 via 10.89.$na.1 dev eth0 src 10.89.$na.250
        $work/attacker connect 127.0.0.1 $port")"
ip netns del "$rogue"

# 2. Pools apart: another pool's containers are out of reach.
"$danaus" run -d --name b1 --pool nb --image bb --network bridge -- \
    sh -c 'while true; do nc -l -p 7001 </dev/null; done' >/dev/null
listening b1 7001
b1=$(address b1)
nb=$(sed -n 's/^bridge=//p' "$DANAUS_STATE/pools/nb/pool")
check "each pool has a bridge and subnet of its own" 1 \
    "$([ "$na" != "$nb" ] && [ "${b1%.*}" = "10.89.$nb" ] && echo 1)"
check "a container of pool na cannot reach pool nb's listener" EHOSTUNREACH \
    "$(on na -- attacker connect "$b1" 7001)"
check "a second container of pool nb reaches it" ok "$(on nb -- attacker connect "$b1" 7001)"
# Something outside holding a1's network namespace keeps it, and the
# veth pair with it, until the engine deletes the pair itself.
nsenter -t "$(sed -n 's/^pid=//p' "$DANAUS_STATE/containers/a1/container")" -n sleep 60 &
holder=$!
"$danaus" rm -f a1 >/dev/null; "$danaus" rm -f b1 >/dev/null
check "no veth is left on the pools' bridges once their containers are gone" 0 \
    "$( (ip -o link show master "danaus$na"; ip -o link show master "danaus$nb") | wc -l)"
kill "$holder"

# 3. -p: the host's port to the container's. A container staying on the
# bridge keeps it up, and the host's ARP entries for its addresses.
"$danaus" run -d --name stay --pool nb --image bb --network bridge -- sleep 300 >/dev/null
hp=$(free_port)
"$danaus" run -d --name web --pool nb --image bb --network bridge -p "$hp:80" -- \
    sh -c 'while true; do echo hello | nc -l -p 80; done' >/dev/null
listening web 80
web=$(address web)
check "inspect shows the network, address and published ports" \
    "bridge danaus$nb $(address web) 10.89.$nb.1 {\"80/tcp\": [{\"HostIp\": \"\", \"HostPort\": \"$hp\"}]}" \
    "$("$danaus" inspect web | python3 -c 'import json, sys
n = json.load(sys.stdin)[0]["NetworkSettings"]
print(n["Network"], n["Bridge"], n["IPAddress"], n["Gateway"], json.dumps(n["Ports"]))')"
check "-p: the host reaches the container through its own address" hello "$(read_from "$hostaddr" "$hp")"
check "-p: ... and through 127.0.0.1" hello "$(read_from 127.0.0.1 "$hp")"
check "-p: another pool's container reaches the published port, as any client" hello \
    "$(on na -- sh -c "nc $hostaddr $hp </dev/null")"
expect_error "-p of a port another container publishes" 125 \
    "-p $hp/tcp: container 'web' publishes it" \
    "$danaus" run --rm --pool na --image bb --network bridge -p "$hp:81" -- sh -c :
expect_error "-p of a port a host program holds" 125 \
    "-p $port/tcp: a host program uses the port" \
    "$danaus" run --rm --pool na --image bb --network bridge -p "$port:81" -- sh -c :
expect_error "-p without --network bridge" 125 "publishes a port of --network bridge only" \
    "$danaus" run --rm --pool na --image bb -p "$hp:80" -- true
expect_error "-p with a bad value" 125 "expected HOSTPORT:CONTAINERPORT" \
    "$danaus" run --rm --pool na --image bb --network bridge -p 80 -- true
"$danaus" rm -f web >/dev/null
check "-p: the rules go with the container" 0 \
    "$(iptables -w -t nat -S | grep -c -- "--dport $hp ")"
# A UDP port, on the address web had: the host's ARP entry for it,
# made when it reached web, must still hold.
up=$(python3 -c 'import socket; s=socket.socket(type=socket.SOCK_DGRAM); s.bind(("0.0.0.0", 0)); print(s.getsockname()[1])')
"$danaus" run -d --name dns --pool nb --image bb --network bridge -p "$up:5353/udp" -- \
    attacker udp 5353 >/dev/null
listening dns 5353
check "dns has the address web had" "$web" "$(address dns)"
python3 -c "import socket; socket.socket(type=socket.SOCK_DGRAM).sendto(b'datagram', ('127.0.0.1', $up))"
timeout 10 "$danaus" wait dns >/dev/null
check "-p PORT/udp: a datagram to the host's port reaches the container" datagram \
    "$("$danaus" logs dns)"
"$danaus" rm -f dns >/dev/null; "$danaus" rm -f stay >/dev/null
# start: the same network and ports again.
"$danaus" run -d --name again --pool nb --image bb --network bridge -p "$hp:80" -- \
    sh -c 'while true; do echo again | nc -l -p 80; done' >/dev/null
"$danaus" stop -t 1 again
check "-p: the rules go when the container stops" 0 \
    "$(iptables -w -t nat -S | grep -c -- "--dport $hp ")"
"$danaus" start again >/dev/null
listening again 80
check "start: on its pool's bridge again, its port published" "10.89.$nb|again" \
    "$(address again | cut -d. -f1-3)|$(read_from 127.0.0.1 "$hp")"
"$danaus" rm -f again >/dev/null
# A kill -9 of the monitor, then of the container: the next bridge run
# takes away the rules the container left.
"$danaus" run -d --name orphan --pool nb --image bb --network bridge -p "$hp:80" -- sleep 300 >/dev/null
pid=$(sed -n 's/^pid=//p' "$DANAUS_STATE/containers/orphan/container")
[ -n "$pid" ] && kill -9 "$(awk '{print $4}' "/proc/$pid/stat")" "$pid"
sleep 0.5
check "-p: the rules outlive a killed monitor and container" 2 \
    "$(iptables -w -t nat -S | grep -c -- "--dport $hp ")"
on na -- sh -c :
check "-p: the next bridge run takes them away" 0 \
    "$(iptables -w -t nat -S | grep -c -- "--dport $hp ")"
"$danaus" rm -f orphan >/dev/null

# 4. DNS: the host's resolvers the container reaches, and its own name.
etc=$work/etc
mkdir -p "$etc"
printf '%s\n' "# the host's" "search example.org" "nameserver 127.0.0.53" \
    "nameserver 192.0.2.53" "nameserver ::1" "nameserver 2001:db8::1" \
    "options ndots:2" >"$etc/resolv.conf"
check "resolv.conf: the host's, without its loopback and IPv6 resolvers" \
    "# the host's|search example.org|nameserver 192.0.2.53|options ndots:2" \
    "$(DANAUS_ETC=$etc on na -- cat /etc/resolv.conf | paste -sd'|')"
echo "nameserver 127.0.0.53" >"$etc/resolv.conf"
[ -e /run/systemd/resolve/resolv.conf ] ||
    check "resolv.conf: public resolvers where the host has only its loopback's" \
        "nameserver 8.8.8.8|nameserver 8.8.4.4" \
        "$(DANAUS_ETC=$etc on na -- cat /etc/resolv.conf | paste -sd'|')"
"$danaus" run -d --name named --pool na --image bb --network bridge -- sleep 60 >/dev/null
named=$(address named)
check "/etc/hosts names the container and the host" \
    "127.0.0.1	localhost|::1	localhost ip6-localhost ip6-loopback|$named	named|10.89.$na.1	host.containers.internal" \
    "$("$danaus" exec named cat /etc/hosts | paste -sd'|')"
check "the container resolves its own name" "$named" "$("$danaus" exec named hostname -i)"
check "its root may change them, as podman's may" written \
    "$("$danaus" exec named sh -c 'echo "nameserver 192.0.2.9" >/etc/resolv.conf && echo written')"
"$danaus" rm -f named >/dev/null
check "a read-only root gets them too" 1 \
    "$(on na --read-only --name ro -- grep -c -w ro /etc/hosts)"
# An image whose resolv.conf is systemd-resolved's link, leading nowhere.
ln -s ../run/systemd/resolve/stub-resolv.conf "$img/etc/resolv.conf"
"$danaus" image import stub "$img" >/dev/null || exit 1
check "an image's dangling resolv.conf link: the container starts, without one" \
    "started" \
    "$("$danaus" run --rm --pool na --image stub --network bridge -- sh -c 'echo started; cat /etc/resolv.conf 2>/dev/null' | paste -sd'|')"

# 5. pool rm takes the pool's bridge and its rules away.
"$danaus" pool rm na
check "pool rm: the bridge and its rules are gone" "0 0" \
    "$(ls /sys/class/net | grep -cx "danaus$na") $(iptables -w -S | grep -c "danaus$na ")"

[ "$failures" -eq 0 ] || { echo "$failures failed"; exit 1; }
echo "all network checks passed"
