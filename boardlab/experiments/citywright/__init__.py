"""Citywright's runs and studies: its chunk player, its appendix report, the skill axis, training, the
expert's levers."""
