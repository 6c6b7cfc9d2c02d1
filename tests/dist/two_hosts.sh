#!/usr/bin/env bash
# Two "hosts" on one machine: network namespaces joined by a veth pair, each with its own
# hostname (a UTS namespace), so Open MPI sees two nodes and talks TCP between them. mpirun
# runs in host A and starts host B's daemon through an rsh agent that enters B's namespaces.
# The job trains with DataParallel (tests/dist/job.cpp) and must give the weights of one
# process. Exit 77 (skipped) where namespaces cannot be made (not root, no CAP_NET_ADMIN).
#   tests/dist/two_hosts.sh MPIRUN DIST_JOB
set -euo pipefail
mpirun=$1 job=$2
a=sdist_a_$$ b=sdist_b_$$ dir=$(mktemp -d)
cleanup() {
  ip netns del "$a" 2>/dev/null || true
  ip netns del "$b" 2>/dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT
if ! ip netns add "$a" 2>/dev/null; then
  echo "two_hosts: cannot create network namespaces here (needs root); skipped"
  exit 77
fi
ip netns add "$b"
ip link add "sd$$a" type veth peer name "sd$$b"
ip link set "sd$$a" netns "$a"
ip link set "sd$$b" netns "$b"
ip -n "$a" addr add 10.77.0.1/24 dev "sd$$a"
ip -n "$b" addr add 10.77.0.2/24 dev "sd$$b"
for ns in "$a" "$b"; do
  ip -n "$ns" link set lo up
done
ip -n "$a" link set "sd$$a" up
ip -n "$b" link set "sd$$b" up

# mpirun's rsh agent: "ssh 10.77.0.2 COMMAND" becomes COMMAND inside host B.
cat > "$dir/rsh" <<AGENT
#!/bin/sh
shift
exec ip netns exec $b unshare --uts /bin/sh -c "hostname host-b; \$*"
AGENT
chmod +x "$dir/rsh"

on_two_hosts() {
  ip netns exec "$a" unshare --uts /bin/sh -c "hostname host-a; $mpirun --allow-run-as-root -n 2 \
    --host 10.77.0.1:1,10.77.0.2:1 --mca plm_rsh_agent $dir/rsh --mca btl tcp,self \
    --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24 $job $*"
}

out=$(on_two_hosts hello)
echo "$out"
grep -q "rank 0 of 2 (local 0 of 1)" <<<"$out"
grep -q "rank 1 of 2 (local 0 of 1)" <<<"$out"
on_two_hosts train "$dir/two_hosts.db" 2 0
"$mpirun" --allow-run-as-root -n 1 "$job" train "$dir/one_process.db" 2 0
"$mpirun" --allow-run-as-root -n 1 "$job" compare "$dir/two_hosts.db" "$dir/one_process.db"
