#!/bin/bash
# pt.sh VARIANT CPUS SECONDS [extra sim-set KEY=VAL...]
cd /work/main
v=$1; n=$2; s=$3; shift 3
case $v in base) b=/root/.cache/iommu-scale/native/base/base/sim/cmdq-sim;; spin) b=/root/.cache/iommu-scale/native/base/cmdq-spinlock/sim/cmdq-sim; v=cmdq-spinlock;; add) b=/root/.cache/iommu-scale/native/base/cmdq-v1/sim/cmdq-sim; v=cmdq-v1;; series) b=/root/.cache/iommu-scale/native/base/series/sim/cmdq-sim;; esac
sets="--sim-set=t_other=1500 --sim-set=t_sync=140 --sim-set=xfer_scale=0.5"
for kv in "$@"; do sets="$sets --sim-set=$kv"; done
out=results/2026-12-03-sim1-diagnosis/runs/$v-$n-$s-$(echo "$@" | tr ' =' '_-').txt
/usr/bin/time -f "host %es" $b --sim-profile=tools/native/sim/profiles/kunpeng920-2s.profile --cpus 96 --threads $n --seconds $s --shift 16 --work unmap --seed 1 --variant $v --watchdog 5 --burst 50 $sets --sim-report=- > $out 2>&1
echo "== $v n=$n $* -> $out"; grep -E "^RESULT|^SIMPROFILE|host " $out; grep -E "^SIMPOINT|^SIMLINE" $out | head -30
