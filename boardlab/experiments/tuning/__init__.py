"""`boardlab tune scoring`: rule parameters of any game tuned by simulation so that agents (or seats) win
equally often.  It reads only the result columns every game has (``game_seed, seat, agent, win_share, total``).

One module per concern: ``settings`` (what the command was given), ``space`` (the parameters), ``objective``
(loss and penalties), ``spec`` (the checked study), ``training`` (``--train``), ``play`` (a trial's games),
``sampling`` (sampler and pruner), ``store`` (the study's file), ``stopping`` (early stop and race),
``trials`` (the search loop), ``verification``, ``outputs`` and ``report`` (the files), ``task`` (the command's
task: :func:`check`, then :func:`run`).

Design notes: docs/tuning.md#in-the-code.
"""

from .objective import (
    BOOTSTRAP_REPS,
    EXCESS_PENALTY,
    INVALID,
    PENALTY,
    PENALTY_SLOPE,
    bootstrap_loss,
    bootstrap_tables,
    groups_for,
    loss,
    noise_floor,
    noise_floor_tables,
    pool,
    pooled_value,
    shares,
)
from .outputs import best_rules, best_toml, importances, trials_table, write_outputs
from .play import VERIFY_BLOCK, all_cached, block_seed, play_block, play_blocks, play_verification, reference
from .report import summary_text
from .sampling import cma_patience, distributions, pruner, restarts, sampler
from .settings import OBJECTIVES, SAMPLERS, STOP_Z, Play, Search, Session, Target, TuneError, TuneSettings
from .space import (
    Param,
    check_placeholders,
    check_unused,
    excess_changes,
    limit_changes,
    parse_param,
    parse_params,
    rules_for,
)
from .spec import Table, TuneSpec, make_tune_spec, pin_agents
from .stopping import (
    Reference,
    early_stop,
    false_equivalence_rate,
    false_prune_rate,
    false_stop_rate,
    race_rates,
    sequential_stop,
    stop_rates,
)
from .store import STUDY_NAME, StudyLock, best_trial, check_output, fail_running, finished, open_study, study_path
from .task import Outcome, Plan, check, run
from .training import ensure_weights
from .trials import add_base_trial, optimise, run_trial
from .verification import Verification, table_kinds, verify, verify_table

__all__ = [
    "BOOTSTRAP_REPS", "EXCESS_PENALTY", "INVALID", "OBJECTIVES", "PENALTY", "PENALTY_SLOPE", "SAMPLERS", "STOP_Z",
    "STUDY_NAME", "VERIFY_BLOCK", "Outcome", "Param", "Plan", "Play", "Reference", "Search", "Session", "StudyLock",
    "Table", "Target", "TuneError", "TuneSettings", "TuneSpec", "Verification", "add_base_trial", "all_cached",
    "best_rules", "best_toml", "best_trial", "block_seed", "bootstrap_loss", "bootstrap_tables", "check",
    "check_output", "check_placeholders", "check_unused", "cma_patience", "distributions", "early_stop",
    "ensure_weights", "excess_changes", "fail_running", "false_equivalence_rate", "false_prune_rate",
    "false_stop_rate", "finished", "groups_for", "importances", "limit_changes", "loss", "make_tune_spec",
    "noise_floor", "noise_floor_tables", "open_study", "optimise", "parse_param", "parse_params", "pin_agents",
    "play_block", "play_blocks", "play_verification", "pool", "pooled_value", "pruner", "race_rates", "reference",
    "restarts", "rules_for", "run", "run_trial", "sampler", "sequential_stop", "shares", "stop_rates",
    "study_path", "summary_text", "table_kinds", "trials_table", "verify", "verify_table", "write_outputs",
]  # fmt: skip
