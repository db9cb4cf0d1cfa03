#!/bin/bash
# runs.sh: the single runs the README quotes, on the frozen model, under the
# fit of calibration.json. Run from the repository's top after make sim (its
# binaries, under CACHE_DIR/native/base/VARIANT/sim/). Writes runs/*.txt
# beside this script: each run's RESULT line and contention profile.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
C=${CACHE_DIR:-$HOME/.cache/iommu-scale}
P=tools/native/sim/profiles/kunpeng920-2s.profile
fit=$(python3 -c 'import json,sys; print(" ".join("--sim-set=%s=%.6g" % kv for kv in sorted(json.load(open(sys.argv[1]))["fitted"].items())))' "$here/calibration.json")
mkdir -p "$here/runs"
one() { # one VARIANT CPUS SHIFT BURST
	local v=$1 n=$2 s=$3 b=$4
	# shellcheck disable=SC2086
	"$C/native/base/$v/sim/cmdq-sim" --sim-profile="$P" --cpus 96 --threads "$n" --seconds 0.01 --shift "$s" \
		--work unmap --seed 1 --variant "$v" --watchdog 5 --burst "$b" $fit --sim-report=- \
		>"$here/runs/$v-$n-q$s-burst$b.txt" 2>&1
}
one cmdq-spinlock 16 16 50
one cmdq-spinlock 64 16 50
one base 16 16 50
one series 16 12 1
one base 16 12 1
