"""The plumbing every training pipeline uses, once.

* :mod:`train.common.config`: the command-line parser (``--config`` presets + field
  overrides over a dataclass of arguments) and the reproducing command line;
* :mod:`train.common.run_dir`: the run folder ``<out>/<name>/`` and its
  ``config.json``;
* :mod:`train.common.evaluation`: the evaluation of a trained agent against named
  opponents, through the project's evaluation API (periodic and final);
* :mod:`train.common.report`: the ``report.md`` writer;
* :mod:`train.common.plots`: the learning and evaluation curves;
* :mod:`train.common.pool`: the self-play opponent pool (SB3 and RLlib pipelines).

Nothing here imports an entry point or a pipeline's own helpers.
"""
