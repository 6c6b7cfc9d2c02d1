#!/bin/sh
# Environment steps per second of strata_impala (examples/rl/impala.cpp) on Pong-v0 against the
# number of actor processes: each job is `strata launch -n (actors + 1)` (rank 0 the learner),
# one OpenMP thread per process, the same 61,440 environment steps (one round is actors x 8
# copies x 20 steps), no evaluation until the end. Writes CSV rows "agents,threads,steps_per_second" to
# stdout in bench/rl/scaling.sh's format (agents = actor processes, threads = 1) so that
# bench/rl/plot_scaling.py draws them:
#   python3 bench/rl/plot_scaling.py bench/rl/impala_scaling_2core.csv docs/images/rl_impala_scaling.png \
#     "IMPALA on Pong-v0 (strata_impala), 2-core shared machine" "actor processes (plus one learner)"
#   sh bench/rl/impala_scaling.sh build > bench/rl/impala_scaling_2core.csv
set -eu
build=${1:-build}
echo "agents,threads,steps_per_second"
for actors in 1 2 3 4; do
  rate=$(OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
         "$build/tools/strata/strata" launch -n $((actors + 1)) --oversubscribe "$build/strata_impala" \
           --steps 61440 --target 1e9 --eval-episodes 1 --hub /tmp/strata_impala_scaling.db |
         sed -n 's/.*environment steps in .* s: \([0-9]*\) steps per second.*/\1/p')
  echo "$actors,1,$rate"
done
