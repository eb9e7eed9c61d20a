"""Runs, pipelines, reports and the command line, over any registered game (the top layer)."""

# The command's name (boardlab.experiments.cli); reports and written files that quote a command use it.
COMMAND = "boardlab"
