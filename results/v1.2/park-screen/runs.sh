#!/bin/bash
# Usage: bash results/v1.2/park-screen/runs.sh RUNS_FOLDER   (from the repository's root; about 25 min on 2 cores)
# The park-adjacency candidate park-cpi.toml played by agents trained under it: weights from training seed 1
# (committed, results/v1.2/weights) and seed 2 (RUNS_FOLDER/w2); strong specialists 4,000 games and expert
# specialists 600 games per seed, run seed 41 (the games of ../train-seeds/). Then:
# python results/v1.2/train-seeds/table.py RUNS_FOLDER > results/v1.2/park-screen/played.csv
set -euo pipefail
O=$1
R=results/v1.2/park-screen/park-cpi.toml
L=budget=24,own_memo=on,repeat=on,cut=move,ruler_memo=on,share_setup=on
STRONG=strong-specialist:R,strong-specialist:C,strong-specialist:P,strong-specialist:I
EXPERT=expert-specialist:R,$L,expert-specialist:C,$L,expert-specialist:P,$L,expert-specialist:I,$L
weights() { if [ "$1" = 1 ]; then echo results/v1.2/weights; else echo "$O/w$1"; fi; }
play() {  # tier train-seed games
  local out=$O/$1-park-cpi-w$2.parquet
  [ -f "$out" ] && return
  local agents=$STRONG
  [ "$1" = expert ] && agents=$EXPERT
  BOARDLAB_WEIGHTS=$(weights "$2") boardlab simulate --rules $R --players 4 --agents "$agents" --seating rotate \
    --games "$3" --seed 41 --jobs 2 --quiet --out "$out"
}
mkdir -p "$O/w2"
for s in 1 2; do
  BOARDLAB_WEIGHTS=$(weights $s) boardlab train --game citywright --rules $R --seed $s --games 10000,10000 --k 3 --jobs 2
  play strong $s 4000
done
for s in 1 2; do play expert $s 600; done
