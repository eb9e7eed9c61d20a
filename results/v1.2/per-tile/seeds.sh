#!/bin/bash
# Usage: bash results/v1.2/per-tile/seeds.sh RUNS_FOLDER   (from the repository's root; about 8 min on 2 cores)
# v1.2-per-tile played by the four specialists with weights from training seeds 1, 2 and 3 (10,000 + 10,000 games,
# k 3; seed 1's are the committed ../weights/citywright/0e4fd52d338d.json, which this retrains to the same bytes),
# 4,000 strong and 600 expert games, 4 players, seats rotated, run seed 41: the games of ../train-seeds/. Then:
#   python results/v1.2/train-seeds/table.py RUNS_FOLDER > results/v1.2/per-tile/train-seeds.csv
set -euo pipefail
O=$1
R=results/v1.2/per-tile/v1.2-per-tile.toml
L=budget=24,own_memo=on,repeat=on,cut=move,ruler_memo=on,share_setup=on
STRONG=strong-specialist:R,strong-specialist:C,strong-specialist:P,strong-specialist:I
EXPERT=expert-specialist:R,$L,expert-specialist:C,$L,expert-specialist:P,$L,expert-specialist:I,$L
for s in 1 2 3; do
  mkdir -p "$O/w$s"
  [ -f "$O/w$s/citywright/0e4fd52d338d.json" ] || BOARDLAB_WEIGHTS=$O/w$s boardlab train --game citywright --rules $R \
    --seed $s --games 10000,10000 --k 3 --jobs 2 --quiet > "$O/train-w$s.log" 2>&1
  for t in strong expert; do
    a=$STRONG g=4000
    [ $t = expert ] && a=$EXPERT g=600
    out=$O/$t-v1.2-per-tile-w$s.parquet
    [ -f "$out" ] && continue
    BOARDLAB_WEIGHTS=$O/w$s boardlab simulate --rules $R --players 4 --agents "$a" --seating rotate --games $g \
      --seed 41 --jobs 2 --quiet --out "$out"
  done
done
