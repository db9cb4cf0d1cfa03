#!/usr/bin/env bash
# the contention profile (SIMLINE, with held_ns) of the spinlock fallback and
# the add at 64 CPUs, at the fit's t_sync and at t_sync 100; run after make sim
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tools/lib.sh
. tools/lib.sh
P=tools/native/sim/profiles/kunpeng920-2s.profile
for v in cmdq-spinlock cmdq-v1; do
	b=$CACHE_DIR/native/base/$v/sim/cmdq-sim
	for s in 285.714 100; do
		echo "== $v, 64 CPUs, t_sync=$s"
		"$b" --sim-profile=$P --cpus 96 --threads 64 --variant "$v" --seconds 0.01 --work unmap \
			--shift 16 --seed 1 --burst 50 --sim-set=t_far=87 --sim-set=t_other=958.696 \
			--sim-set=t_sync=$s --sim-report=- | grep -E '^(RESULT|SIMPROFILE|SIMLINE) '
	done
done
