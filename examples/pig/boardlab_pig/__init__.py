"""Pig, a push-your-luck dice race, as a boardlab game registered from its own package.

``rules`` holds the rules as data (presets and TOML variants), ``api`` the game (the public API every
boardlab game has), ``game`` its registry entry, found through the ``boardlab.games`` entry point.
"""

__version__ = "0.1.0"
