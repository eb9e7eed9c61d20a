#!/bin/bash
# Usage: bash results/v1.2/train-seeds/runs.sh RUNS_FOLDER   (from the repository's root; about 75 min on 2 cores)
# The strong and expert tiers under three rule sets, each with weights from training seeds 1 (the committed
# weights in results/v1.2/weights), 2 and 3 (trained here into RUNS_FOLDER/w<seed>; the same file names,
# since a weights file is named by its rules hash). Then: python results/v1.2/train-seeds/table.py RUNS_FOLDER
set -euo pipefail
O=$1
L=budget=24,own_memo=on,repeat=on,cut=move,ruler_memo=on,share_setup=on
STRONG=strong-specialist:R,strong-specialist:C,strong-specialist:P,strong-specialist:I
EXPERT=expert-specialist:R,$L,expert-specialist:C,$L,expert-specialist:P,$L,expert-specialist:I,$L
weights() { if [ "$1" = 1 ]; then echo results/v1.2/weights; else echo "$O/w$1"; fi; }
play() {  # tier rules-file train-seed games
  local out
  out=$O/$1-$(basename "$2" .toml)-w$3.parquet
  [ -f "$out" ] && return
  local agents=$STRONG
  [ "$1" = expert ] && agents=$EXPERT
  BOARDLAB_WEIGHTS=$(weights "$3") boardlab simulate --rules "$2" --players 4 --agents "$agents" --seating rotate \
    --games "$4" --seed 41 --jobs 2 --quiet --out "$out"
}
mkdir -p "$O"
for s in 2 3; do
  for r in tier-screen/tiers-18-13 market-card/market-1 v1.2-no-compensation; do
    mkdir -p "$O/w$s"
    BOARDLAB_WEIGHTS=$O/w$s boardlab train --game citywright --rules results/v1.2/$r.toml --seed $s \
      --games 10000,10000 --k 3 --jobs 2
  done
done
for s in 1 2 3; do
  for r in tier-screen/tiers-18-13 market-card/market-1 v1.2-no-compensation; do
    play strong results/v1.2/$r.toml $s 4000
  done
done
for s in 1 2; do
  for r in tier-screen/tiers-18-13 v1.2-no-compensation; do
    play expert results/v1.2/$r.toml $s 600
  done
done
play expert results/v1.2/market-card/market-1.toml 1 600
