#!/usr/bin/env bash
# The simulated stress of make sim-short, on S1 v3 (series) and
# cmdq-mainline-fixes at 16, 64 and 128 virtual CPUs: mixed work on a queue
# of 2^7, injected delays, command errors, CONS lagging 3 us behind.
# Kunpeng 920 (96 CPUs) for 16 and 64, Neoverse N1 (128) for 128.
# Run from the repository root; writes sim-stress.tsv and logs/ here.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
P=tools/native/sim/profiles
declare -A BIN
while IFS='=' read -r v b; do BIN[$v]=$b; done < <(tools/native/sim/build cmdq-mainline-fixes series)
mkdir -p "$here/logs"
printf 'variant\tcpus\tprofile\tstatus\tops_per_s_per_cpu\tcmds_checked\tfailures\n' >"$here/sim-stress.tsv"
for v in cmdq-mainline-fixes series; do
	for n in 16 64 128; do
		prof=kunpeng920-2s cpus=96
		[ "$n" -gt 96 ] && prof=neoverse-n1-128c-1s cpus=128
		log=$here/logs/$v-$n.log
		rc=0
		"${BIN[$v]}" --sim-profile="$P/$prof.profile" --cpus "$cpus" --threads "$n" --variant "$v" \
			--seconds 0.01 --work mix --shift 7 --delay 20 --sim-set=t_cons_lag=3000 --errors 0.001 \
			--seed "$n" >"$log" 2>&1 || rc=$?
		r=$(sed -n 's/^RESULT .*cmds_checked=\([0-9]*\) .*ops_per_s_per_cpu=\([0-9]*\) .*failures=\([0-9]*\)$/\2\t\1\t\3/p' "$log")
		st=pass
		{ [ "$rc" = 0 ] && [ -n "$r" ]; } || st="fail (exit $rc)"
		printf '%s\t%s\t%s\t%s\t%s\n' "$v" "$n" "$prof" "$st" "${r:--	-	-}" | tee -a "$here/sim-stress.tsv"
	done
done
