# The 2-socket, 96-core Kunpeng 920 (Hi1620, 920-4826: 2 x 48 TaiShan v110
# cores) of the 2020 "Improve cmdq lock efficiency" figures: a Huawei D06.
# Every value has its source beside it. "assumed" marks a value no public
# source gives; the sensitivity table (make sim) shows what each one moves.
# t_other, t_sync and t_far are the fit's three constants (sim-2): the values
# here are where the fit starts, not a source. make sim fits them
# (tools/native/sim/calibrate.py) and runs every prediction with the fit's
# values (calibration.json, --sim-set), never with these.
name = kunpeng920-2s
cpus = 96                  # 2 x 48: John Garry's D06, 2..96 CPUs, lore 37734fe9-8b67-3cf3-2925-2fee549cb45a@huawei.com
# topology: wayca-scheduler tools/kp920.2P.6CCL/README.md: "96 cores, in 4 Dies
# (NUMA nodes). 6 CCLs (clusters) in each NUMA node. 4 cores in each CCL."
level cluster = 4
level die = 24
level socket = 48
# one-way cache-line transfer (CAS ping-pong, half the round trip), ns:
# nviennot/core-to-core-latency, results for Kunpeng 920-6426 (the same
# die): pairs inside one die 30-38 ns, with no step between clusters;
# pairs across the two dies 71.7-87.7 ns
t_xfer.cluster = 33        # inside a die (the CSV: ~30-38 ns, clusters not faster)
t_xfer.die = 34            # inside a die, another cluster (the same CSV)
t_xfer.socket = 80         # across the dies of a socket (the same CSV: 71.7-87.7 ns)
t_xfer.machine = 160       # across sockets: not published as a c2c figure. Assumed 2 x the cross-die
                           # figure; the HCCS link is "<230 ns" (IEEE Micro 2021, Kunpeng 920 paper,
                           # quoted second-hand), and NUMA distance 20-22 vs 12 (numactl -H,
                           # lore 3bf726af-e519-4cc2-a692-19a0cf99fca7@arm.com)
xfer_scale = 1.0           # not fitted since sim-2 (sim-1 fitted 0.5): the c2c figures above stand as sourced
t_hit = 1.5                # assumed: an L1 hit, ~4 cycles at 2.6 GHz
t_rmw = 7                  # an uncontended atomic on an owned line: LL/SC add p50 6.57 ns, "kp920 24c"
                           # (deepin-community/kernel pull 1333)
atomics = far              # TSV110 runs its LSE atomics far, at the home, bypassing L1 ("'far atomic'
                           # implementations bypassing L1 cache (e.g., TSV110)", deepin-community/kernel
                           # pull 1333). That overrides the general arm64 rule that value-returning
                           # atomics "tend to be executed near" (arm64 commit "Use load LSE atomics for
                           # the non-return per-CPU atomic operations", v6.18); which of TSV110's atomics
                           # run far is not published, so all of them do here
t_far = 29                 # fitted (from 29) since sim-2: the home's time per far atomic, one effective
                           # figure charged to every far atomic, contended or not, and multiplied by
                           # xfer_scale. The start is the uncontended STADD p50 29.00 ns on CPU0 of a
                           # "kp920 24c" (the same pull 1333; 5.79 ns on CPU1); nothing contended is published
home_order = random        # assumed (nothing publishes the home's arbitration): the requests waiting
                           # for a line are granted in no particular order. Chosen because under fifo
                           # every success makes the value of all N waiters stale (about 2N tries per
                           # success, results/2026-12-03-sim1-diagnosis), far above the published
                           # 3.6-14.7 tries at 16-96 CPUs, which therefore no longer check the model
t_mem = 100                # assumed: a line no cache holds (the cmdq's lines always are)
t_fence = 10               # assumed: a DMB
t_mmio = 500               # assumed: a non-posted read of CONS (with MSI, only when the queue is full)
t_mmio_w = 50              # assumed: a posted write of PROD
t_cons_lag = 0             # assumed: CONS passes a CMD_SYNC as its MSI is written (the stress sets more)
t_repoll = 100000          # the model's: a park ends after 100 us without a write (ktime-based exits)
home_cpu = 0               # the SMMU and the driver's data beside CPU 0 (socket 0)
smmu_level = socket        # the SMMU sits on socket 0's IO die: a line it moves costs a cross-die transfer
placement = fill           # the 2020 harness: one kthread per CPU 0..N-1 (kthread_create_on_cpu)
smmu_sev = 1               # features 0x00000fef (SEV, MSI, COHERENCY set), Hi1620 boot log, lore
smmu_msi = 1               #   54b0c8b9-d079-f832-2338-11cf6b09fa00@huawei.com
queue_shift = 16           # "allocated 65536 entries for cmdq" (the same boot log)
t_cmd = 100                # assumed: the SMMU's time for one TLBI (no public figure)
t_sync = 200               # fitted (from 200): the SMMU's time for one CMD_SYNC, with its MSI
t_other = 1500             # fitted (from 1500): the rest of one map+unmap (IOVA, page tables, the 4 KiB memcpy)
