"""Training pipelines for pasur_env agents: entry points over one set of plumbing.

Entry points (``python -m train.<name>``; each reads top to bottom, CleanRL style: a
dataclass of arguments with a docstring per field, ``--config`` presets, a ``main``
that reads as the pipeline):

* :mod:`train.move_net` (``python -m train.move_net``; the pipeline is
  :mod:`train.move_net.pipeline`): the move-scoring network, fitted to search labels
  (``make train``; the shipped ``net`` agent; ``python -m train.net`` is its old name,
  kept for one release);
* :mod:`train.ppo`: behaviour cloning then MaskablePPO against an opponent pool, for
  either game (``--game``; ``make train-ppo``; the shipped ``ppo`` agent); its game
  plug-ins in :mod:`train.ppo.games` (:mod:`train.rummy_ppo`, deprecated, forwards to
  it);
* :mod:`train.rllib_ppo`: Pasur with Ray RLlib's PPO, locally or on a cluster
  (``make train-rllib``, in the ``.venv-rllib`` venv);
* :mod:`train.opponent_fit`: fits ``net-ismcts``'s opponent model to an agent's plays;
* :mod:`train.export`: a trained model.zip without its optimizer state, for shipping;
* :mod:`train.best_response`: a learned best response to a frozen agent, a lower bound
  on its exploitability (``pasur best-response``, the same command).

Plumbing, imported by the entry points and never the other way round:

* :mod:`train.common`: what every pipeline uses: the config parser, the run folder,
  the evaluation of a trained agent (the evaluation API of ``agents.evaluation``), the
  report writer, the plots, the self-play opponent pool;
* :mod:`train.sb3`: the MaskablePPO model, callbacks, checkpoints and reward wrappers
  (``ppo``);
* :mod:`train.bc`: behaviour cloning (``ppo``): recording a teacher
  in either game, fitting a policy to it;
* :mod:`train.move_net`: search labels, the torch fit, the budget and the games'
  plug-ins of the move network's pipeline;
* :mod:`train.rllib`: RLlib's env adapters and Ray session (``rllib_ppo``).

Layers: entry points > ``sb3``, ``bc``, ``move_net``, ``rllib`` > ``common``. This
package imports ``agents`` and ``pasur_env``; neither imports it.
"""

import sys

from pasur_env.core.extras import exit_on_missing_extra

if sys.argv[:1] == ["-m"]:  # ``python -m train.X``: a missing extra is one line, no traceback
    exit_on_missing_extra("the training scripts")

