#!/bin/bash
# Usage: bash results/v1.2/residential-screen/runs.sh RUNS_FOLDER   (from the repository's root; about 10 min on 2 cores)
# One candidate, the print with residential's pair at 4 points: weights trained under it (training seed 1, into
# results/v1.2/weights), then the four specialists at strong (4,000 games) and expert (600) play, run seed 41,
# the same games as ../train-seeds/. Then: python results/v1.2/train-seeds/table.py RUNS_FOLDER
set -euo pipefail
O=$1
R=results/v1.2/residential-screen/print-r4.toml
L=budget=24,own_memo=on,repeat=on,cut=move,ruler_memo=on,share_setup=on
export BOARDLAB_WEIGHTS=results/v1.2/weights
mkdir -p "$O"
boardlab train --game citywright --rules $R --seed 1 --games 10000,10000 --k 3 --jobs 2
boardlab simulate --rules $R --players 4 --seating rotate --games 4000 --seed 41 --jobs 2 --quiet \
  --agents strong-specialist:R,strong-specialist:C,strong-specialist:P,strong-specialist:I --out "$O/strong-print-r4-w1.parquet"
boardlab simulate --rules $R --players 4 --seating rotate --games 600 --seed 41 --jobs 2 --quiet \
  --agents expert-specialist:R,$L,expert-specialist:C,$L,expert-specialist:P,$L,expert-specialist:I,$L \
  --out "$O/expert-print-r4-w1.parquet"
