#!/bin/sh
# Environment steps per second of strata_a3c_hub (examples/rl/a3c_hub.cpp: A3C agents as worker
# processes sharing their network through one SQLite hub) on CartPole-v1 against the number of
# agent processes: the same 200,000 environment steps split over 1, 2, 3 processes (4 copies and
# 5-step rollouts each, no evaluation while they run), one OpenMP thread each, with a push to the
# hub every rollout (the default) and every 4 rollouts. The rate is all agents' steps over the time from the first
# task's start to the last one's end (the program's own line); each point is the median of 3
# runs. Writes CSV rows "agents,threads,steps_per_second" in bench/rl/scaling.sh's format, with
# agents = agent processes and the "threads" column holding --push-every, for plot_scaling.py:
#   sh bench/rl/a3c_hub_scaling.sh build > bench/rl/a3c_hub_scaling_2core.csv
#   python3 bench/rl/plot_scaling.py bench/rl/a3c_hub_scaling_2core.csv docs/images/rl_a3c_hub_scaling.png \
#     "A3C agents sharing parameters through the hub (strata_a3c_hub), 2-core machine" \
#     "agent processes (strata_a3c_hub worker)" "push every {} rollout(s)"
set -eu
build=${1:-build}
hub=/tmp/strata_a3c_hub_scaling.db
echo "agents,threads,steps_per_second"
for every in 1 4; do
  for workers in 1 2 3; do
    rates=""
    for run in 1 2 3; do
      rm -rf "$hub" "$hub-wal" "$hub-shm" "$hub-blobs"
      rate=$(OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive "$build/strata_a3c_hub" --workers $workers --steps 200000 \
               --push-every $every --eval-every 0 --eval-episodes 1 --hub "$hub" |
             sed -n 's/.* s of agent time: \([0-9]*\) steps per second.*/\1/p')
      echo "push every $every, workers $workers, run $run: $rate steps/s" >&2
      rates="$rates $rate"
    done
    echo "$workers,$every,$(echo $rates | tr ' ' '\n' | sort -n | sed -n 2p)"
  done
done
