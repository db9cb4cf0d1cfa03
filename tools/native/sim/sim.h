/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/native/sim: a deterministic discrete-event simulation of N virtual
 * CPUs running a native harness's code (the variant's own driver source,
 * extracted as for make stress), one at a time, on coroutines.
 *
 *  - Every agent (a virtual CPU, the SMMU, the harness's own bookkeeping
 *    threads) has a virtual clock. The runnable agent with the least
 *    clock runs next (ties: the lower id), so a run is a function of its
 *    parameters and seed alone.
 *  - Every shim point that touches shared memory calls sim_access() with
 *    the address it touches, before the access. Its cost comes from a
 *    cache-line model: a line has one exclusive holder or a set of
 *    sharers; a load hit costs t_hit; a miss, or a store or RMW on a line
 *    another agent holds, costs a transfer whose price depends on the
 *    distance between the two agents (the profile's topology); a line
 *    serves one transfer at a time (busy-until), so a contended word
 *    serialises. RMWs run near (at the requester) or far (at the line's
 *    home), as the profile says. The requests waiting for a line are
 *    granted in arrival order or in none (home_order).
 *  - The SMMU's DMA is pipelined: the lines it reads and writes move, and
 *    hold CPUs that want them, but its own clock does not wait for them.
 *  - A waiting agent (cpu_relax, wfe, udelay, a failed cond_load) parks
 *    until another agent writes a line it loaded since it last waited; its
 *    clock jumps to that write. A WFE also ends at the SMMU's SEV. A park
 *    ends anyway after t_repoll, so time-based exits (the driver's
 *    ktime timeouts, the harness's watchdog) still happen.
 *
 * The machine comes from a profile file (profiles/), see sim.c.
 */
#ifndef NATIVE_SIM_H
#define NATIVE_SIM_H

#include <stddef.h>
#include <stdint.h>

enum sim_kind {
	SIM_LOAD,	/* a load of a word */
	SIM_STORE,	/* a store of a word */
	SIM_RMW,	/* an atomic read-modify-write (a failed cmpxchg too) */
	SIM_MMIO_R,	/* a read of a device register: t_mmio, no cache state */
	SIM_MMIO_W,	/* a write of a device register: t_mmio_w, posted */
	SIM_FENCE,	/* a barrier: t_fence, no address */
	SIM_NKINDS,
};

enum sim_wait {
	SIM_W_RELAX,	/* cpu_relax() or a spin turn */
	SIM_W_WFE,	/* wfe(): also ends at an SEV */
	SIM_W_DELAY,	/* udelay(): at most the delay asked */
};

enum sim_agent_kind {
	SIM_AGENT_CPU,	/* a virtual CPU, placed by the profile */
	SIM_AGENT_DEV,	/* the SMMU: at the profile's smmu position */
	SIM_AGENT_FREE,	/* the harness's own: costs nothing, moves no line */
};

/* a point: kind, address, and the shim point's name (op) for the profile */
void sim_access(int kind, const void *addr, const char *op);
/* a range of bytes written (a queue entry): one store per line it touches */
void sim_store_range(const void *addr, size_t bytes, const char *op);
void sim_wait(int kind, uint64_t max_ns, const char *op);
/* park on one address until it is written or max_ns pass (the SMMU's idle loop) */
void sim_park_on(const void *addr, uint64_t max_ns);
/* the device wrote addr without a cache transfer (its own register): wake its watchers */
void sim_touch(const void *addr);
void sim_sev(void);
/* let every agent with an earlier clock run first: before a plain store others may see */
void sim_sync(void);
void sim_advance(uint64_t ns);	/* local work: the clock moves, nothing is shared */
void sim_sleep(uint64_t ns);	/* a thread that sleeps: the same, not counted as work */
void sim_yield(void);
uint64_t sim_now(void);

int sim_spawn(void (*fn)(void *), void *arg, int kind, int cpu, const char *name);
int sim_finished(int id);
void **sim_slot(void);		/* the running agent's own pointer (a harness's thread-local self) */
int sim_agent_id(void);

/* a name for a range of addresses, for the contention profile ("cmdq->lock") */
void sim_name(const void *addr, size_t bytes, const char *name);
/* a profile value in ns (or a plain number); exits with a message if it is missing */
double sim_param(const char *key);
int sim_cpus(void);	/* CPUs in the profile */

/*
 * The program's entry: parses and removes the --sim-* options, loads the
 * profile, runs harness_main(argc, argv) as the first agent, and the rest
 * until every agent has finished; then prints the contention profile.
 */
void sim_report_now(void);
int sim_main(int argc, char **argv, int (*harness_main)(int, char **));

#endif
