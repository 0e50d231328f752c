#!/bin/sh
# raftline-node.sh: starts and stops one node, the same way under systemd and without it.
#
#   raftline-node.sh stop-pid PID [TIMEOUT_S]
#       SIGTERM to PID (a controlled shutdown), then wait up to TIMEOUT_S (default 75) for it to exit; SIGKILL
#       after that. raftline.service's ExecStop.
#   raftline-node.sh start ENV_FILE CONFIG PID_FILE
#       Starts `bin/raftline server --config CONFIG` of the release this script belongs to, detached (its own
#       session, stdin closed, stdout/stderr appended to $RAFTLINE_LOG_DIR/server.out), with the variables of
#       ENV_FILE, and writes its pid to PID_FILE. Exit 0 if it was started or already running.
#   raftline-node.sh stop PID_FILE [TIMEOUT_S]
#       stop-pid on the pid in PID_FILE if that process is a node; exit 0 when no node is running.
#   raftline-node.sh status PID_FILE
#       Exit 0 and print the pid when the node of PID_FILE runs; exit 3 when it does not.
#
# For hosts without systemd (containers, the test's network namespaces) and for the ssh deploy script.
# A pid is trusted only while /proc/PID/cmdline is a Raftline node's, so a reused pid is never signalled.
set -eu

home=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)

is_node() { # PID -> 0 if that pid is a running Raftline node
    [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' < "/proc/$1/cmdline" | grep -q 'io.raftline.broker.ServerMain server'
}

running_pid() { # PID_FILE -> prints the pid if the node runs
    [ -f "$1" ] || return 1
    pid=$(cat "$1")
    case "$pid" in ''|*[!0-9]*) return 1 ;; esac
    is_node "$pid" || return 1
    echo "$pid"
}

stop_pid() { # PID TIMEOUT_S
    pid=$1
    timeout=${2:-75}
    is_node "$pid" || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    ticks=$((timeout * 5))
    while [ "$ticks" -gt 0 ] && kill -0 "$pid" 2>/dev/null; do
        sleep 0.2
        ticks=$((ticks - 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "raftline-node: pid $pid still running ${timeout}s after SIGTERM: SIGKILL" >&2
        kill -KILL "$pid" 2>/dev/null || true
    fi
}

cmd=${1:-}
case "$cmd" in
    stop-pid)
        [ $# -ge 2 ] || { echo "usage: $0 stop-pid PID [TIMEOUT_S]" >&2; exit 2; }
        stop_pid "$2" "${3:-75}"
        ;;
    start)
        [ $# -eq 4 ] || { echo "usage: $0 start ENV_FILE CONFIG PID_FILE" >&2; exit 2; }
        env_file=$2; config=$3; pid_file=$4
        if pid=$(running_pid "$pid_file"); then
            echo "raftline-node: already running, pid $pid"
            exit 0
        fi
        [ -r "$config" ] || { echo "error: cannot read $config" >&2; exit 1; }
        set -a
        # shellcheck disable=SC1090
        . "$env_file"
        set +a
        log_dir=${RAFTLINE_LOG_DIR:-$home/logs}
        mkdir -p "$log_dir" "$(dirname "$pid_file")"
        # setsid: the node outlives the ssh session that starts it. bin/raftline execs the JVM, so $! is its pid.
        setsid "$home/bin/raftline" server --config "$config" >>"$log_dir/server.out" 2>&1 </dev/null &
        echo $! > "$pid_file"
        echo "raftline-node: started pid $!"
        ;;
    stop)
        [ $# -ge 2 ] || { echo "usage: $0 stop PID_FILE [TIMEOUT_S]" >&2; exit 2; }
        if pid=$(running_pid "$2"); then
            stop_pid "$pid" "${3:-75}"
            echo "raftline-node: stopped pid $pid"
        else
            echo "raftline-node: not running"
        fi
        rm -f "$2"
        ;;
    status)
        [ $# -eq 2 ] || { echo "usage: $0 status PID_FILE" >&2; exit 2; }
        if pid=$(running_pid "$2"); then echo "$pid"; else exit 3; fi
        ;;
    *)
        echo "usage: $0 start ENV_FILE CONFIG PID_FILE | stop PID_FILE [TIMEOUT_S] | status PID_FILE | stop-pid PID [TIMEOUT_S]" >&2
        exit 2
        ;;
esac
