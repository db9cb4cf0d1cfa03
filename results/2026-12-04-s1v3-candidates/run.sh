#!/usr/bin/env bash
# The S1 v3 candidates (#29) side by side in the simulation (model sim-2),
# strict, queues 2^8, 2^12 and 2^16, kunpeng920-2s: under the sim-2 fit
# (fit/) and with the fit's t_sync replaced by 100 ns (tsync100/, a probe
# of a faster SMMU, as in results/2026-12-04-sim3-explore); and the second
# profile, indicative, under the fit (neoverse-fit/, fewer variants).
# Run from the repository root; CACHE_DIR as make's.
set -euo pipefail
. tools/lib.sh
R=results/2026-12-04-s1v3-candidates
SIM=tools/native/sim
cal=results/2026-12-03-sim2/calibration.json
out=$("$SIM/build" base cmdq-v1 cmdq-spinlock series cmdq-v3-lock cmdq-v3-nosynclock cmdq-v3-tokens cmdq-v3)
mapfile -t all <<<"$out"
few=()
for b in "${all[@]}"; do
	case ${b%%=*} in base | cmdq-v1 | cmdq-spinlock | series | cmdq-v3) few+=("$b") ;; esac
done
t100=$(mktemp)
python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c["fitted"]["t_sync"]=100.0; json.dump(c,open(sys.argv[2],"w"))' "$cal" "$t100"
pred() { # OUT PROFILE FITTED VERDICT BIN...
	local out=$1 prof=$2 fit=$3 verdict=$4
	shift 4
	python3 "$SIM/predict.py" "${@/#/--bin=}" --profile="$SIM/profiles/$prof.profile" --fitted "$fit" \
		--out "$R/$out" --modes strict --cache "$CACHE_DIR/sim-cache" ${verdict:+--verdict "$verdict"}
}
pred fit kunpeng920-2s "$cal" "" "${all[@]}" &
pred tsync100 kunpeng920-2s "$t100" "check failed; the fit's t_sync replaced by 100 ns (a probe of a faster SMMU, not a fit): indicative" "${all[@]}"
wait
pred neoverse-fit neoverse-n1-128c-1s "$cal" "" "${few[@]}"
rm -f "$t100"
