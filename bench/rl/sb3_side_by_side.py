"""Stable-Baselines3 under the protocol of Strata's RL examples (docs/rl.md): the same RL Zoo
hyper-parameters, one thread, and the same stopping rule — every 5000 environment steps the
deterministic policy plays 10 episodes; when they average >= 475, 100 episodes decide. Prints the
environment steps and wall-clock seconds at which CartPole-v1 reached 475.

  python3 -m venv --system-site-packages ~/.cache/strata-sb3-venv   # Debian's python3-torch (CPU)
  ~/.cache/strata-sb3-venv/bin/pip install stable-baselines3==2.3.2 gymnasium==0.29.1
  ~/.cache/strata-sb3-venv/bin/python bench/rl/sb3_side_by_side.py ppo|dqn [seed]
"""
import sys
import time

import torch
from stable_baselines3 import DQN, PPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.evaluation import evaluate_policy


def linear(start):
    return lambda remaining: remaining * start


class TargetReached(BaseCallback):
    def __init__(self, seed, target=475.0, gap=5000):
        super().__init__()
        self.seed, self.target, self.gap, self.last = seed, target, gap, 0
        self.quick = make_vec_env("CartPole-v1", n_envs=10, seed=seed + 3000000)
        self.full = make_vec_env("CartPole-v1", n_envs=100, seed=seed + 1000000)
        self.start = time.perf_counter()
        self.reached = None

    def _on_step(self):
        if self.num_timesteps - self.last < self.gap:
            return True
        self.last = self.num_timesteps
        quick, _ = evaluate_policy(self.model, self.quick, n_eval_episodes=10, deterministic=True)
        if quick < self.target:
            return True
        full, _ = evaluate_policy(self.model, self.full, n_eval_episodes=100, deterministic=True)
        print(f"  evaluation over 100 episodes at {self.num_timesteps} steps: mean return {full:.2f}", flush=True)
        if full < self.target:
            return True
        self.reached = (self.num_timesteps, time.perf_counter() - self.start)
        return False


def main():
    algo = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    torch.set_num_threads(1)
    if algo == "ppo":  # RL Zoo's ppo.yml, CartPole-v1
        env = make_vec_env("CartPole-v1", n_envs=8, seed=seed)
        model = PPO("MlpPolicy", env, n_steps=32, batch_size=256, gae_lambda=0.8, gamma=0.98, n_epochs=20,
                    ent_coef=0.0, learning_rate=linear(1e-3), clip_range=linear(0.2), seed=seed, device="cpu")
        budget = 200000
    else:  # RL Zoo's dqn.yml, CartPole-v1 (SB3's DQN: neither double nor dueling)
        env = make_vec_env("CartPole-v1", n_envs=1, seed=seed)
        model = DQN("MlpPolicy", env, learning_rate=2.3e-3, batch_size=64, buffer_size=100000, learning_starts=1000,
                    gamma=0.99, target_update_interval=10, train_freq=256, gradient_steps=128,
                    exploration_fraction=0.16, exploration_final_eps=0.04, policy_kwargs=dict(net_arch=[256, 256]),
                    seed=seed, device="cpu")
        budget = 100000
    callback = TargetReached(seed)
    model.learn(total_timesteps=budget, callback=callback)
    if callback.reached:
        steps, seconds = callback.reached
        print(f"sb3 {algo}: target 475 reached after {steps} environment steps, {seconds:.1f} s")
    else:
        print(f"sb3 {algo}: target 475 not reached in {budget} steps ({time.perf_counter() - callback.start:.1f} s)")


main()
