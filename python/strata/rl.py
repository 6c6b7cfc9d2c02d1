"""Reinforcement learning from Python: ``env = strata.rl.make("CartPole-v1")`` with Gymnasium's
``reset``/``step``, ``ReplayBuffer``, ``discounted_returns`` and ``gae``."""
from ._strata.rl import Env, ReplayBuffer, discounted_returns, gae, make  # noqa: F401
