#!/usr/bin/env bash
# raftline-cluster.sh: deploys and operates a Raftline cluster over plain ssh, from the same inventory as the
# Ansible playbooks (deploy/ansible/inventory.example.yml): hosts in raftline_quorum are voters, hosts in
# raftline_brokers are brokers, a host in both runs a combined node; raftline_node_id, raftline_rack and
# ansible_host per host; the raftline_* settings of deploy/ansible/roles/raftline_common/defaults/main.yml
# (the ones listed in `inventory_settings` below) at any level.
#
#   raftline-cluster.sh deploy          -i INVENTORY [--tarball T]   install, configure, format once, start
#                                                                     the voters, then the brokers, wait until
#                                                                     `raftline brokers list` shows every broker active
#   raftline-cluster.sh rolling-restart -i INVENTORY [--limit HOST]  one node at a time, brokers first
#   raftline-cluster.sh upgrade         -i INVENTORY --tarball T     install T everywhere, then rolling-restart
#   raftline-cluster.sh stop            -i INVENTORY                 controlled shutdown, brokers first
#   raftline-cluster.sh status          -i INVENTORY                 one line per host: pid and /ready
#
# With raftline_tls: true in the inventory (as for the playbooks) every node also gets the release's
# config/server-secure.properties (TLS and mTLS on every listener, the authorizer, super.users = the nodes and the
# admin) and its certificates from raftline_tls_source_dir here (ca.pem, <host>.pem/.key, admin.pem/.key; made with
# the release's `raftline certs` when missing and raftline_tls_generate is true), copied with scp; the CLI calls
# speak as the admin and /ready is asked over HTTPS with the node's certificate (curl on the hosts). `deploy` again
# copies changed certificates and restarts nothing: the nodes re-read them.
#
# Needs on this machine: bash, ssh, scp, tar, python3 with PyYAML (Debian: python3-yaml), and Java 17+ to make
# certificates (raftline_tls_generate). On each host: a POSIX sh, bash (for /ready probes over /dev/tcp; with
# raftline_tls, curl), tar, and Java 17+ (raftline_java_home or on the PATH).
# The node runs under systemd (raftline.service from the release, with this host's paths) unless
# raftline_service_manager is `process`: then the release's systemd/raftline-node.sh starts it with the same
# command line, environment file and controlled stop as the unit.
#
# Every remote command runs under `timeout`; every wait has a deadline (raftline_wait_retries x
# raftline_wait_delay seconds) and fails with a line starting `error:` that says what it waited for.
# Exit codes: 0 done, 1 a step failed, 2 bad command line.
set -euo pipefail

usage() {
    sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

die() {
    echo "error: $*" >&2
    exit 1
}

log() {
    echo "[raftline-cluster $(date -u +%H:%M:%S)] $*" >&2
}

command=${1:-}
[[ -n "$command" ]] || usage
shift
inventory=""
tarball=""
limit=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -i|--inventory) [[ $# -ge 2 ]] || usage; inventory=$2; shift 2 ;;
        --tarball) [[ $# -ge 2 ]] || usage; tarball=$2; shift 2 ;;
        --limit) [[ $# -ge 2 ]] || usage; limit=$2; shift 2 ;;
        -h|--help) usage ;;
        *) echo "error: unknown argument $1" >&2; usage ;;
    esac
done
case "$command" in deploy|rolling-restart|upgrade|stop|status) ;; *) echo "error: unknown command $command" >&2; usage ;; esac
[[ -n "$inventory" ]] || { echo "error: -i INVENTORY is required" >&2; usage; }
[[ -r "$inventory" ]] || die "cannot read the inventory $inventory"
[[ "$command" != upgrade || -n "$tarball" ]] || { echo "error: upgrade needs --tarball" >&2; usage; }
command -v python3 >/dev/null || die "python3 is needed to read the inventory"
python3 -c 'import yaml' 2>/dev/null || die "python3 cannot import yaml (Debian: apt-get install python3-yaml)"

stage=$(mktemp -d "${TMPDIR:-/tmp}/raftline-cluster.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# The inventory reader and the few JSON checks, in one embedded Python program.
cat > "$stage/helper.py" <<'PY'
import json, os, re, sys
import yaml

DEFAULTS = {
    "raftline_tarball": "", "raftline_keep_releases": 3, "raftline_root": "",
    "raftline_service_manager": "systemd", "raftline_user": "raftline", "raftline_group": "raftline",
    "raftline_heap_opts": "-Xmx1g -Xms1g", "raftline_jvm_opts": "", "raftline_java_home": "",
    "raftline_broker_port": 9092, "raftline_quorum_port": 9093, "raftline_controller_port": 9094,
    "raftline_metrics_port": 9095, "raftline_num_partitions": 3, "raftline_replication_factor": 3,
    "raftline_min_insync_replicas": 2, "raftline_replica_lag_time_max_ms": 30000, "raftline_extra_config": {},
    "raftline_cluster_id": "", "raftline_wait_retries": 90, "raftline_wait_delay": 2, "raftline_stop_timeout": 75,
    "ansible_user": "", "ansible_port": 22, "ansible_ssh_private_key_file": "", "ansible_ssh_common_args": "",
    "raftline_tls": False, "raftline_tls_source_dir": "tls", "raftline_tls_generate": False,
    "raftline_tls_control_java_home": None, "raftline_tls_admin": "admin", "raftline_tls_extra_super_users": [],
}
PLACEHOLDER = re.compile(r"@([A-Z_]+)@")


def walk(group, inherited, groups, hosts, name):
    """Collects every host's group variables (a child group's over its parent's), its own variables (these win,
    as in Ansible) and the groups it is in."""
    merged = dict(inherited)
    merged.update((group or {}).get("vars") or {})
    for host, hvars in ((group or {}).get("hosts") or {}).items():
        entry = hosts.setdefault(host, {"group": {}, "own": {}, "order": len(hosts)})
        entry["group"].update(merged)
        entry["own"].update(hvars or {})
        groups.setdefault(name, []).append(host)
    for child, body in ((group or {}).get("children") or {}).items():
        walk(body, merged, groups, hosts, child)


def truthy(value):
    """Ansible's bool filter: true, yes, on, 1 (any case) are true."""
    return str(value).strip().lower() in ("true", "yes", "on", "1", "y")


def load(path):
    with open(path) as f:
        doc = yaml.safe_load(f) or {}
    groups, hosts = {}, {}
    walk(doc.get("all", doc), {}, groups, hosts, "all")
    voters = groups.get("raftline_quorum", [])
    brokers = groups.get("raftline_brokers", [])
    if not voters:
        sys.exit("error: the inventory has no host in raftline_quorum")
    out = []
    for name in sorted(hosts, key=lambda h: hosts[h]["order"]):
        if name not in voters and name not in brokers:
            continue
        v = dict(DEFAULTS)
        v.update(hosts[name]["group"])
        v.update(hosts[name]["own"])
        if "raftline_node_id" not in v:
            sys.exit("error: %s needs raftline_node_id in the inventory" % name)
        v["name"] = name
        v["address"] = str(v.get("ansible_host", name))
        v["voter"] = name in voters
        v["broker"] = name in brokers
        root = str(v["raftline_root"] or "")
        v.setdefault("raftline_install_dir", root + "/opt/raftline")
        v.setdefault("raftline_config_dir", root + "/etc/raftline")
        v.setdefault("raftline_data_dir", root + "/var/lib/raftline")
        v.setdefault("raftline_log_dir", root + "/var/log/raftline")
        v.setdefault("raftline_log_dirs", [v["raftline_data_dir"] + "/logs"])
        v.setdefault("raftline_listen_host", v["address"])
        v.setdefault("raftline_tls_dir", v["raftline_config_dir"] + "/tls")
        v["role"] = "combined" if v["voter"] and v["broker"] else ("quorum" if v["voter"] else "broker")
        out.append(v)
    ids = [int(h["raftline_node_id"]) for h in out]
    if len(set(ids)) != len(ids):
        sys.exit("error: raftline_node_id values are not unique: %s" % ids)
    first = out[0]
    cluster = {
        "voters": ",".join("%s@%s:%s" % (h["raftline_node_id"], h["address"], first["raftline_quorum_port"])
                           for h in out if h["voter"]),
        "controllers": ",".join("%s:%s" % (h["address"], first["raftline_controller_port"]) for h in out if h["voter"]),
        "bootstrap": ",".join("%s:%s" % (h["address"], first["raftline_broker_port"]) for h in out if h["broker"]),
        "broker_ids": [int(h["raftline_node_id"]) for h in out if h["broker"]],
        "super_users": ";".join(["User:" + h["name"] for h in out] + ["User:" + str(first["raftline_tls_admin"])]
                                + [u if str(u).startswith("User:") else "User:" + str(u)
                                   for u in first["raftline_tls_extra_super_users"] or []]),
    }
    return out, cluster


def q(s):
    return "'" + str(s).replace("'", "'\\''") + "'"


def cmd_hosts(path):
    """One line per host, shell words: name address id role install config data log pidfile manager user group
    logdirs metrics-port tls-dir."""
    hosts, _ = load(path)
    for h in hosts:
        print(" ".join(q(x) for x in (h["name"], h["address"], h["raftline_node_id"], h["role"],
                                       h["raftline_install_dir"], h["raftline_config_dir"], h["raftline_data_dir"],
                                       h["raftline_log_dir"], h["raftline_data_dir"] + "/raftline.pid",
                                       h["raftline_service_manager"], h["raftline_user"], h["raftline_group"],
                                       " ".join(h["raftline_log_dirs"]), h["raftline_metrics_port"],
                                       h["raftline_tls_dir"])))


def cmd_settings(path):
    """Cluster-wide settings as shell assignments (from the first host: they are the same on every host)."""
    hosts, c = load(path)
    h = hosts[0]
    ssh = []
    if h["ansible_ssh_private_key_file"]:
        ssh += ["-i", str(h["ansible_ssh_private_key_file"])]
    ssh += ["-p", str(h["ansible_port"])]
    print("ssh_opts=(%s)" % " ".join(q(x) for x in ssh + str(h["ansible_ssh_common_args"]).split()))
    print("ssh_user=%s" % q(h["ansible_user"]))
    for k in ("raftline_tarball", "raftline_java_home", "raftline_heap_opts", "raftline_jvm_opts",
              "raftline_wait_retries", "raftline_wait_delay", "raftline_stop_timeout", "raftline_cluster_id",
              "raftline_keep_releases"):
        print("%s=%s" % (k, q(h[k])))
    print("raftline_tls=%s" % (1 if truthy(h["raftline_tls"]) else 0))
    print("raftline_tls_generate=%s" % (1 if truthy(h["raftline_tls_generate"]) else 0))
    src = str(h["raftline_tls_source_dir"])
    print("raftline_tls_source=%s" % q(src if os.path.isabs(src) else os.path.join(os.path.dirname(os.path.abspath(path)), src)))
    java = h["raftline_tls_control_java_home"]
    print("raftline_tls_control_java_home=%s" % q(h["raftline_java_home"] if java is None else java))
    print("raftline_tls_admin=%s" % q(h["raftline_tls_admin"]))
    print("bootstrap=%s" % q(c["bootstrap"]))
    print("broker_ids=%s" % q(" ".join(str(i) for i in c["broker_ids"])))


def render(text, values):
    """Fills @NAME@ placeholders; drops a line whose value is empty (the same rule as the Ansible filter)."""
    out = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            out.append(line)
            continue
        names = PLACEHOLDER.findall(line)
        missing = [n for n in names if n not in values]
        if missing:
            sys.exit("error: no value for %s in template line: %s" % (", ".join(missing), line))
        if any(values[n] is None or str(values[n]) == "" for n in names):
            continue
        out.append(PLACEHOLDER.sub(lambda m: str(values[m.group(1)]), line))
    return "\n".join(out) + "\n"


def cmd_configs(path, templates, outdir):
    """Writes <outdir>/<host>.properties and <host>.env for every host."""
    hosts, c = load(path)
    for h in hosts:
        with open(os.path.join(templates, "server-%s.properties" % h["role"])) as f:
            template = f.read()
        values = {
            "NODE_ID": h["raftline_node_id"], "DATA_DIR": h["raftline_data_dir"],
            "LOG_DIRS": ",".join(h["raftline_log_dirs"]), "RACK": h.get("raftline_rack", ""),
            "HOST": h["address"], "LISTEN_HOST": h["raftline_listen_host"],
            "BROKER_PORT": h["raftline_broker_port"], "QUORUM_PORT": h["raftline_quorum_port"],
            "CONTROLLER_PORT": h["raftline_controller_port"], "METRICS_PORT": h["raftline_metrics_port"],
            "QUORUM_VOTERS": c["voters"], "CONTROLLER_SERVERS": c["controllers"],
            "NUM_PARTITIONS": h["raftline_num_partitions"], "REPLICATION_FACTOR": h["raftline_replication_factor"],
            "MIN_INSYNC_REPLICAS": h["raftline_min_insync_replicas"],
            "REPLICA_LAG_TIME_MAX_MS": h["raftline_replica_lag_time_max_ms"],
        }
        text = "# Written by deploy/scripts/raftline-cluster.sh from server-%s.properties.\n" % h["role"]
        text += render(template, values)
        if truthy(h["raftline_tls"]):
            with open(os.path.join(templates, "server-secure.properties")) as f:
                secure = f.read()
            text += "# With raftline_tls: config/server-secure.properties, its files in %s.\n" % h["raftline_tls_dir"]
            text += render(secure, {"TLS_DIR": h["raftline_tls_dir"], "NODE_NAME": h["name"],
                                    "SUPER_USERS": c["super_users"]})
            admin = str(h["raftline_tls_admin"])
            with open(os.path.join(outdir, h["name"] + ".client.properties"), "w") as f:
                f.write("# Written by deploy/scripts/raftline-cluster.sh: the admin principal (User:%s).\n" % admin)
                f.write("security.protocol=SSL\nssl.truststore.location=%s/ca.pem\n" % h["raftline_tls_dir"])
                f.write("ssl.certificate.location=%s/%s.pem\nssl.key.location=%s/%s.key\n"
                        % (h["raftline_tls_dir"], admin, h["raftline_tls_dir"], admin))
        for k, v in (h["raftline_extra_config"] or {}).items():
            text += "%s=%s\n" % (k, v)
        with open(os.path.join(outdir, h["name"] + ".properties"), "w") as f:
            f.write(text)
        with open(os.path.join(outdir, h["name"] + ".env"), "w") as f:
            f.write("# Written by deploy/scripts/raftline-cluster.sh. See systemd/raftline.env in the release.\n")
            f.write('RAFTLINE_HEAP_OPTS="%s"\nRAFTLINE_OPTS="%s"\nRAFTLINE_LOG_DIR=%s\nJAVA_HOME=%s\n'
                    % (h["raftline_heap_opts"], h["raftline_jvm_opts"], h["raftline_log_dir"], h["raftline_java_home"]))


def check(kind, arg):
    """Reads CLI JSON on stdin; exit 0 when the condition holds, else 1 with the reason on stdout."""
    try:
        doc = json.load(sys.stdin)
    except ValueError:
        print("no JSON answer")
        return 1
    if kind == "brokers-active":
        want = set(int(x) for x in arg.split())
        active = set(b["id"] for b in doc.get("brokers", []) if b.get("state") == "active")
        missing = sorted(want - active)
        print("not active: %s" % missing if missing else "every broker active")
        return 1 if missing else 0
    if kind == "quorum-leader":
        leader = doc.get("leaderId", -1)
        print("quorum leader %s" % leader)
        return 0 if leader != -1 else 1
    if kind == "voter-caught-up":
        ok = doc.get("leaderId", -1) != -1 and any(v.get("id") == int(arg) and v.get("lagEntries", 1 << 62) <= 100
                                                  for v in doc.get("voters", []))
        print("voter %s %s" % (arg, "caught up" if ok else "not caught up: %s" % json.dumps(doc.get("voters"))))
        return 0 if ok else 1
    if kind == "no-topics":
        names = ["%s-%s" % (t["topic"], p["partition"]) for t in doc.get("topics", []) for p in t.get("partitions", [])]
        print("under-replicated: %s" % names if names else "none under-replicated")
        return 1 if names else 0
    if kind == "in-isr":
        node = int(arg)
        missing = ["%s-%s" % (t["topic"], p["partition"]) for t in doc.get("topics", [])
                   for p in t.get("partitions", []) if node in p.get("replicas", []) and node not in p.get("isr", [])]
        print("node %s missing from the ISR of %s" % (node, missing) if missing else "node %s in every ISR" % node)
        return 1 if missing else 0
    sys.exit("error: unknown check " + kind)


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "hosts":
        cmd_hosts(sys.argv[2])
    elif what == "settings":
        cmd_settings(sys.argv[2])
    elif what == "configs":
        cmd_configs(sys.argv[2], sys.argv[3], sys.argv[4])
    elif what == "check":
        sys.exit(check(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""))
    else:
        sys.exit("error: unknown helper command " + what)
PY
helper() { python3 "$stage/helper.py" "$@"; }

settings=$(helper settings "$inventory") || exit 1
eval "$settings"
hosts_lines=$(helper hosts "$inventory") || exit 1
inventory_dir=$(cd "$(dirname "$inventory")" && pwd)

# Host table, in inventory order.
names=(); declare -A ADDR ID ROLE INSTALL CONF DATA LOGDIR PIDFILE MANAGER USER_ GROUP_ LOGDIRS METRICS TLSDIR
while IFS= read -r line; do
    eval "fields=($line)"
    n=${fields[0]}
    names+=("$n")
    ADDR[$n]=${fields[1]}; ID[$n]=${fields[2]}; ROLE[$n]=${fields[3]}; INSTALL[$n]=${fields[4]}
    CONF[$n]=${fields[5]}; DATA[$n]=${fields[6]}; LOGDIR[$n]=${fields[7]}; PIDFILE[$n]=${fields[8]}
    MANAGER[$n]=${fields[9]}; USER_[$n]=${fields[10]}; GROUP_[$n]=${fields[11]}; LOGDIRS[$n]=${fields[12]}
    METRICS[$n]=${fields[13]}; TLSDIR[$n]=${fields[14]}
done <<< "$hosts_lines"

is_voter() { [[ ${ROLE[$1]} == quorum || ${ROLE[$1]} == combined ]]; }
is_broker() { [[ ${ROLE[$1]} == broker || ${ROLE[$1]} == combined ]]; }
wait_total=$((raftline_wait_retries * raftline_wait_delay))

# ssh HOST TIMEOUT_S COMMAND: one remote command, bounded.
on() {
    local host=$1 secs=$2
    shift 2
    local target=${ADDR[$host]}
    [[ -z "$ssh_user" ]] || target="$ssh_user@$target"
    timeout -k 5 "$secs" ssh "${ssh_opts[@]}" -o BatchMode=yes -o ConnectTimeout=10 "$target" "$@" </dev/null
}

copy_to() { # HOST LOCAL REMOTE
    local target=${ADDR[$1]}
    [[ -z "$ssh_user" ]] || target="$ssh_user@$target"
    local scp_opts=() i=0
    while [[ $i -lt ${#ssh_opts[@]} ]]; do # scp spells the port -P
        if [[ ${ssh_opts[$i]} == -p ]]; then scp_opts+=(-P); else scp_opts+=("${ssh_opts[$i]}"); fi
        i=$((i + 1))
    done
    timeout -k 5 600 scp -q "${scp_opts[@]}" -o BatchMode=yes -o ConnectTimeout=10 "$2" "$target:$3"
}

# The CLI on a host (the cluster's bootstrap; with TLS as the admin), its stdout on ours.
cli_on() {
    local host=$1 security=""
    shift
    [[ $raftline_tls != 1 ]] || security="--command-config '${TLSDIR[$host]}/$raftline_tls_admin-client.properties'"
    on "$host" 120 "JAVA_HOME='$raftline_java_home' RAFTLINE_CLI_OPTS='-Xmx256m -XX:+UseSerialGC' \
        '${INSTALL[$host]}/current/bin/raftline' $* $security --bootstrap-server '$bootstrap'"
}

# A host to run the CLI from that is not $1 (the node being restarted), else the first host.
cli_host() {
    local n
    for n in "${names[@]}"; do
        [[ "$n" == "${1:-}" ]] || { echo "$n"; return; }
    done
    echo "${names[0]}"
}

# wait_for WHAT COMMAND...: retries COMMAND until it exits 0, at most wait_total seconds; then fails naming WHAT
# and the command's last output.
wait_for() {
    local what=$1
    shift
    local deadline=$((SECONDS + wait_total)) out=""
    while true; do
        if out=$("$@" 2>&1); then
            return 0
        fi
        if [[ $SECONDS -ge $deadline ]]; then
            die "timed out after ${wait_total}s waiting for $what (last: $(echo "$out" | tail -n 3 | tr '\n' ' '))"
        fi
        sleep "$raftline_wait_delay"
    done
}

ready() { # HOST: /ready answers 200 (asked from the host itself: bash's /dev/tcp, or with TLS curl and the node's files)
    if [[ $raftline_tls == 1 ]]; then
        local t=${TLSDIR[$1]}
        on "$1" 20 "curl -sS -o /dev/null -w '%{http_code}\n' --max-time 10 --cacert '$t/ca.pem' --cert '$t/$1.pem' \
            --key '$t/$1.key' 'https://${ADDR[$1]}:${METRICS[$1]}/ready'" | grep -qx '200'
        return
    fi
    on "$1" 20 "bash -c 'exec 3<>/dev/tcp/${ADDR[$1]}/${METRICS[$1]} && printf \"GET /ready HTTP/1.0\\r\\n\\r\\n\" >&3 \
        && head -n 1 <&3'" | grep -q ' 200'
}
brokers_active() { cli_on "$(cli_host "${1:-}")" brokers list --output json | helper check brokers-active "$broker_ids"; }
quorum_has_leader() { cli_on "$(cli_host "${1:-}")" quorum status --output json | helper check quorum-leader; }
nothing_under_replicated() {
    cli_on "$(cli_host "${1:-}")" topics describe --under-replicated-partitions --output json | helper check no-topics
}
voter_caught_up() { cli_on "$(cli_host "$1")" quorum status --output json | helper check voter-caught-up "${ID[$1]}"; }
in_every_isr() { cli_on "$(cli_host "$1")" topics describe --output json | helper check in-isr "${ID[$1]}"; }

# TLS: the files every host needs from raftline_tls_source here; the missing ones made with the release's own
# `raftline certs` (unpacked from TARBALL into the stage) when raftline_tls_generate, else an error naming them.
tls_prepare() {
    local tb=$1 missing=() f h addr san
    for f in ca.pem "$raftline_tls_admin.pem" "$raftline_tls_admin.key"; do
        [[ -f "$raftline_tls_source/$f" ]] || missing+=("$f")
    done
    for h in "${names[@]}"; do
        for f in "$h.pem" "$h.key"; do [[ -f "$raftline_tls_source/$f" ]] || missing+=("$f"); done
    done
    [[ ${#missing[@]} -gt 0 ]] || return 0
    [[ $raftline_tls_generate == 1 ]] || die "$raftline_tls_source lacks ${missing[*]}: put them there (PEM; a node's \
certificate valid for its address) or set raftline_tls_generate: true to make them with raftline certs"
    log "make ${missing[*]} in $raftline_tls_source"
    mkdir -p "$stage/dist" "$raftline_tls_source"
    chmod 700 "$raftline_tls_source"
    tar -xzf "$tb" -C "$stage/dist" --strip-components=1 --wildcards '*/bin/*' '*/lib/*' '*/config/*' \
        || die "cannot unpack $tb to make certificates"
    certs() { JAVA_HOME="$raftline_tls_control_java_home" RAFTLINE_CDS=off "$stage/dist/bin/raftline" certs "$@" >/dev/null; }
    if [[ ! -f "$raftline_tls_source/ca.pem" ]]; then
        certs ca --dir "$raftline_tls_source" || die "raftline certs ca failed"
    fi
    for h in "${names[@]}"; do
        [[ ! -f "$raftline_tls_source/$h.pem" || ! -f "$raftline_tls_source/$h.key" ]] || continue
        addr=${ADDR[$h]}
        if [[ $addr =~ ^[0-9.]+$ || $addr == *:* ]]; then san=(--ip "$addr"); elif [[ $addr != "$h" ]]; then
            san=(--dns "$addr"); else san=(); fi
        certs issue --ca-dir "$raftline_tls_source" --name "$h" --dns "$h" ${san[@]+"${san[@]}"} \
            --out-dir "$raftline_tls_source" || die "raftline certs issue --name $h failed"
    done
    if [[ ! -f "$raftline_tls_source/$raftline_tls_admin.pem" || ! -f "$raftline_tls_source/$raftline_tls_admin.key" ]]; then
        certs issue --ca-dir "$raftline_tls_source" --name "$raftline_tls_admin" --out-dir "$raftline_tls_source" \
            || die "raftline certs issue --name $raftline_tls_admin failed"
    fi
}

# TLS: copies the CA bundle, the host's certificate and key and the admin's into its tls dir (each file uploaded
# beside its place, then renamed over it, so the node never reads half of one; keys 0600, the node's owned by the
# service user under systemd), and the admin's client config. Nothing is restarted: the node re-reads changed files.
copy_certs() {
    local h=$1 t=${TLSDIR[$1]} f
    on "$h" 30 "mkdir -p '$t' && chmod 755 '$t'"
    for f in ca.pem "$h.pem" "$h.key" "$raftline_tls_admin.pem" "$raftline_tls_admin.key"; do
        copy_to "$h" "$raftline_tls_source/$f" "$t/.$f.new"
    done
    copy_to "$h" "$stage/configs/$h.client.properties" "$t/.$raftline_tls_admin-client.properties.new"
    local owner=""
    [[ ${MANAGER[$h]} != systemd ]] || owner="chown '${USER_[$h]}:${GROUP_[$h]}' '$t/.$h.key.new';"
    on "$h" 30 "set -e; cd '$t'; chmod 644 .ca.pem.new '.$h.pem.new' '.$raftline_tls_admin.pem.new' \
        '.$raftline_tls_admin-client.properties.new'; chmod 600 '.$h.key.new' '.$raftline_tls_admin.key.new'; $owner \
        for f in ca.pem '$h.key' '$h.pem' '$raftline_tls_admin.key' '$raftline_tls_admin.pem' \
            '$raftline_tls_admin-client.properties'; do mv -f \".\$f.new\" \"\$f\"; done"
}

# Install: unpack the tarball as releases/<name> (once) and point current at it; write the env file, the
# config and (systemd) the unit with this host's paths; with TLS, copy the certificates.
install_host() {
    local h=$1 release=$2 tb=$3
    local dir=${INSTALL[$h]}/releases/$release
    on "$h" 60 "mkdir -p '${INSTALL[$h]}/releases' '${CONF[$h]}' '${DATA[$h]}' '${LOGDIR[$h]}'"
    if ! on "$h" 30 "test -x '$dir/bin/raftline'"; then
        copy_to "$h" "$tb" "${INSTALL[$h]}/releases/.upload-$release.tar.gz"
        on "$h" 300 "set -e; rm -rf '$dir.partial'; mkdir -p '$dir.partial'; \
            tar -xzf '${INSTALL[$h]}/releases/.upload-$release.tar.gz' -C '$dir.partial' --strip-components=1; \
            rm -f '${INSTALL[$h]}/releases/.upload-$release.tar.gz'; mv -T '$dir.partial' '$dir'"
    fi
    on "$h" 30 "ln -sfn '$dir' '${INSTALL[$h]}/current'"
    on "$h" 60 "set -e; cd '${INSTALL[$h]}/releases'; keep=\$(readlink -f ../current); \
        ls -1dt -- */ | tail -n +$((raftline_keep_releases + 1)) | while read -r old; do \
        [ \"\$(readlink -f \"\$old\")\" = \"\$keep\" ] || rm -rf -- \"\$old\"; done"
    copy_to "$h" "$stage/configs/$h.properties" "${CONF[$h]}/server.properties"
    copy_to "$h" "$stage/configs/$h.env" "${CONF[$h]}/raftline.env"
    if [[ $raftline_tls == 1 ]]; then copy_certs "$h"; fi
    if [[ ${MANAGER[$h]} == systemd ]]; then
        on "$h" 60 "set -e; getent group '${GROUP_[$h]}' >/dev/null || groupadd --system '${GROUP_[$h]}'; \
            id -u '${USER_[$h]}' >/dev/null 2>&1 || useradd --system --gid '${GROUP_[$h]}' --shell /usr/sbin/nologin \
            --home-dir '${DATA[$h]}' --no-create-home '${USER_[$h]}'; \
            chown -R '${USER_[$h]}:${GROUP_[$h]}' '${DATA[$h]}' '${LOGDIR[$h]}'; \
            sed -e 's:/opt/raftline:${INSTALL[$h]}:g' -e 's:/etc/raftline:${CONF[$h]}:g' \
                -e 's:/var/lib/raftline:${DATA[$h]}:g' -e 's:/var/log/raftline:${LOGDIR[$h]}:g' \
                -e 's:^User=.*:User=${USER_[$h]}:' -e 's:^Group=.*:Group=${GROUP_[$h]}:' \
                '$dir/systemd/raftline.service' > /etc/systemd/system/raftline.service.new; \
            mv /etc/systemd/system/raftline.service.new /etc/systemd/system/raftline.service; systemctl daemon-reload"
    fi
}

install_all() { # TARBALL: every host in parallel, each one's output in the stage; fails naming the hosts that failed
    local tb=$1 release h failed=()
    [[ -r "$tb" ]] || die "cannot read the tarball $tb"
    release=$(basename "$tb")
    release=${release%.tar.gz}
    release=${release%.tgz}
    mkdir -p "$stage/templates" "$stage/configs"
    tar -xzf "$tb" -C "$stage/templates" --strip-components=2 --wildcards '*/config/server-*.properties' \
        || die "$tb has no config/server-*.properties: is it a Raftline distribution?"
    helper configs "$inventory" "$stage/templates" "$stage/configs" || exit 1
    if [[ $raftline_tls == 1 ]]; then
        [[ -f "$stage/templates/server-secure.properties" ]] || die "$tb has no config/server-secure.properties (raftline_tls)"
        tls_prepare "$tb"
    fi
    log "install $release on ${names[*]}"
    declare -A pids
    for h in "${names[@]}"; do
        install_host "$h" "$release" "$tb" > "$stage/install-$h.log" 2>&1 &
        pids[$h]=$!
    done
    for h in "${names[@]}"; do
        wait "${pids[$h]}" || failed+=("$h")
    done
    for h in "${failed[@]}"; do
        echo "--- $h" >&2
        tail -n 5 "$stage/install-$h.log" >&2
    done
    [[ ${#failed[@]} -eq 0 ]] || die "install failed on ${failed[*]}"
}

# Format: one cluster id for every host (the inventory's, else the one hosts already carry, else a new one).
format_all() {
    local h ids id
    ids=$(for h in "${names[@]}"; do
        on "$h" 30 "for d in ${LOGDIRS[$h]} '${DATA[$h]}/metadata'; do [ -f \"\$d/meta.properties\" ] && \
            sed -n 's/^cluster\\.id=//p' \"\$d/meta.properties\"; done; true"
    done | sort -u | sed '/^$/d')
    [[ -z "$raftline_cluster_id" ]] || ids=$(printf '%s\n%s\n' "$ids" "$raftline_cluster_id" | sort -u | sed '/^$/d')
    [[ $(echo "$ids" | sed '/^$/d' | wc -l) -le 1 ]] \
        || die "these hosts belong to different clusters (cluster ids $(echo "$ids" | tr '\n' ' ')): fix the inventory"
    if [[ -n "$ids" ]]; then
        id=$ids
    else
        id=$(on "${names[0]}" 120 "JAVA_HOME='$raftline_java_home' '${INSTALL[${names[0]}]}/current/bin/raftline' \
            storage random-uuid" | tail -n 1)
        [[ -n "$id" ]] || die "storage random-uuid printed nothing on ${names[0]}"
    fi
    log "format with cluster id $id"
    for h in "${names[@]}"; do
        on "$h" 120 "JAVA_HOME='$raftline_java_home' RAFTLINE_HEAP_OPTS=-Xmx128m '${INSTALL[$h]}/current/bin/raftline' \
            storage format --config '${CONF[$h]}/server.properties' --cluster-id '$id' --ignore-formatted" >/dev/null \
            || die "storage format failed on $h"
        if [[ ${MANAGER[$h]} == systemd ]]; then on "$h" 60 "chown -R '${USER_[$h]}:${GROUP_[$h]}' '${DATA[$h]}'"; fi
    done
}

start_node() {
    local h=$1
    if [[ ${MANAGER[$h]} == systemd ]]; then
        on "$h" 90 "systemctl enable --now raftline" || die "systemctl start raftline failed on $h"
    else
        on "$h" 60 "/bin/sh '${INSTALL[$h]}/current/systemd/raftline-node.sh' start '${CONF[$h]}/raftline.env' \
            '${CONF[$h]}/server.properties' '${PIDFILE[$h]}'" >/dev/null || die "starting the node failed on $h"
    fi
}

stop_node() {
    local h=$1 secs=$((raftline_stop_timeout + 30))
    if [[ ${MANAGER[$h]} == systemd ]]; then
        on "$h" "$secs" "systemctl stop raftline" || die "systemctl stop raftline failed on $h"
    else
        on "$h" "$secs" "/bin/sh '${INSTALL[$h]}/current/systemd/raftline-node.sh' stop '${PIDFILE[$h]}' \
            $raftline_stop_timeout" >/dev/null || die "stopping the node failed on $h"
    fi
}

deploy() {
    local tb=${tarball:-$raftline_tarball} h
    [[ -n "$tb" ]] || die "no tarball: pass --tarball or set raftline_tarball in the inventory"
    [[ "$tb" == /* ]] || tb="$inventory_dir/$tb"
    install_all "$tb"
    format_all
    log "start the voters"
    for h in "${names[@]}"; do if is_voter "$h"; then start_node "$h"; fi; done
    for h in "${names[@]}"; do if is_voter "$h"; then wait_for "$h to be ready" ready "$h"; fi; done
    log "start the brokers"
    for h in "${names[@]}"; do if is_broker "$h"; then start_node "$h"; fi; done
    for h in "${names[@]}"; do if is_broker "$h"; then wait_for "$h to be ready" ready "$h"; fi; done
    wait_for "every broker ($broker_ids) to be active in 'raftline brokers list'" brokers_active
    log "deployed: brokers $broker_ids active"
}

rolling_restart() {
    local order=() h
    for h in "${names[@]}"; do if is_broker "$h"; then order+=("$h"); fi; done
    for h in "${names[@]}"; do if ! is_broker "$h"; then order+=("$h"); fi; done
    for h in "${order[@]}"; do
        [[ -z "$limit" || ",$limit," == *",$h,"* ]] || continue
        local started=$SECONDS
        wait_for "the quorum to have a leader before restarting $h" quorum_has_leader "$h"
        wait_for "no under-replicated partition before restarting $h" nothing_under_replicated "$h"
        log "restart $h (${ROLE[$h]})"
        stop_node "$h"
        start_node "$h"
        wait_for "$h to be ready" ready "$h"
        if is_voter "$h"; then wait_for "voter $h to catch up with the quorum" voter_caught_up "$h"; fi
        if is_broker "$h"; then
            wait_for "every broker to be active after restarting $h" brokers_active "$h"
            wait_for "$h to be back in every ISR" in_every_isr "$h"
        fi
        log "restarted $h in $((SECONDS - started))s"
    done
}

case "$command" in
    deploy)
        deploy
        ;;
    rolling-restart)
        rolling_restart
        ;;
    upgrade)
        [[ "$tarball" == /* ]] || tarball="$PWD/$tarball"
        install_all "$tarball"
        rolling_restart
        log "upgraded to $(basename "$tarball")"
        ;;
    stop)
        for h in "${names[@]}"; do if ! is_voter "$h"; then log "stop $h"; stop_node "$h"; fi; done
        for h in "${names[@]}"; do if is_voter "$h"; then log "stop $h"; stop_node "$h"; fi; done
        ;;
    status)
        for h in "${names[@]}"; do
            if [[ ${MANAGER[$h]} == systemd ]]; then
                pid=$(on "$h" 30 "systemctl show -p MainPID --value raftline" || echo "?")
            else
                pid=$(on "$h" 30 "/bin/sh '${INSTALL[$h]}/current/systemd/raftline-node.sh' status '${PIDFILE[$h]}'" \
                    || echo "-")
            fi
            if ready "$h" 2>/dev/null; then r=ready; else r="not ready"; fi
            printf '%s\t%s\t%s\tpid %s\t%s\n' "$h" "${ID[$h]}" "${ROLE[$h]}" "$pid" "$r"
        done
        ;;
esac
