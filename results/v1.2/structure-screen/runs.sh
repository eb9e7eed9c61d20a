#!/bin/bash
# Usage: bash results/v1.2/structure-screen/runs.sh RUNS_FOLDER   (from the repository's root; about 100 min on 2 cores: 2.5 min per rule set and training seed)
# Rule forms outside the scoring numbers, each played by agents trained under it: per rule set, training seeds
# 1 and 2 (10,000 + 10,000 games, k 3, into RUNS_FOLDER/w<seed>), then the four specialists at strong (4,000 games)
# and expert (600) play, 4 players, seats rotated, run seed 41 (the games of ../train-seeds/). The print is
# ../v1.2-no-compensation.toml, played again here as the control. The second to sixth rounds of candidates
# (ROUND2) are played with training seed 1 only, except BOTH. Then:
#   python results/v1.2/train-seeds/table.py RUNS_FOLDER > results/v1.2/structure-screen/specialists.csv
#   python results/v1.2/structure-screen/points.py RUNS_FOLDER > results/v1.2/structure-screen/points.csv
set -euo pipefail
O=$1
D=results/v1.2/structure-screen
L=budget=24,own_memo=on,repeat=on,cut=move,ruler_memo=on,share_setup=on
STRONG=strong-specialist:R,strong-specialist:C,strong-specialist:P,strong-specialist:I
EXPERT=expert-specialist:R,$L,expert-specialist:C,$L,expert-specialist:P,$L,expert-specialist:I,$L
CANDIDATES="print=results/v1.2/v1.2-no-compensation.toml"
for n in depletes depletes-per-tile per-tile per-tile-iso1 per-tile-park-adj3 per-tile2-iso0 per-tile3-iso0 res-tiles2 \
  per-tile2-b10-ci3; do
  CANDIDATES="$CANDIDATES $n=$D/$n.toml"
done
ROUND2="p2b10-r4c3 p2b12-r4c3 p2b10-c3 p2b10-r3 p2b10-rci-r4 p3-r4c3"
ROUND2="$ROUND2 p2b10-r3-rp4 p2b10-r4c3-rp4 p2b12-r3-rp4 p2b10-rc3-rp4"  # the third round
ROUND2="$ROUND2 p2b10-r3-rp4-s2-row2 p2b10-r3-rp4-row2 p2b10-r3-rp4-s2 p2b12-r3-s0 p2b12-r3-rp4-s0"  # the fourth
ROUND2="$ROUND2 p2b14-r3-rp4-s0 p2b12-r3-rp4-s0-c1 p2b14-r3-rp4-s0-c1"  # the fifth
ROUND2="$ROUND2 p2b14-r3-rp4-s0-c0 p2b14-r3-rp4-s0-c1-row2"  # the sixth
BOTH="p2b14-r3-rp4-s0-c1"  # of ROUND2, played with training seed 2 as well
for n in $ROUND2; do
  CANDIDATES="$CANDIDATES $n=$D/$n.toml"
done
for c in $CANDIDATES; do
  n=${c%%=*}
  R=${c#*=}
  seeds="1 2"
  [[ " $ROUND2 " == *" $n "* && " $BOTH " != *" $n "* ]] && seeds=1
  for s in $seeds; do
    [ -f "$O/expert-$n-w$s.parquet" ] && continue
    mkdir -p "$O/w$s"
    BOARDLAB_WEIGHTS=$O/w$s boardlab train --game citywright --rules "$R" --seed $s --games 10000,10000 --k 3 \
      --jobs 2 > "$O/train-$n-w$s.log" 2>&1
    for t in strong expert; do
      a=$STRONG g=4000 out=$O/$t-$n-w$s.parquet resume=
      [ $t = expert ] && a=$EXPERT g=600
      [ -f "$out" ] && continue
      [ -d "$out.parts" ] && resume=--resume  # an interrupted run goes on from its finished chunks
      BOARDLAB_WEIGHTS=$O/w$s boardlab simulate --rules "$R" --players 4 --agents "$a" --seating rotate \
        --games $g --seed 41 --jobs 2 --quiet --out "$out" $resume
    done
  done
done
