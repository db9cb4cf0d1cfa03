#!/usr/bin/env bash
# the fit's split between the SMMU and the issuing side: base and the
# check's ratios at a faster SMMU (t_sync) and a range of t_far
set -euo pipefail
cd "$(dirname "$0")/../.."
export TMPDIR=${TMPDIR:-/tmp}
for ts in 285.714 200 150 100; do
	for tf in 50 70 87; do
		python3 results/2026-12-03-sim2/explore.py --cpus 8,16,32,64,96 --sec 0.01 \
			t_far=$tf t_other=958.696 t_sync=$ts
	done
done
