# INDICATIVE: a current single-socket, 128-core arm64 server of the Ampere
# Altra Max class (Neoverse N1 cores on an Arm CMN-600 mesh). No published
# figure of the SMMU command queue on such a machine checks this profile:
# every figure simulated with it is indicative, whatever the Kunpeng check
# says. Sources beside each value; "assumed" where none was found.
name = neoverse-n1-128c-1s-indicative
cpus = 128                 # Altra Max M128: 128 N1 cores, one socket
# "each mesh cross-point houses four cores" (AnandTech, Ampere Altra Max review, page 3)
level xp = 4
level socket = 128
t_xfer.xp = 30             # assumed from the fastest pairs of a Neoverse mesh: Graviton3 pairs from
                           # ~29.6 ns (nviennot/core-to-core-latency, results/AWS Graviton3.csv)
t_xfer.socket = 47         # Graviton2 (64 N1 on CMN-600) median 47 ns (nviennot/core-to-core-latency README)
t_xfer.machine = 139       # unused on one socket (Graviton4 cross-socket mean 138.6 ns, chipsandcheese 2024)
xfer_scale = 1.0           # not fitted for this machine
t_hit = 1.2                # assumed: an L1 hit, 4 cycles at 3.0 GHz
t_rmw = 5                  # assumed: an atomic on an owned line
atomics = far              # N1 TRM, "Atomic instructions": an atomic that misses L1 or hits a shared line
                           # "is sent as a far atomic on the core CHI interface" and, if the interconnect
                           # supports it, executed there (assumed: CMN-600 does)
t_far = 10                 # assumed: the home node's time per atomic
home_order = random        # assumed, as on kunpeng920-2s: nothing publishes CMN-600's grant order
t_mem = 81                 # Graviton2 DRAM, "measured 81ns" (AnandTech Graviton2 review, page 3)
t_fence = 8                # assumed
t_mmio = 500               # assumed
t_mmio_w = 50              # assumed
t_cons_lag = 0             # assumed: CONS passes a CMD_SYNC as its MSI is written (the stress sets more)
t_repoll = 100000          # the model's
home_cpu = 0
smmu_level = socket        # the SMMU is an agent on the mesh
placement = fill
smmu_sev = 1               # assumed (most SMMUv3 implementations have it)
smmu_msi = 1               # assumed
queue_shift = 16           # assumed
t_cmd = 100                # carried over from the Kunpeng profile (assumed there)
t_sync = 200               # carried over: make sim replaces it with the Kunpeng fit's value
t_other = 1500             # carried over: make sim replaces it with the Kunpeng fit's value
