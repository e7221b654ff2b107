#!/usr/bin/env bash
# ctest fixture: a one-node Slurm cluster on localhost (Debian's slurm-wlm), state and spool in
# DIR, on two unused ports, with no authentication (AuthType=auth/none, CredType=cred/none).
# Writes DIR/slurm.conf. Where slurmd cannot start (not root, no such daemon) it writes the reason
# to DIR/unavailable and exits 0: the tests that need the cluster then skip with that reason.
# Any other failure (slurmctld does not come up, the node does not become idle) is an error.
# Usage: start_slurm.sh DIR
set -euo pipefail
dir=${1:?usage: start_slurm.sh DIR}
bash "$(dirname "$0")/stop_slurm.sh" "$dir" >/dev/null 2>&1 || true
rm -rf "$dir"
mkdir -p "$dir/state" "$dir/spool"
unavailable() { echo "$1" >"$dir/unavailable"; echo "slurm fixture: $1 (the Slurm tests skip)"; exit 0; }
command -v slurmctld >/dev/null || unavailable "slurmctld is not installed (Debian: slurm-wlm)"
command -v slurmd >/dev/null || unavailable "slurmd is not installed (Debian: slurm-wlm)"
[ "$(id -u)" -eq 0 ] || unavailable "slurmd must run as root to launch jobs"
read -r ctld_port slurmd_port < <(/usr/bin/python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
host=$(hostname -s)
cpus=$(nproc)
cat >"$dir/slurm.conf" <<CONF
ClusterName=photontest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$dir/slurm.conf
if ! slurmctld -f "$SLURM_CONF" -c; then
  echo "slurm fixture: slurmctld did not start:" >&2; tail -5 "$dir/slurmctld.log" >&2 || true; exit 1
fi
if ! slurmd -f "$SLURM_CONF" -c 2>"$dir/slurmd.err"; then
  unavailable "slurmd cannot start here: $(tail -1 "$dir/slurmd.err" "$dir/slurmd.log" 2>/dev/null | tr '\n' ' ')"
fi
for _ in $(seq 1 300); do
  state=$(sinfo -h -o %T 2>/dev/null || true)
  [ "$state" = idle ] && { echo "slurm fixture: one node up in $dir"; exit 0; }
  sleep 0.1
done
echo "slurm fixture: the node did not become idle (state '$state'):" >&2
tail -5 "$dir/slurmd.log" "$dir/slurmctld.log" >&2 || true
exit 1
