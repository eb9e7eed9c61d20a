"""Runs, pipelines, reports and the command line, over any registered game (the top layer)."""
