# iommu-scale: the one interface. `make help` lists the everyday targets; `make help-FAMILY` and `make help-all` the rest.
# Each target is one line `target: prereqs ## text`; help is generated from
# those lines, so it cannot drift.

include tools/series/base.pin

CACHE_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/iommu-scale
KERNEL_SRC ?=
BASE_REF ?=
JOBS ?= $(shell nproc)
FORCE ?= 0
KUNIT_ARCH ?= um arm64 arm
export CACHE_DIR KERNEL_SRC BASE_REF JOBS FORCE KUNIT_ARCH

# make bench knobs (tools/bench/bench validates them)
VARIANTS ?= base series
CPUS ?=
THREADS ?=
GRANULES ?= 1
MODES ?= strict lazy
SECONDS ?= 2
ROUNDS ?= 3
RESULTS ?=
BENCH_CONFIG ?= arm64-virt-smmuv3
VERIFY ?= 0
DMA_DIR ?= bidir
DMA_BITS ?= 32
BOOT_TIMEOUT ?= 180
BENCH_FIRMWARE ?= dt
KUNIT_TIMEOUT ?= 600
export KUNIT_TIMEOUT
# make bench-native knobs (besides VARIANTS THREADS ROUNDS SECONDS)
NATIVE_SHIFT ?= 12
NATIVE_CMD_NS ?= 0
NATIVE_SYNC_NS ?= 0
NATIVE_UNITS ?= cmdq iova
IOVA_VARIANTS ?= base iova-rbtree series rcache9
IOVA_WORKLOADS ?= a b c d e f g h i j k
IOVA_STRESS_VARIANTS ?= base iova-rbtree series
# make stress knobs (tools/native/stress validates them before anything is fetched)
STRESS_VARIANTS ?= cmdq-mainline-fixes series
STRESS_SECONDS ?= 2
STRESS_THREADS ?=
STRESS_SHIFTS ?= 7 8 9 10
STRESS_ERRORS ?= 0 0.001
STRESS_SEED ?= 1
STRESS_IRQ_VARIANTS ?= cmdq-mainline-fixes series
STRESS_ENV = STRESS_VARIANTS="$(STRESS_VARIANTS)" STRESS_SECONDS="$(STRESS_SECONDS)" \
	STRESS_THREADS="$(STRESS_THREADS)" STRESS_SHIFTS="$(STRESS_SHIFTS)" STRESS_ERRORS="$(STRESS_ERRORS)" \
	STRESS_SEED="$(STRESS_SEED)" STRESS_IRQ_VARIANTS="$(STRESS_IRQ_VARIANTS)" \
	IOVA_STRESS_VARIANTS="$(IOVA_STRESS_VARIANTS)" IOVA_WORKLOADS="$(IOVA_WORKLOADS)"
VERSION ?=
SEND ?= 0
SMOKE_RUNS ?= 30
SERIES ?=
MBOX ?=
export VERSION SEND SERIES MBOX
BENCH_ENV = VARIANTS="$(VARIANTS)" CPUS="$(CPUS)" THREADS="$(THREADS)" \
	GRANULES="$(GRANULES)" MODES="$(MODES)" BENCH_SECONDS="$(SECONDS)" ROUNDS="$(ROUNDS)" \
	BENCH_CONFIG="$(BENCH_CONFIG)" VERIFY="$(VERIFY)" DMA_DIR="$(DMA_DIR)" DMA_BITS="$(DMA_BITS)" \
	BOOT_TIMEOUT="$(BOOT_TIMEOUT)" BENCH_FIRMWARE="$(BENCH_FIRMWARE)"

SHELL := /bin/bash
# one target at a time: the targets share build directories and the 2-core budget
.NOTPARALLEL:
.DEFAULT_GOAL := help
.PHONY: help help-% _knobs variants-check deps base backport-check kunit-stable tree export export-check quilt-check checkpatch check check-full modcheck-x86_64 kunit kunit-debug gate-fixtures modcheck \
	mutation stress stress-b1 stress-mutants stress-short sim sim-short sim-iova model herd7 litmus send send-check trailers build bench bench-knobs bench-native bench-bundle bench-report bench-pgtable bench-profile bench-smoke smoke-kernels bench-smoke-repeat lava-jobs lava-run lava-submit lava-collect lava-server-check lava-devices lava-smoke notes notes-check selftest selftest-fast test cache-info clean-trees \
	clean-cache

# make help: generated from the '## [FAMILY] text' line of each target ('*'
# after the family: an everyday target, on help's first screen) and from
# the knobs below, whose text starts with the targets they serve
FAMILIES := series gates models bench native mail lava results
define HELP_AWK
FNR == NR { if (match($$0, /^[a-z][a-z0-9_-]*:.*## \[[a-z]+\*?\] /)) {
		t = $$0; sub(/:.*/, "", t); f = $$0; sub(/^[^[]*\[/, "", f); ev = f ~ /^[a-z]+\*/
		sub(/[*]?\].*/, "", f); d = $$0; sub(/^[^]]*\] /, "", d)
		fam[t] = f; desc[t] = d; every[t] = ev; order[++n] = t }
	next }
{ split($$0, k, "|"); kf = ""; pre = k[3]
	if (match(pre, /^[a-z0-9, -]+: /)) {
		pre = substr(pre, 1, RLENGTH - 2); m = split(pre, w, ", "); stem = ""
		for (i = 1; i <= m; i++) { x = w[i]; if (x ~ /^-/) x = stem x; else { stem = x; sub(/-.*/, "", stem) }
			if (x in fam) kf = kf " " fam[x] }
	}
	if (kf == "") kf = " general"
	kfam[++nk] = kf; kline[nk] = sprintf("  %-21s %-24s %s", k[1], k[2], k[3]) }
END {
	if (want == "everyday") {
		for (i = 1; i <= n; i++) if (every[order[i]]) printf "  %-18s [%s] %s\n", order[i], fam[order[i]], desc[order[i]]
		print ""; print "Families: " fams; print "  make help-FAMILY: a family's targets and knobs; make help-all: every target and knob;"; print "  tools/FAMILY/README.md: a family's manual"
		print ""; print "Knobs of every family (make VAR=value), with their values now:"
		for (i = 1; i <= nk; i++) if (kfam[i] == " general") print kline[i]
		exit }
	for (i = 1; i <= n; i++) if (want == "all" || fam[order[i]] == want) printf "  %-20s %s\n", order[i], desc[order[i]]
	print ""; print "Knobs (make VAR=value), with their values now:"
	for (i = 1; i <= nk; i++) if (want == "all" || index(kfam[i] " ", " " want " ")) { print kline[i]; shown++ }
	if (!shown) print "  (none of its own: make help shows the knobs every family takes)"
}
endef
export HELP_AWK

help: ## [general] the everyday targets, the families and the knobs every family takes
	@echo "iommu-scale: IOMMU DMA-mapping scalability series for $(BASE_UPSTREAM), and its tooling"
	@echo
	@echo "Everyday targets:"
	@$(MAKE) -s _knobs | awk -v want=everyday -v fams="$(FAMILIES)" "$$HELP_AWK" $(firstword $(MAKEFILE_LIST)) -

help-%: ## [general] a family's targets and knobs: help-series, help-gates, help-models, help-bench, help-native, help-mail, help-lava, help-results, help-general; help-all: every one
	@case " $(FAMILIES) general all " in *" $* "*) ;; *) echo "make help-$*: no such family; the families are $(FAMILIES), general, and all" >&2; exit 2 ;; esac
	@case " $(FAMILIES) " in *" $* "*) echo "iommu-scale: $* (tools/$*/README.md)" ;; *) echo "iommu-scale: $*" ;; esac
	@echo
	@$(MAKE) -s _knobs | awk -v want="$*" "$$HELP_AWK" $(firstword $(MAKEFILE_LIST)) -

# the knobs, a NAME|VALUE|TEXT line each, for help and help-%; a knob's text
# starts with the targets it serves, which give its families
_knobs:
	@printf '%s|%s|%s\n' \
		CACHE_DIR "$(CACHE_DIR)" "caches: base tree, worktrees, builds, ccache, results" \
		KERNEL_SRC "$(or $(KERNEL_SRC),-)" "your own Linux git tree (unset: pinned $(BASE_PACKAGE) $(BASE_VERSION))" \
		BASE_REF "$(or $(BASE_REF),-)" "commit the series applies to (unset: tag iommu-scale-base, or HEAD of KERNEL_SRC)" \
		JOBS "$(JOBS)" "parallel build jobs" \
		FORCE "$(FORCE)" "tree: 1 lets it discard a worktree with unexported commits" \
		KUNIT_ARCH "$(KUNIT_ARCH)" "kunit: the architectures it runs on: um, arm64, arm (32-bit)" \
		VARIANTS "$(VARIANTS)" "bench, bench-native, lava-jobs: bare, base, series, or NAME for patches/bench/NAME.series" \
		CPUS "$(or $(CPUS),-)" "bench: QEMU -smp (unset: nproc, at most 64)" \
		THREADS "$(or $(THREADS),-)" "bench, bench-native, lava-jobs: thread counts (unset: 1 2 4 ... CPUS); bench-native: unset, 1 .. nproc" \
		GRANULES "$(GRANULES)" "bench: pages per map/unmap, 1..1024" \
		MODES "$(MODES)" "bench, lava-jobs: strict (iommu.strict=1) and/or lazy (0)" \
		SECONDS "$(SECONDS)" "bench, bench-native: seconds per point" \
		ROUNDS "$(ROUNDS)" "bench, bench-native, lava-jobs: interleaved rounds (A B A B ...)" \
		BENCH_CONFIG "$(BENCH_CONFIG)" "bench, lava-jobs: kernel-config/NAME.config (-debug: KASAN, lockdep, kmemleak)" \
		VERIFY "$(VERIFY)" "bench: 1 fails a point where an IOVA page was mapped twice at once" \
		DMA_DIR "$(DMA_DIR)" "bench: DMA direction the benchmark maps with: bidir, to or from" \
		DMA_BITS "$(DMA_BITS)" "bench: DMA mask of the benchmark device, 20..64 bits" \
		BOOT_TIMEOUT "$(BOOT_TIMEOUT)" "bench: seconds a boot may take before its points (each point adds 3 x SECONDS)" \
		BENCH_FIRMWARE "$(BENCH_FIRMWARE)" "bench: dt (QEMU's device tree) or uefi (EDK2 + ACPI/IORT, for BENCH_CONFIG=arm64-server)" \
		KUNIT_TIMEOUT "$(KUNIT_TIMEOUT)" "kunit, check: seconds kunit.py lets the test kernel run" \
		NATIVE_SHIFT "$(NATIVE_SHIFT)" "bench-native: queue of 2^N entries" \
		NATIVE_CMD_NS "$(NATIVE_CMD_NS)" "bench-native: the fake SMMU's cost per command, ns" \
		NATIVE_SYNC_NS "$(NATIVE_SYNC_NS)" "bench-native: the fake SMMU's cost per CMD_SYNC, ns" \
		SIM_SECONDS "$(or $(SIM_SECONDS),0.03)" "sim: virtual seconds a run" \
		SIM_IOVA_VARIANTS "$(or $(SIM_IOVA_VARIANTS),base iova-classes rcache9)" "sim-iova: variants whose allocator runs simulated (the first is the reference)" \
		SIM_IOVA_WORKLOADS "$(or $(SIM_IOVA_WORKLOADS),d f g h)" "sim-iova: iova workloads (a..j, as IOVA_WORKLOADS)" \
		SIM_IOVA_CPUS "$(or $(SIM_IOVA_CPUS),1 16 64)" "sim-iova: virtual CPU counts" \
		SIM_IOVA_SEEDS "$(or $(SIM_IOVA_SEEDS),1 2 3)" "sim-iova: seeds per point (median, min, max)" \
		SIM_IOVA_SECONDS "$(or $(SIM_IOVA_SECONDS),0.02)" "sim-iova: virtual seconds a run (after 0.01 s of warm-up)" \
		SIM_IOVA_CALL_NS "$(or $(SIM_IOVA_CALL_NS),30)" "sim-iova: local work per alloc or free the model does not see, ns (chosen, not fitted)" \
		SIM_IOVA_NODE_NS "$(or $(SIM_IOVA_NODE_NS),2)" "sim-iova: local work per rbtree node looked at, ns (chosen, not fitted)" \
		NATIVE_BUILDS "$(or $(NATIVE_BUILDS),clean)" "bench-native: the cmdq harness builds that run: clean (no harness point), points (make stress's; as V-points)" \
		NATIVE_UNITS "$(NATIVE_UNITS)" "bench-native: which harnesses run: cmdq, iova" \
		IOVA_VARIANTS "$(IOVA_VARIANTS)" "bench-native: variants whose IOVA allocator the iova harness runs (the first also runs again as NAME-aa, the A/A noise)" \
		IOVA_WORKLOADS "$(IOVA_WORKLOADS)" "bench-native, stress: iova workloads (a same CPU, b cross CPU, c flush queue, d sizes 1..64, e 40960 outstanding; above the rcache: f sizes 33..256, g 64 freed on the next CPU, h f behind the flush queue, i 512 of 64 outstanding, j 33..64 with a 28-bit limit, k 32-bit space left)" \
		IOVA_STRESS_VARIANTS "$(IOVA_STRESS_VARIANTS)" "stress: variants whose IOVA allocator the iova harness runs with every check" \
		MODCHECK_ARCHS "$(or $(MODCHECK_ARCHS),x86_64 arm64)" "modcheck: the architectures built with the tristates as modules" \
		RESULTS "$(or $(RESULTS),-)" "bench-report: a results directory; bench-pgtable, bench-smoke-repeat: where to write" \
		PGBENCH_PROFILE "$(or $(PGBENCH_PROFILE),0)" "bench-pgtable: 1 runs the kernel again under perf and writes perf-report.txt" \
		SMOKE_RUNS "$(SMOKE_RUNS)" "bench-smoke-repeat: how many smoke runs in a row" \
		STRESS_VARIANTS "$(STRESS_VARIANTS)" "stress: variants whose cmdq code the native harness runs (base and cmdq-spinlock, mainline's code, also hit its shadow-cons bug, fixed by patch 1)" \
		STRESS_SECONDS "$(STRESS_SECONDS)" "stress: seconds per run" \
		STRESS_THREADS "$(or $(STRESS_THREADS),-)" "stress: issuing threads (unset: 1 .. 2 x nproc)" \
		STRESS_SHIFTS "$(STRESS_SHIFTS)" "stress: queues of 2^N entries, N from 7 to 19" \
		STRESS_ERRORS "$(STRESS_ERRORS)" "stress: fractions of commands failed with CERROR_ILL" \
		STRESS_SEED "$(STRESS_SEED)" "stress: seed of the injected delays and errors (run i uses SEED+i-1)" \
		MODEL_FORCE "$(or $(MODEL_FORCE),-)" "model: 1 runs pan even when a passing run with the same inputs is cached" \
		STRESS_IRQ_VARIANTS "$(or $(STRESS_IRQ_VARIANTS),-)" "stress: variants whose runs with errors also take GERROR on issuing CPU 0 (mainline loses commands there: its MSI-timeout bug, fixed by patch 2)" \
		VERSION "$(or $(VERSION),-)" "send: the version to send (unset: each series' next, from patches/versions)" \
		SERIES "$(or $(SERIES),-)" "send: only these series of patches/series (unset: all)" \
		SEND "$(SEND)" "send: 0 writes the mails (b4 send -o, the dry run); reflect mails them to you; 1 to the list" \
		MBOX "$(or $(MBOX),-)" "trailers: the mbox of replies whose Reviewed-by, Acked-by and Tested-by b4 collects" \
		LAVA_OUT "$(or $(LAVA_OUT),-)" "lava-jobs, -submit, -collect: the jobs' directory (unset: CACHE_DIR/lava-jobs)" \
		LAVA_BOOT "$(or $(LAVA_BOOT),qemu)" "lava-jobs: qemu (QEMU virt, as make bench) or grub (a lab's UEFI server, base-grub)" \
		LAVA_DEVICE_TYPE "$(or $(LAVA_DEVICE_TYPE),-)" "lava-jobs: the lab's device type (unset: qemu; required for grub)" \
		LAVA_IMAGES_URL "$(or $(LAVA_IMAGES_URL),-)" "lava-jobs: where the lab fetches the images (https://...; unset: file:// here, for lava-run)" \
		LAVA_BENCH_DEVICE "$(or $(LAVA_BENCH_DEVICE),-)" "lava-jobs, grub: the PCI device behind the server's SMMU the benchmark takes (BDF)" \
		LAVA_KERNEL_ARGS "$(or $(LAVA_KERNEL_ARGS),-)" "lava-jobs: more kernel arguments for every boot (a server: pci-stub.ids=V:D)" \
		LAVA_IDENTITY "$(or $(LAVA_IDENTITY),-)" "lava-submit, -collect: the lavacli identity of the lab (in lavacli's config, mode 600)" \
		LAVA_WAIT "$(or $(LAVA_WAIT),1)" "lava-collect: 1 waits for the jobs to finish; 0 fails, naming those not finished" \
		LAVA_WAIT_TIMEOUT "$(or $(LAVA_WAIT_TIMEOUT),86400)" "lava-collect: seconds to wait for each job"

deps: ## [series] install the Debian packages the tooling needs (idempotent, quiet when complete)
	@tools/series/deps

base: deps ## [series] fetch, verify and extract the pinned base tree into the cache, tagged (with KERNEL_SRC set: fetches nothing, uses that tree)
	@tools/series/base >/dev/null

tree: base ## [series*] worktree on branch iommu-scale/series with patches/series applied (git am --3way)
	@tools/series/tree >/dev/null

export: deps ## [series*] write the worktree's commits back to patches/ (format-patch + series)
	@tools/series/export

export-check: deps ## [series] fail if patches/ and the worktree disagree
	@tools/series/export check

quilt-check: tree ## [series] prove patches/ applies with 'quilt push -a' to the same tree as 'make tree'
	@tools/series/quilt-check

variants-check: base ## [bench] every bench variant (patches/bench/NAME.series, base, series) applied with git am to today's tree, no build: a variant that no longer applies fails here; a pass is kept until patches/ changes
	@tools/bench/variants-check

checkpatch: base ## [gates*] checkpatch.pl --strict on every patch in the series
	@tools/gates/checkpatch

check: tree ## [gates*] per patch: checkpatch, W=1 builds (arm64, x86_64), sparse, kernel-doc, KUnit; prints the table
	@tools/gates/gates

check-full: tree ## [gates] make check plus a modules column: per patch, the tristates as modules with modpost (arm64, x86_64); about 12 more minutes cold, so not in make test
	@CHECK_MODULES=1 tools/gates/gates

kunit-debug: tree ## [gates] the same suites on a KASAN + lockdep + debugobjects UML kernel (kunit/uml-debug.kunitconfig)
	@KUNIT_ARCH=um KUNITCONFIG="$(CURDIR)/kunit/uml-debug.kunitconfig" tools/gates/kunit

gate-fixtures: tree ## [gates] prove the gates catch what review caught: each ci/fixtures/gates/ patch must fail its gate (kunit-debug: ODEBUG; modcheck: an unexported symbol)
	@tools/gates/gate-fixtures

modcheck: tree ## [gates] the series' tristates as modules with modpost (x86_64 COMPILE_TEST with ARMv7s=y; arm64 with SMMUv3=m), at HEAD of the worktree as it stands; make check-full does the same per patch
	@MODCHECK_ARCHS="$(or $(MODCHECK_ARCHS),x86_64 arm64)" tools/gates/modcheck

kunit: tree ## [gates*] run the KUnit suites with kunit.py on each of KUNIT_ARCH (UML; arm64 virt + SMMUv3 and 32-bit Arm virt in QEMU)
	@for a in $(KUNIT_ARCH); do KUNIT_ARCH=$$a tools/gates/kunit || exit 1; done

# make test's parts of make kunit, so that the arm64 one can run in the
# background beside make check
kunit-um kunit-arm64 kunit-arm: kunit-%: tree
	@KUNIT_ARCH=$* tools/gates/kunit

build: base ## [bench] build the arm64 kernels of VARIANTS and the guest initramfs
	@BENCH_CONFIG="$(BENCH_CONFIG)" tools/bench/build $(VARIANTS)
	@tools/bench/build guest

# the bench knobs, checked before 'base' fetches or builds anything
bench-knobs:
	@$(BENCH_ENV) tools/bench/knobs

bench: bench-knobs base ## [bench*] VARIANTS side by side in QEMU (arm64 virt + SMMUv3): table, JSON, plots
	@$(BENCH_ENV) tools/bench/bench

bench-native: deps ## [native*] the native harness at 1..nproc threads: cmdq (VARIANTS' code) and iova (IOVA_VARIANTS' allocator), per NATIVE_UNITS: tables, JSON
	@for u in $(NATIVE_UNITS); do case $$u in \
	cmdq) VARIANTS="$(VARIANTS)" THREADS="$(THREADS)" ROUNDS="$(ROUNDS)" BENCH_SECONDS="$(SECONDS)" \
		NATIVE_SHIFT="$(NATIVE_SHIFT)" NATIVE_CMD_NS="$(NATIVE_CMD_NS)" NATIVE_SYNC_NS="$(NATIVE_SYNC_NS)" \
		NATIVE_BUILDS="$(NATIVE_BUILDS)" tools/native/bench-native || exit 1 ;; \
	iova) IOVA_VARIANTS="$(IOVA_VARIANTS)" IOVA_WORKLOADS="$(IOVA_WORKLOADS)" THREADS="$(THREADS)" ROUNDS="$(ROUNDS)" \
		BENCH_SECONDS="$(SECONDS)" tools/native/native-iova bench || exit 1 ;; \
	*) echo "bench-native: NATIVE_UNITS: '$$u' is neither cmdq nor iova" >&2; exit 1 ;; esac; done

bench-report: deps ## [bench] rebuild the table, JSON and plots of a run: make bench-report RESULTS=dir
	@test -n "$(RESULTS)" || { echo "bench-report: give RESULTS=<a results directory>" >&2; exit 1; }
	@tools/bench/report "$(RESULTS)"

bench-bundle: bench-knobs base ## [bench] self-contained kernels + QEMU + scripts tarball to run the sweep elsewhere
	@$(BENCH_ENV) tools/bench/bundle

bench-pgtable: base ## [bench] bench-only KUnit (UML): io-pgtable map/unmap of runs, per page vs per run, v7s and LPAE
	@tools/bench/pgbench $(RESULTS)

bench-profile: bench-knobs base ## [bench] perf profile of QEMU during one boot of the first of VARIANTS (strict, CPUS, THREADS)
	@$(BENCH_ENV) tools/bench/profile $(firstword $(VARIANTS))

lava-jobs: bench-knobs base ## [lava] the bench as LAVA jobs in CACHE_DIR/lava-jobs (LAVA_OUT): one per round and mode, booting VARIANTS in turn; jobs/, env.txt, publish.txt (what to publish at LAVA_IMAGES_URL); LAVA_BOOT=qemu|grub, LAVA_DEVICE_TYPE (the lab's type; default qemu), for grub LAVA_BENCH_DEVICE=BDF
	@$(BENCH_ENV) tools/lava/jobs "$(or $(LAVA_OUT),$(CACHE_DIR)/lava-jobs)"

lava-run: bench-knobs base ## [lava] the LAVA jobs run here by LAVA's dispatcher (lava-run, device tools/lava/devices/qemu-smmuv3.jinja2), into CACHE_DIR/results/<stamp>-lava: make bench's points, table and judge
	@$(BENCH_ENV) tools/lava/run

lava-submit: ## [lava] submit make lava-jobs' jobs (LAVA_OUT, default CACHE_DIR/lava-jobs) to a lab with lavacli as LAVA_IDENTITY (lavacli's own identity: the token stays in lavacli's config); ids in LAVA_OUT/lava/submitted.tsv
	@tools/lava/submit "$(or $(LAVA_OUT),$(CACHE_DIR)/lava-jobs)"

lava-collect: ## [lava] fetch the submitted jobs' logs and boards with lavacli (LAVA_IDENTITY; LAVA_WAIT=1 waits for them) and read them as make lava-run does: points, judge, results.md in LAVA_OUT
	@tools/lava/collect "$(or $(LAVA_OUT),$(CACHE_DIR)/lava-jobs)"

lava-server-check: base ## [lava] make lava-submit and lava-collect against a real lava-server installed (tools/lava/server.list) and started here, as root; one job (base, strict, 1 thread, granule 1, 1 s) unless VARIANTS, MODES, THREADS, GRANULES, ROUNDS are given; lavacli's answers kept for ci/selftest's replay
	@tools/lava/server-check

lava-devices: deps ## [lava] render and validate the LAVA device dictionaries (tools/lava/devices/: qemu-smmuv3, arm64-server) with Debian lava-server's templates
	@for d in tools/lava/devices/*.jinja2; do tools/lava/device "$$(basename "$$d" .jinja2)" || exit 1; done

lava-smoke: base ## [lava] make test's LAVA check: the series' smoke Image booted once by lava-run (strict, 1 thread, granule 1, 1 s), its log read into points and judged as make lava-run does; sanity, not timing
	@VARIANTS=series CPUS=2 THREADS=1 GRANULES=1 MODES=strict BENCH_SECONDS=1 ROUNDS=1 \
		RESULTS_ROOT="$(CACHE_DIR)/lava-smoke" tools/lava/run

bench-smoke: base ## [bench] QEMU check of the harness: bare, base, series boot, one point each; sanity, not timing
	@tools/bench/smoke

smoke-kernels: base ## [bench] build what make bench-smoke boots (the bare, base and series Images, the guest) and stop; make test does it in the background
	@tools/bench/smoke build

stress: deps ## [native*] the native harness with every check: STRESS_VARIANTS' cmdq code against a fake SMMU, IOVA_STRESS_VARIANTS' allocator; a failed check, hang or TSan report fails
	@$(STRESS_ENV) tools/native/stress
	@$(STRESS_ENV) tools/native/native-iova stress

stress-b1: deps ## [native] replay the B1 deadlock schedule: cmdq-v1 must end in the watchdog, base must pass; S1 v3's schedules (the B1 lap, the snapshot stall) on series, every step replayed
	@tools/native/stress b1

stress-mutants: deps ## [native] mutants of the cmdq code of base (ci/mutations/cmdq/) and series (ci/mutations/cmdq-series/), and of the series' iova code (ci/mutations/iova-*), must be caught by the harnesses
	@tools/native/stress mutants
	@tools/native/native-iova mutants

sim: deps ## [native] the cmdq simulation (tools/native/sim): calibration on the 2020 Kunpeng table, its check, sensitivity, predictions at 1..128 virtual CPUs on every profile; about 15 minutes on 2 cores (sim-2, 905 s, 2026-12-03); not in make test
	@SIM_SECONDS="$(SIM_SECONDS)" tools/native/sim/run

sim-short: deps ## [native] make test's share of the simulation: bad input, determinism, 1/16/64 virtual CPUs, a simulated stress (base must fail it), B1 in virtual time, the core-to-core probe; about 35 s on 2 cores
	@tools/native/sim/short

sim-iova: deps ## [native] the iova harness under the simulation: SIM_IOVA_VARIANTS x SIM_IOVA_WORKLOADS at SIM_IOVA_CPUS virtual CPUs on every profile, queued spinlocks as arm64's; simulated and not calibrated (no published iova figure checks it); not in make test
	@tools/native/sim/iova

stress-short: deps ## [native] make test's share: 0.5 s runs at 1 .. nproc-1 threads, TSan, B1, the mutants; iova: 0.5 s runs at 1 .. nproc threads, TSan, the mutants
	@tools/native/stress short
	@STRESS_SECONDS=0.5 STRESS_THREADS="$$(seq -s ' ' 1 $$(nproc))" tools/native/native-iova stress
	@tools/native/native-iova mutants

model: deps ## [models] spin on the Promela model of the cmdq space reservation (ci/models/cmdq/): v1 deadlocks (B1), v2 and v3 (the series, patches 0010-0011) verify, their mutants fail; a passing run is not repeated while its inputs are unchanged (MODEL_FORCE=1 reruns)
	@tools/models/model

herd7: base ## [models] build the pinned herd7 (tools/models/herd7.pin) into the cache, once; make litmus does it first when it is missing
	@tools/models/herd7 >/dev/null

litmus: base ## [models] herd7 on ci/litmus/: the cmdq ordering under LKMM and the arm64 model, each with a broken twin
	@tools/models/litmus

bench-smoke-repeat: base ## [bench] the smoke SMOKE_RUNS times in a row, into RESULTS (default CACHE_DIR/smoke-repeat): log, spread
	@tools/bench/smoke-repeat "$(SMOKE_RUNS)" "$(or $(RESULTS),$(CACHE_DIR)/smoke-repeat)"

mutation: tree ## [gates] break the code under test on purpose (ci/mutations/) and require KUnit to fail (UML; the mutants marked '# arch: arm64' on the arm-smmu-v3-cmdq suite in QEMU)
	@tools/gates/mutation

kunit-stable: base ## [gates] the KUnit patch of smmu-cmdq-fixes on arm64 QEMU: alone on the base (each case must fail), with the fixes (each must pass), with each fix's mutant (ci/mutations/cmdq-fixes/: its cases must fail); results/<date>-kunit-stable; not in make test (one more arm64 kernel, six runs)
	@tools/gates/kunit-stable

backport-check: base ## [series] the patches with Cc: stable, git am'd onto the base and Debian's 6.12 and 6.1 sources (tools/series/backport.pin), drivers/iommu/ built for arm64 (and 32-bit Arm where msm_iommu is touched) before and after; results/<date>-backport; not in make test (two more kernel trees)
	@tools/series/backport

send: tree ## [mail*] each series as mails with b4 in CACHE_DIR/outgoing/NAME, a dry run; SEND=reflect mails you, SEND=1 the list (both once make modcheck passed)
	@tools/mail/send

send-check: tree ## [mail] make send's dry run, then each series through b4 am and git am on its base (or prerequisite), and all in turn give make tree's tree
	@tools/mail/send check

trailers: tree ## [mail] b4 trailers -u from the replies in MBOX=FILE on each series' branch, into the series worktree, then make export
	@tools/mail/trailers

notes: deps ## [results] regenerate the measured tables in MAINTAINERS-notes.md from results/
	@tools/results/notes

notes-check: deps ## [results] fail if MAINTAINERS-notes.md's tables differ from results/, or its front page (<= 150 lines) from patches/ and the results it cites
	@tools/results/notes check

selftest: deps ## [general] self-tests of the tooling, with the fixtures in ci/: the fast tier and the integration cases that need the pinned base
	@KERNEL_SRC= BASE_REF= tools/series/base >/dev/null
	@ci/selftest all

selftest-fast: deps ## [general] the hermetic tier of selftest alone: fixtures and temporary repositories, no base, no build (under a minute)
	@ci/selftest fast

# make test's steps, in order; tools/results/test-times runs and times each
# (tools/results/test-times: bg:T runs T in the background with JOBS=1, join:T waits
# for it). What no step needs before litmus or the end starts at once in
# the background: the model (spin, one check at a time), herd7 and the
# smoke's three arm64 Images, beside the single-threaded steps (self-tests,
# checkpatch, quilt, b4). The arm64 KUnit kernel builds and runs beside
# make check, whose single-threaded cells (sparse, kernel-doc, each cell's
# link and UML run) leave a core idle; the UML KUnit run goes first in the
# foreground, because check's first cell takes its objects from ccache.
TEST_STEPS = deps bg:model tree bg:herd7 bg:smoke-kernels selftest checkpatch notes-check export-check quilt-check variants-check send-check stress-short sim-short join:herd7 litmus bg:kunit-arm64 kunit-um check join:kunit-arm64 kunit-arm join:model join:smoke-kernels bench-smoke lava-smoke
test: ## [general*] everything CI runs (about 35-45 minutes cold on 2 cores: README.md has the measured runs); ends with a time table per step (CACHE_DIR/test-times.md); its steps: TEST_STEPS in the Makefile
	@MAKE="$(MAKE)" tools/results/test-times $(TEST_STEPS)

cache-info: ## [general] say where the caches are and how big they are
	@echo "cache: $(CACHE_DIR)"; \
	for d in base debs apt trees build ccache; do \
		[ -e "$(CACHE_DIR)/$$d" ] && du -sh "$(CACHE_DIR)/$$d"; \
	done; true

clean-trees: ## [general] remove worktrees and build directories, also unexported work in them (keeps the base tree and ccache)
	rm -rf "$(CACHE_DIR)/trees" "$(CACHE_DIR)/build" "$(CACHE_DIR)/variants"
	if [ -d "$(CACHE_DIR)/base/linux/.git" ]; then git -C "$(CACHE_DIR)/base/linux" worktree prune; fi

clean-cache: ## [general] delete the whole cache (base tree, .deb, builds, ccache); the next run starts cold
	rm -rf "$(CACHE_DIR)"
