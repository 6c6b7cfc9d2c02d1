"""strata.rl from Python: CartPole's dynamics as Gymnasium writes them (one step computed by
hand), episodes ending as they should, the replay buffer, returns and GAE against numpy."""
import math

import numpy as np
import pytest

import strata


def test_cartpole_step_matches_gymnasiums_equations():
    env = strata.rl.make("CartPole-v1")
    assert env.discrete_actions == 2 and env.observation_size == 4 and env.max_episode_steps == 500
    obs, info = env.reset(seed=3)
    x, x_dot, theta, theta_dot = (float(v) for v in obs)
    # Gymnasium's CartPoleEnv.step, Euler integration, force +10 for action 1.
    gravity, masscart, masspole, length, tau, force = 9.8, 1.0, 0.1, 0.5, 0.02, 10.0
    total_mass, polemass_length = masscart + masspole, masspole * length
    cos, sin = math.cos(theta), math.sin(theta)
    temp = (force + polemass_length * theta_dot ** 2 * sin) / total_mass
    thetaacc = (gravity * sin - cos * temp) / (length * (4.0 / 3.0 - masspole * cos ** 2 / total_mass))
    xacc = temp - polemass_length * thetaacc * cos / total_mass
    expected = [x + tau * x_dot, x_dot + tau * xacc, theta + tau * theta_dot, theta_dot + tau * thetaacc]
    obs, reward, terminated, truncated, _ = env.step(1)
    np.testing.assert_allclose(obs, expected, rtol=1e-5, atol=1e-6)
    assert reward == 1.0 and not terminated and not truncated
    steps = 1
    while not terminated and not truncated:  # always pushing right: the pole falls
        obs, reward, terminated, truncated, _ = env.step(1)
        steps += 1
    assert terminated and steps < 100
    with pytest.raises(strata.Error, match="NoSuchEnv"):
        strata.rl.make("NoSuchEnv-v0")


def test_pendulum_takes_continuous_actions():
    env = strata.rl.make("Pendulum-v1")
    assert env.discrete_actions is None and env.action_low == [-2.0] and env.action_high == [2.0]
    env.reset(seed=0)
    obs, reward, *_ = env.step(np.array([1.5], np.float32))
    assert obs.shape == (3,) and reward <= 0


def test_replay_buffer_and_returns():
    buffer = strata.rl.ReplayBuffer(capacity=4, observation_size=2, action_size=1, seed=1)
    for i in range(6):  # the oldest two are overwritten
        buffer.add([i, i], [i % 2], float(i), [i + 1, i + 1], i == 5)
    assert len(buffer) == 4
    batch = buffer.sample(64)
    rewards = np.asarray(batch["rewards"])
    assert set(rewards.tolist()) <= {2.0, 3.0, 4.0, 5.0} and len(set(rewards.tolist())) == 4
    np.testing.assert_array_equal(np.asarray(batch["next_observations"])[:, 0], np.asarray(batch["observations"])[:, 0] + 1)

    rewards = np.array([[1.0], [2.0], [3.0]], np.float32)  # [T, N]: one environment
    dones = np.array([[0.0], [0.0], [1.0]], np.float32)
    expected = [[1 + 0.9 * 2 + 0.81 * 3], [2 + 0.9 * 3], [3]]
    np.testing.assert_allclose(np.asarray(strata.rl.discounted_returns(rewards, dones, 0.9)), expected, rtol=1e-6)
