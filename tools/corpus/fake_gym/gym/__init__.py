"""A stand-in for OpenAI Gym's ``CartPole-v0`` (old 4-tuple ``step`` API), for MXNet's actor-critic
example on machines without gym. The classic cart-pole equations (Barto, Sutton & Anderson, 1983):
Euler steps of 0.02 s, force 10 N, an episode ends when the pole leans past 12 degrees, the cart leaves
[-2.4, 2.4], or after 200 steps; the reward is 1 per step. Written for tools/corpus/mxnet_examples.py.
"""

import math

import numpy as np

__all__ = ["make"]


class _CartPole:
    gravity, masscart, masspole, length, force_mag, tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02
    theta_limit = 12 * 2 * math.pi / 360
    x_limit = 2.4
    max_steps = 200

    def __init__(self):
        self._rng = np.random.RandomState()
        self.state = None
        self.steps = 0

    def seed(self, seed=None):
        self._rng = np.random.RandomState(seed)
        return [seed]

    def reset(self):
        self.state = self._rng.uniform(-0.05, 0.05, size=(4,))
        self.steps = 0
        return np.array(self.state, dtype=np.float64)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = self.force_mag if int(action) == 1 else -self.force_mag
        total_mass = self.masspole + self.masscart
        polemass_length = self.masspole * self.length
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + polemass_length * theta_dot ** 2 * sin) / total_mass
        theta_acc = (self.gravity * sin - cos * temp) / (
            self.length * (4.0 / 3.0 - self.masspole * cos ** 2 / total_mass))
        x_acc = temp - polemass_length * theta_acc * cos / total_mass
        x, x_dot = x + self.tau * x_dot, x_dot + self.tau * x_acc
        theta, theta_dot = theta + self.tau * theta_dot, theta_dot + self.tau * theta_acc
        self.state = (x, x_dot, theta, theta_dot)
        self.steps += 1
        done = bool(abs(x) > self.x_limit or abs(theta) > self.theta_limit or self.steps >= self.max_steps)
        return np.array(self.state, dtype=np.float64), 1.0, done, {}

    def render(self, mode="human"):
        return None


def make(name):
    if name not in ("CartPole-v0", "CartPole-v1"):
        raise ValueError(f"this stand-in for gym has only CartPole, not {name!r}")
    return _CartPole()
