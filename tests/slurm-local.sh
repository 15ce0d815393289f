#!/bin/sh
# A one-node Slurm cluster on localhost for tests/test_sweep.c, everything under DIR:
#   tests/slurm-local.sh start DIR   munge key and daemon, slurm.conf, slurmctld, slurmd; exit 0
#                                    when the node is idle, else exit 1 with the reason last
#   tests/slurm-local.sh stop DIR    stops the daemons this script started (their pid files)
# Clients find the cluster with SLURM_CONF=DIR/slurm.conf. Ports are picked from the
# process id so that two checkouts testing at once do not meet.
set -u
cmd=${1:-}; T=${2:-}
[ -n "$T" ] && [ -d "$T" ] || { echo "usage: $0 start|stop DIR (an existing directory)"; exit 2; }

stop() {   # and wait (up to 10 s each) until they are gone: they write into DIR as they go
    for p in slurmd slurmctld munged; do
        [ -s "$T/$p.pid" ] || continue
        pid=$(cat "$T/$p.pid")
        kill "$pid" 2>/dev/null || continue
        for _ in $(seq 1 100); do
            kill -0 "$pid" 2>/dev/null || break
            # a daemon this shell did not start is no child of ours: a zombie of it counts as gone
            [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ] && break
            sleep 0.1
        done
    done
    return 0
}
if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR"; exit 2; }

for prog in munged slurmctld slurmd sbatch sinfo; do
    p=$(command -v "$prog" || ls "/usr/sbin/$prog" 2>/dev/null)
    [ -n "$p" ] || { echo "$prog is not installed (Debian packages slurm-wlm and munge)"; exit 1; }
done
PATH=$PATH:/usr/sbin
mkdir -p "$T/state" "$T/spool" || exit 1
user=$(id -un)
base=$((20000 + ($$ % 2000) * 2))

# munge: a key of our own and a socket in DIR, so that a system munged is left alone
dd if=/dev/urandom of="$T/munge.key" bs=1024 count=1 2>/dev/null && chmod 600 "$T/munge.key"
munged --socket="$T/munge.sock" --key-file="$T/munge.key" --pid-file="$T/munged.pid" \
    --log-file="$T/munged.log" --seed-file="$T/munge.seed" --force >"$T/munged.out" 2>&1 ||
    { echo "munged did not start: $(tail -n 2 "$T/munged.log" "$T/munged.out" 2>/dev/null | tr '\n' ' ')"; stop; exit 1; }

cat >"$T/slurm.conf" <<EOF
ClusterName=tmascope-test
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=$user
SlurmdUser=$user
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
AuthInfo=socket=$T/munge.sock
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=tmanode NodeAddr=127.0.0.1 NodeHostname=$(hostname) CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=tma Nodes=tmanode Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$T/slurm.conf"
slurmctld -i >"$T/slurmctld.out" 2>&1 ||
    { echo "slurmctld did not start: $(tail -n 3 "$T/slurmctld.log" "$T/slurmctld.out" 2>/dev/null | tr '\n' ' ')"; stop; exit 1; }
slurmd -N tmanode >"$T/slurmd.out" 2>&1 ||
    { echo "slurmd did not start: $(tail -n 3 "$T/slurmd.log" "$T/slurmd.out" 2>/dev/null | tr '\n' ' ')"; stop; exit 1; }
for _ in $(seq 1 40); do
    state=$(sinfo -h -n tmanode -o %T 2>/dev/null)
    [ "$state" = idle ] && exit 0
    sleep 0.5
done
echo "the node did not become idle in 20 s (state '${state:-none}'): $(tail -n 3 "$T/slurmd.log" 2>/dev/null | tr '\n' ' ')"
stop
exit 1
