"""Hearts-lite, a trick-taking card game with hidden hands, as a boardlab game registered from its own package.

``rules`` holds the rules as data (presets and TOML variants), ``api`` the game (the public API every
boardlab game has), ``game`` its registry entry, found through the ``boardlab.games`` entry point, and
``results`` its result rows.
"""

__version__ = "0.1.0"
