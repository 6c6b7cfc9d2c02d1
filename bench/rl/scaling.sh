#!/bin/sh
# Environment steps per second of vectorised PPO (build/strata_ppo) on CartPole-v1 against the
# number of agents (environment copies) and threads: the TensorLayer paper's scaling figure.
# Writes CSV rows "agents,threads,steps_per_second" to stdout; bench/rl/plot_scaling.py draws it.
# The evaluations are disabled (--target 1e9); each run takes the same 16384 environment steps.
set -eu
build=${1:-build}
echo "agents,threads,steps_per_second"
for threads in 1 2; do
  for agents in 1 2 4 8 16; do
    rate=$(OMP_WAIT_POLICY=passive "$build/strata_ppo" --envs "$agents" --threads "$threads" --steps 16384 \
             --target 1e9 --eval-episodes 10 --hub /tmp/strata_rl_scaling.db |
           sed -n 's/.*environment steps (\([0-9]*\) per second).*/\1/p')
    echo "$agents,$threads,$rate"
  done
done
