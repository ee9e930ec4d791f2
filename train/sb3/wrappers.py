"""VecEnv wrappers used for training: reward scaling and potential-based shaping.

Both leave the environment's rules and observations alone; they only change the
reward signal the learner is trained on (evaluation always uses the true game).
"""

from __future__ import annotations

import numpy as np
from stable_baselines3.common.vec_env import VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvStepReturn

from pasur_env.pasur.cards import POINTS_OF
from pasur_env.pasur.observation import observation_layout
from pasur_env.pasur.rules import Rules


class ScaleReward(VecEnvWrapper):
    """Multiply rewards by ``scale`` (round-point differences of +-30 -> +-3)."""

    def __init__(self, venv, scale: float) -> None:  # noqa: ANN001
        super().__init__(venv)
        self.scale = float(scale)

    def reset(self) -> np.ndarray:
        return self.venv.reset()

    def step_wait(self) -> VecEnvStepReturn:
        obs, rew, done, info = self.venv.step_wait()
        return obs, rew * self.scale, done, info


class PotentialShaping(VecEnvWrapper):
    """Potential-based shaping (Ng et al., 1999) from the learner's observation.

    ``Phi(obs)`` = the card points already captured by the learner's side minus the
    other sides' mean, plus ``sur_points`` per sur of difference, plus
    ``club_value`` per club of difference: the running score of the round as the
    learner can see it. The shaped reward ``r + gamma * Phi(s') - Phi(s)`` (with
    ``Phi = 0`` at episode ends) pays points as they are captured instead of only at
    the round's end; the return of a round is unchanged up to discounting, so the
    best policy is the same, but credit reaches the decisions that earned it.
    """

    def __init__(self, venv, rules: Rules, gamma: float, club_value: float = 7 / 13,  # noqa: ANN001
                 weight: float = 1.0) -> None:
        super().__init__(venv)
        lay = observation_layout(rules)
        S = rules.num_sides
        pile_off, _ = lay["pile"]
        surs_off, _ = lay["surs"]
        clubs_off, _ = lay["clubs"]
        n = self.observation_space.shape[0]
        # Phi is linear in the observation: one weight vector
        w = np.zeros(n, dtype=np.float64)
        other = -1.0 / (S - 1)
        for k in range(S):
            sign = 1.0 if k == 0 else other
            w[pile_off + 52 * k:pile_off + 52 * (k + 1)] = sign * POINTS_OF
            w[surs_off + k] = sign * 4.0 * rules.sur_points  # surs are stored / 4
            w[clubs_off + k] = sign * 13.0 * club_value  # clubs are stored / 13
        self.w = w * weight
        self.gamma = float(gamma)
        self.phi = np.zeros(self.num_envs)

    def reset(self) -> np.ndarray:
        obs = self.venv.reset()
        self.phi = obs @ self.w
        return obs

    def step_wait(self) -> VecEnvStepReturn:
        obs, rew, done, info = self.venv.step_wait()
        phi_next = obs @ self.w
        shaped = rew + np.where(done, 0.0, self.gamma * phi_next) - self.phi
        self.phi = phi_next  # after a reset obs is the new episode's first observation
        return obs, shaped.astype(np.float32), done, info
