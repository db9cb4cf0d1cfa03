// SPDX-License-Identifier: GPL-2.0
/*
 * The native cmdq harness: the SMMUv3 command-queue issue path of a
 * variant's own tree (extracted by tools/native/extract, never retyped),
 * driven by real threads against a fake SMMU.
 *
 *  - N issuing threads ("CPUs"), pinned round-robin to host CPUs, issue
 *    what the driver sees: TLBI + CMD_SYNC (an unmap), full non-sync
 *    batches, and large invalidations through the batch API.
 *  - The fake SMMU is a thread that acts as the hardware does: it reads
 *    PROD, consumes valid entries in order at a settable cost, completes a
 *    CMD_SYNC by MSI write or by CONS, and may stop on an injected
 *    CERROR_ILL, raise GERROR and wait for the driver's handler, which runs
 *    on a settable thread (a dedicated one, or one of the issuing CPUs when
 *    its interrupts are on).
 *  - Every command carries its thread and a sequence number. The fake SMMU
 *    checks each is consumed exactly once, in its thread's issue order, and
 *    never from a slot that was not written since it was last consumed; a
 *    thread checks that a CMD_SYNC returned only after every command it
 *    issued before was consumed.
 *  - Seeded delays at every shim point, or a schedule file that replays an
 *    interleaving exactly. A watchdog fails the run when nothing moves.
 *
 * Built with HARNESS_SIM (tools/native/sim/build), the same program runs
 * under the simulation: every thread is an agent with a virtual clock (the
 * issuing threads virtual CPUs placed by the machine profile, the fake
 * SMMU a device agent), time is virtual, and every check stays on.
 * Built with HARNESS_CLEAN, the driver's code has no harness point.
 *
 * Exit: 0 all checks passed; 1 a check failed; 2 bad input or the variant
 * refused the set-up; 3 the watchdog fired (no progress).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"
#include "cmdq-features.h"

#ifdef HARNESS_SIM
/* threads are the simulation's agents, and their time is virtual */
#define sched_yield() sim_yield()
#define usleep(us) sim_sleep((u64)(us) * 1000)
#define IDLE_POLL() sim_sleep(10000)
#define SIM_SYNC() sim_sync()
#else
#define IDLE_POLL() sched_yield()
#define SIM_SYNC() ((void)0)
#endif

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#include "cmdq-types.h"
#include "smmu-shim.h"
#include "cmdq-funcs.h"
#pragma GCC diagnostic pop

#define MAX_THREADS 1024
#define POISON 0x5a5a5a5a5a5a5a5bULL	/* data[1] of a slot consumed and not yet rewritten */

/* --- settings --- */
static struct {
	int threads, cpus, shift, irq_cpu, msi, delay_permille;
	unsigned int delay_max_ns, cmd_ns, sync_ns;
	double seconds, error_rate, watchdog_s;
	unsigned int time_scale;
	unsigned int other_ns, lazy, burst;	/* --work unmap: the rest of a map+unmap; a flush per lazy unmaps; maps before their unmaps */
	int work_unmap;
	unsigned long long seed;
	const char *schedule, *feed, *variant;
	int verbose;
} cfg = {
	.threads = 2, .cpus = 0, .shift = 8, .irq_cpu = -1, .msi = 1,
	.delay_permille = 0, .delay_max_ns = 2000, .cmd_ns = 0, .sync_ns = 0,
	.seconds = 1, .error_rate = 0, .watchdog_s = 5, .seed = 1, .variant = "?",
};

/* --- the SMMU's registers and state --- */
static struct device smmu_dev = { .name = "fake-smmu" };
static struct arm_smmu_device smmu;
static u32 reg_prod __attribute__((aligned(64)));
static u32 reg_cons __attribute__((aligned(64)));
static int gerror_pending __attribute__((aligned(64)));
static int smmu_stop, run_stop, all_done, cpus_done;
static u64 progress __attribute__((aligned(64)));
static u64 max_stall_ns;
#ifdef HARNESS_TSAN
int harness_fence_word;
#endif	/* the longest time nothing moved, in a run that went on */

/* --- per-thread state --- */
enum work_kind { W_MIX, W_SYNC, W_BATCH };
struct hthread {
	int id;			/* CPU number; -1 the IRQ thread */
	pthread_t tid;
	u64 rng;
	const char *op, *func, *what;	/* where it is (atomics: read by the watchdog) */
	int irqs_off;
	u64 ops, cmds, syncs, seq_next, spins, lists, points;
	u64 sync_ns, sync_n, nosync_ns, nosync_n;	/* time in the issue calls */
	u64 last_return;	/* when a call of its last returned (ns; the watchdog reads it) */
	int finished;
	int quiet;		/* issues nothing more: past the closing CMD_SYNCs */
	u64 stat[ST_NR];
	enum work_kind work;
	int work_n;
	int in_handler;
	int agent;		/* under simulation: its agent */
#ifdef HARNESS_SIM
	struct harness_mcs mcs;	/* its queued-spinlock node */
#endif
} __attribute__((aligned(64)));
static struct hthread thr[MAX_THREADS], irq_thr = { .id = -1 };
#ifdef HARNESS_SIM
#define self (*(struct hthread **)sim_slot())
struct harness_mcs *harness_mcs_node(void)
{
	return &self->mcs;
}
#else
static __thread struct hthread *self;
#endif

/* --- the checker (written by the SMMU thread, read by the issuers) --- */
static struct {
	u64 next;		/* the next sequence number expected */
	u64 done;		/* commands before it completed: a CMD_SYNC after them was consumed */
} __attribute__((aligned(64))) chk[MAX_THREADS];

/*
 * What each TLBI carries, in bits the fake SMMU does not interpret: its
 * thread and sequence number, and where it sits in the list its thread
 * issued in one call (number, position, length, whether a CMD_SYNC
 * follows), so that the checker can tell that a list stayed contiguous.
 */
#define H_POS		GENMASK_ULL(15, 8)
#define H_LEN		GENMASK_ULL(23, 16)
#define H_SYNC		BIT_ULL(24)
#define H_LIST		GENMASK_ULL(47, 32)
#define H_THREAD	GENMASK_ULL(63, 48)
static u64 n_checked, n_sync_checked, n_errors_injected, n_failures, n_dev_err, n_dev_err_expected, n_timeouts;
/* the fake SMMU's looks at the gather word, and those that found two or more lists gathered */
static u64 n_gather_looks, n_gathered;
/*
 * More threads than host CPUs (the fake SMMU needs one too): a CPU that the
 * driver expects to make progress can be descheduled for a long time, and
 * the driver's own 1 s poll timeouts (CMDQ timeout, CMD_SYNC timeout) can
 * then fire on a healthy variant, as they do on an overloaded VM. They are
 * counted and reported, not failures; every check and the watchdog still
 * are. With a host CPU for every thread, a driver timeout is a failure.
 */
static bool oversubscribed;
static bool crowded;	/* the issuing threads, the fake SMMU and the IRQ thread share the CPUs */
static int host_cpus;
#ifdef HARNESS_SIM
static int sim_sev_on;
static u64 sim_cons_lag;	/* ns from a CMD_SYNC's MSI to CONS passing it */
#endif
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

static void failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void failure(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&report_lock);
	if (__atomic_fetch_add(&n_failures, 1, __ATOMIC_RELAXED) < 20) {
		printf("FAIL  ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf(" (seed %llu%s%s)\n", cfg.seed, cfg.schedule ? ", schedule " : "",
		       cfg.schedule ? cfg.schedule : "");
		fflush(stdout);
	}
	pthread_mutex_unlock(&report_lock);
}

static u64 now_ns(void)
{
#ifdef HARNESS_SIM
	return sim_now();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
#endif
}

/*
 * The driver's clock: the wall's, or --time-scale times slower. Its 1 s
 * poll timeouts are meant for hardware that has stopped, and its recovery
 * then assumes a cons it has not seen, which overwrites unconsumed slots.
 * When threads outnumber host CPUs, a thread (or the GERROR handler's)
 * can be descheduled for that long while the fake SMMU is healthy, so the
 * clock runs 100 times slower by default there: a stall is judged by the
 * watchdog, long before the driver would give up. With a host CPU for
 * every thread the clock is the wall's.
 */
ktime_t harness_ktime_get(void)
{
	return (ktime_t)(now_ns() / cfg.time_scale);
}

static u64 rnd(u64 *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

static void spin_ns(u64 ns)
{
#ifdef HARNESS_SIM
	sim_advance(ns);
#else
	u64 end = now_ns() + ns;

	while (now_ns() < end)
		__asm__ __volatile__("" ::: "memory");
#endif
}

unsigned int harness_possible_cpus(void)
{
	return cfg.cpus;
}

/*
 * Whether msi is the first word of one of the CPUs' own MSI lines, where a
 * variant sends a CMD_SYNC's MSI there (cmdq->sync_msi, the S1 v3
 * candidate) rather than to the CMD_SYNC's slot
 */
static int msi_word(u32 *msi)
{
#ifdef HARNESS_HAS_SYNC_MSI
	uintptr_t a = (uintptr_t)msi, b = (uintptr_t)smmu.cmdq.sync_msi;

	return b && a >= b && a < b + (uintptr_t)cfg.cpus * SMP_CACHE_BYTES && (a - b) % SMP_CACHE_BYTES == 0;
#else
	(void)msi;
	return 0;
#endif
}

unsigned int harness_cpu_id(void)
{
	return self->id >= 0 ? (unsigned int)self->id : 0;
}

int harness_warn(int cond, const char *what, const char *func)
{
	if (cond)
		failure("WARN_ON(%s) in %s", what, func);
	return cond;
}

void harness_dev_err(struct device *dev __attribute__((unused)), const char *func, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	/* messages of the GERROR handler are expected when errors are injected */
	bool expected = cfg.error_rate > 0 && strstr(func, "skip_err");

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	buf[strcspn(buf, "\n")] = 0;
	if (oversubscribed && strstr(buf, "timeout")) {
		if (__atomic_fetch_add(&n_timeouts, 1, __ATOMIC_RELAXED) < 5)
			printf("note: the driver timed out (%s: %s): %d threads and the fake SMMU share %d host CPUs, "
			       "counted, not a failure\n", func, buf, cfg.threads, host_cpus);
		return;
	}
	/*
	 * With the GERROR handler on an issuing CPU, a command error is
	 * skipped only once that CPU enables interrupts; if it is waiting
	 * for a CMD_SYNC just then, that is when its wait times out.
	 */
	if (cfg.irq_cpu >= 0 && cfg.error_rate > 0 && strstr(buf, "CMD_SYNC timeout")) {
		if (__atomic_fetch_add(&n_timeouts, 1, __ATOMIC_RELAXED) < 5)
			printf("note: the driver timed out (%s: %s) while the GERROR handler's CPU %d "
			       "could not run it, counted, not a failure\n", func, buf, cfg.irq_cpu);
		return;
	}
	__atomic_fetch_add(expected ? &n_dev_err_expected : &n_dev_err, 1, __ATOMIC_RELAXED);
	if (!expected)
		failure("dev_err from %s: %s", func, buf);
	else if (cfg.verbose)
		printf("dev_err (expected, %s): %s\n", func, buf);
}

/* --- schedule mode --- */
static const char *const point_names[] = {
	"start", "ops", "smp_mb", "smp_rmb", "smp_wmb", "dma_wmb", "dma_rmb", "wmb", "rmb", "mb", "__iomb",
	"atomic_set_release", "atomic_fetch_add", "atomic_fetch_inc", "atomic_fetch_andnot",
	"atomic_dec_return", "atomic_add_return", "atomic_long_xor", "atomic64_fetch_add",
	"atomic64_fetch_and", "atomic64_fetch_andnot", "atomic64_add_return", "cmpxchg",
	"atomic_cmpxchg", "atomic64_cmpxchg", "atomic64_try_cmpxchg", "atomic_long_cmpxchg", "smp_cond_load",
	"atomic_cond_read", "atomic_long_cond_read", "atomic64_cond_read", "readl", "writel",
	"cpu_relax", "wfe", "udelay", "local_irq_save", "local_irq_restore", "spin_lock",
	"spin_lock_wait", "spin_unlock", "cpu_to_le64", "READ_ONCE", "WRITE_ONCE", "atomic_read",
	"atomic_long_read", "atomic64_read",
};
#define NPOINTS ((int)ARRAY_SIZE(point_names))
/* points where a thread waits for someone else: it yields there when oversubscribed */
static bool is_wait_point(const char *op)
{
	return !strcmp(op, "cpu_relax") || !strcmp(op, "udelay") || !strcmp(op, "wfe") ||
	       strstr(op, "cond_") || !strcmp(op, "spin_lock_wait");
}

static int point_id(const char *name)
{
	int i;

	for (i = 0; i < NPOINTS; i++)
		if (!strcmp(point_names[i], name))
			return i;
	return -1;
}

#define MAX_STEPS 256
#define MAX_ALT 4
static struct step {
	int thread, n, npts, free;
	int pts[MAX_ALT];
	char func[MAX_ALT][64];	/* "" or the driver function the point must be in */
	unsigned int hits;	/* arrivals of its thread at a matching point, from the start */
	char text[256];
} steps[MAX_STEPS];
static int nsteps, cur_step, sched_replayed, sched_replayed_all, sched_abandoned_at = MAX_STEPS;
static u64 step_started;

/* steps replayed so far: an abandoned step and those after it do not count */
static int sched_count(void)
{
	int c = __atomic_load_n(&cur_step, __ATOMIC_ACQUIRE);

	if (sched_abandoned_at < MAX_STEPS)
		return sched_abandoned_at;
	if (c >= nsteps)
		return sched_replayed_all || !nsteps || !steps[nsteps - 1].free ? nsteps : nsteps - 1;
	return c;
}

static bool step_matches(const struct step *st, int id, const char *func)
{
	int i;

	for (i = 0; i < st->npts; i++)
		if (st->pts[i] == id && (!st->func[i][0] || (func && !strcmp(st->func[i], func))))
			return true;
	return false;
}

static void sched_wait(struct hthread *t, const char *op, const char *func)
{
	int id = point_id(op), s, k;
	bool here[MAX_STEPS];

	if (id < 0)
		return;
	/* count this arrival for every step of this thread it matches */
	for (k = 0; k < nsteps; k++) {
		here[k] = !steps[k].free && steps[k].thread == t->id && step_matches(&steps[k], id, func);
		if (here[k])
			steps[k].hits++;
	}
	for (;;) {
		s = __atomic_load_n(&cur_step, __ATOMIC_ACQUIRE);
		if (s >= nsteps)
			return;
		if (steps[s].free) {
			/* from here on every thread runs as the OS schedules it */
			if (cfg.verbose)
				printf("schedule: step %d: free\n", s + 1);
			if (__atomic_compare_exchange_n(&cur_step, &s, nsteps, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
				sched_replayed_all = 1;
			return;
		}
		if (steps[s].thread == t->id) {
			if (here[s] && steps[s].hits == (unsigned int)steps[s].n) {
				if (cfg.verbose)
					printf("schedule: step %d done: %s\n", s + 1, steps[s].text);
				here[s] = false;
				__atomic_store_n(&step_started, now_ns(), __ATOMIC_RELAXED);
				__atomic_store_n(&cur_step, s + 1, __ATOMIC_RELEASE);
				goto next;
			}
			/* a step that cannot be reached on this variant's path */
			if (now_ns() - __atomic_load_n(&step_started, __ATOMIC_RELAXED) > 1000000000ULL) {
				printf("schedule: step %d (%s) not reached in 1 s: thread %d waits at %s in %s (%s); "
				       "this variant does not take that path. The rest runs free.\n",
				       s + 1, steps[s].text, t->id, op, func, t->what);
				sched_abandoned_at = s;
				__atomic_store_n(&cur_step, nsteps, __ATOMIC_RELEASE);
			}
			return;
		}
next:
		sched_yield();
	}
}

static void parse_schedule(const char *path)
{
	char line[256], w1[64], w2[64], w3[64], w4[64], *p;
	FILE *f = fopen(path, "r");
	int lineno = 0, n, t, i;

	if (!f) {
		fprintf(stderr, "cmdq-harness: cannot read the schedule %s: %s\n", path, strerror(errno));
		exit(2);
	}
#define SCHED_ERR(...) do { fprintf(stderr, "cmdq-harness: %s:%d: ", path, lineno); \
	fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); exit(2); } while (0)
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		p = strchr(line, '#');
		if (p)
			*p = 0;
		n = sscanf(line, "%63s %63s %63s %63s", w1, w2, w3, w4);
		if (n <= 0)
			continue;
		if (!strcmp(w1, "threads") && n == 2)
			cfg.threads = atoi(w2);
		else if (!strcmp(w1, "cpus") && n == 2)
			cfg.cpus = atoi(w2);
		else if (!strcmp(w1, "shift") && n == 2)
			cfg.shift = atoi(w2);
		else if (!strcmp(w1, "work") && n == 4) {
			t = atoi(w2);
			if (t < 0 || t >= cfg.threads)
				SCHED_ERR("work names thread %d, but the schedule has threads 0..%d", t, cfg.threads - 1);
			if (strcmp(w3, "sync") && strcmp(w3, "batch"))
				SCHED_ERR("work kind '%s' is neither sync nor batch", w3);
			thr[t].work = strcmp(w3, "sync") ? W_BATCH : W_SYNC;
			thr[t].work_n = atoi(w4);
			if (thr[t].work_n < 1)
				SCHED_ERR("work needs a command count of at least 1");
		} else if (!strcmp(w1, "free") && n == 1) {
			steps[nsteps].free = 1;
			snprintf(steps[nsteps++].text, sizeof(steps[0].text), "free");
		} else if (!strcmp(w1, "run") && n >= 4) {
			struct step *s = &steps[nsteps];

			if (nsteps && steps[nsteps - 1].free)
				SCHED_ERR("a step after 'free': free must be the last step");
			char pts[200], cnt[16], alts[200];

			if (nsteps == MAX_STEPS)
				SCHED_ERR("more than %d steps", MAX_STEPS);
			if (sscanf(line, " run %d until %199s %15s", &t, pts, cnt) != 3)
				SCHED_ERR("expected 'run T until POINT[|POINT...] N'");
			if (t < 0 || t >= cfg.threads)
				SCHED_ERR("run names thread %d, but the schedule has threads 0..%d", t, cfg.threads - 1);
			s->thread = t;
			s->n = atoi(cnt);
			if (s->n < 1)
				SCHED_ERR("the count must be at least 1");
			snprintf(alts, sizeof(alts), "%s", pts);
			for (p = strtok(pts, "|"); p; p = strtok(NULL, "|")) {
				char *at = strchr(p, '@');

				if (s->npts == MAX_ALT)
					SCHED_ERR("at most %d alternatives", MAX_ALT);
				s->func[s->npts][0] = 0;
				if (at) {
					*at = 0;
					snprintf(s->func[s->npts], sizeof(s->func[0]), "%s", at + 1);
				}
				i = point_id(p);
				if (i < 0) {
					fprintf(stderr, "cmdq-harness: %s:%d: there is no point '%s'. Points:", path, lineno, p);
					for (i = 0; i < NPOINTS; i++)
						fprintf(stderr, " %s", point_names[i]);
					fputc('\n', stderr);
					exit(2);
				}
				s->pts[s->npts++] = i;
			}
			snprintf(s->text, sizeof(s->text), "thread %d until its %s #%d", t, alts, s->n);
			nsteps++;
		} else {
			SCHED_ERR("cannot read '%s'", strtok(line, "\n"));
		}
	}
	fclose(f);
	for (i = 0; i < nsteps; i++)
		if (!steps[i].free && steps[i].thread >= cfg.threads)
			SCHED_ERR("a step names thread %d, beyond threads %d", steps[i].thread, cfg.threads);
#undef SCHED_ERR
}

/* --- the GERROR handler, as arm_smmu_gerror_handler() runs it for a CMDQ error --- */
static void gerror_handler(void)
{
	__arm_smmu_cmdq_skip_err(&smmu, &smmu.cmdq);
	/* GERRORN: acknowledge, the SMMU resumes */
	__atomic_store_n(&gerror_pending, 0, __ATOMIC_RELEASE);
}

static void maybe_irq(struct hthread *t)
{
	if (t->id != cfg.irq_cpu || t->irqs_off || t->in_handler)
		return;
	if (!__atomic_load_n(&gerror_pending, __ATOMIC_ACQUIRE))
		return;
	t->in_handler = 1;
	__atomic_store_n(&t->irqs_off, t->irqs_off + 1, __ATOMIC_RELAXED);
	gerror_handler();
	__atomic_store_n(&t->irqs_off, t->irqs_off - 1, __ATOMIC_RELAXED);
	t->in_handler = 0;
}

void harness_point(const char *op, const char *func, const char *what)
{
	struct hthread *t = self;
	u64 r;

	if (!t)
		return;
	__atomic_store_n(&t->op, op, __ATOMIC_RELAXED);
	__atomic_store_n(&t->func, func, __ATOMIC_RELAXED);
	__atomic_store_n(&t->what, what, __ATOMIC_RELAXED);
	if (t->id < 0)
		return;
	t->points++;
	if (nsteps)
		sched_wait(t, op, func);
	if (cfg.delay_permille && !t->in_handler) {
		r = rnd(&t->rng);
		if (r % 1000 < (u64)cfg.delay_permille) {
			if ((r >> 20) & 1)
				sched_yield();
			else
				spin_ns((r >> 32) % cfg.delay_max_ns);
		}
	}
	/* a waiter gives its CPU away now and then when the CPUs are shared */
	if (crowded && is_wait_point(op) && ++t->spins % 64 == 0)
		sched_yield();
	maybe_irq(t);
}

void harness_stat(enum harness_stat s)
{
	if (self)
		self->stat[s]++;
}

unsigned long harness_irq_save(const char *func)
{
	unsigned long flags = self ? self->irqs_off : 0;

#ifndef HARNESS_CLEAN
	harness_point("local_irq_save", func, "");
#else
	(void)func;
#endif
	if (self)
		__atomic_store_n(&self->irqs_off, 1, __ATOMIC_RELAXED);
	return flags;
}

void harness_irq_restore(unsigned long flags, const char *func)
{
	if (self)
		__atomic_store_n(&self->irqs_off, (int)flags, __ATOMIC_RELAXED);
#ifndef HARNESS_CLEAN
	harness_point("local_irq_restore", func, "");
#else
	(void)func;
	if (self)
		maybe_irq(self);
#endif
}

/*
 * udelay() in queue_poll()'s backoff, which doubles the delay every ten
 * polls. With a host CPU per thread it spins for the time asked. When
 * threads outnumber host CPUs it is one yield: a waiter that is
 * descheduled would otherwise grow its backoff to seconds while the CPU it
 * waits for cannot run, holding up everyone behind it (a stall of this
 * host, not of the driver).
 */
void harness_udelay(unsigned long us, const char *func)
{
	u64 end = now_ns() + us * 1000;

#ifdef HARNESS_SIM
	harness_point("udelay", func, "queue_poll() backing off");
	sim_wait(SIM_W_DELAY, us * 1000, "udelay");
	(void)end;
	return;
#endif
	if (oversubscribed) {
		harness_point("udelay", func, "queue_poll() backing off");
		sched_yield();
		return;
	}
	do {
		harness_point("udelay", func, "queue_poll() backing off");
		sched_yield();
	} while (now_ns() < end);
}

/* --- the fake SMMU --- */
#if HARNESS_HAS_GATHER
/* the lists of the gathering open now, in whichever layout the variant has */
#if defined(CMDQ_GATHER_LISTS)
#define HARNESS_GATHERED(w) FIELD_GET(CMDQ_GATHER_LISTS, (w))
#else
#define HARNESS_GATHERED(w) FIELD_GET(CMDQ_GATHER_CPUS, (w))
#endif
#endif

static void *smmu_thread(void *arg)
{
	struct arm_smmu_queue *q = &smmu.cmdq.q;
	struct arm_smmu_ll_queue llq = { .max_n_shift = cfg.shift };
	u64 rng = cfg.seed * 0x9E3779B97F4A7C15ULL + 7, d0, d1;
	u32 prod, cons = 0, op, t, mask = (2U << cfg.shift) - 1, errbits = 0, lt = 0, lpos = 0, lrem = 0;
	u64 seq, ll = 0;
	bool lsync = false, bad_prod = false, was_full, completed;
	__le64 *ent;
	int i;

	(void)arg;
	for (;;) {
#if HARNESS_HAS_GATHER
		n_gather_looks++;
		if (HARNESS_GATHERED((u64)__atomic_load_n(&smmu.cmdq.gather.counter, __ATOMIC_RELAXED)) > 1)
			n_gathered++;
#endif
		prod = __atomic_load_n(&reg_prod, __ATOMIC_ACQUIRE);
		if (!bad_prod && ((prod & ~mask) || ((prod - cons) & mask) > (1U << cfg.shift))) {
			failure("PROD 0x%x: %s (CONS 0x%x)", prod, (prod & ~mask) ? "bits set above the wrap bit" :
				"more than a queue ahead of CONS, or moved back behind it", cons);
			bad_prod = true;
		}
		if ((prod & mask) == cons) {
			if (__atomic_load_n(&smmu_stop, __ATOMIC_ACQUIRE))
				break;
#ifdef HARNESS_SIM
			/* idle until a CPU writes PROD */
			sim_park_on(&reg_prod, 10000);
#else
			sched_yield();
#endif
			continue;
		}
		was_full = ((prod - cons) & mask) == (1U << cfg.shift);
		llq.prod = cons;
		ent = Q_ENT(q, cons);
		/* the SMMU's read of the entry: a snoop of the line the CPU wrote */
		SIMA(SIM_LOAD, ent, "smmu: read an entry");
		d0 = __atomic_load_n(&ent[0], __ATOMIC_RELAXED);
		d1 = __atomic_load_n(&ent[1], __ATOMIC_RELAXED);
		op = FIELD_GET(CMDQ_0_OP, d0);
		if (d1 == POISON) {
			failure("slot %u (cons 0x%x) consumed before it was written: it still holds the previous command",
				Q_IDX(&llq, cons), cons);
			op = ~0U;	/* nothing more to check in it */
		}
		/*
		 * Mark the slot consumed before completing anything: once a
		 * CMD_SYNC completes, its CPU may reuse the slots before it.
		 */
		if (!(cfg.error_rate > 0 && op == CMDQ_OP_TLBI_NH_VA))
			__atomic_store_n(&ent[1], POISON, __ATOMIC_RELAXED);
		completed = op == CMDQ_OP_CMD_SYNC;
		if (op == CMDQ_OP_CMD_SYNC) {
			if (lrem)
				failure("slot %u: a CMD_SYNC inside thread %u's list %llu", Q_IDX(&llq, cons), lt,
					(unsigned long long)ll);
			lrem = 0;
			lsync = false;
			if (cfg.sync_ns)
				spin_ns(cfg.sync_ns);
			/* everything before it is complete */
			for (i = 0; i < cfg.threads; i++)
				__atomic_store_n(&chk[i].done, __atomic_load_n(&chk[i].next, __ATOMIC_RELAXED),
						 __ATOMIC_RELEASE);
			if (FIELD_GET(CMDQ_SYNC_0_CS, d0) == CMDQ_SYNC_0_CS_IRQ) {
				u32 *msi = (u32 *)(uintptr_t)(d1 & CMDQ_SYNC_1_MSIADDR_MASK);

				if (msi != (u32 *)ent && !msi_word(msi))
					failure("CMD_SYNC at slot %u has MSI address %p, neither its own slot %p nor a CPU's MSI word",
						Q_IDX(&llq, cons), (void *)msi, (void *)ent);
				else {
					SIMA(SIM_STORE, msi, "smmu: MSI write");
					/* MSIDATA: 0 where the MSI goes to the slot, as mainline has it */
					__atomic_store_n(msi, (u32)FIELD_GET(CMDQ_SYNC_0_MSIDATA, d0), __ATOMIC_RELEASE);
#ifdef HARNESS_SIM
					/* CONS may follow the MSI lazily (IHI 0070 6.3.28): a window */
					if (sim_cons_lag)
						sim_advance(sim_cons_lag);
#endif
				}
			}
			__atomic_fetch_add(&n_sync_checked, 1, __ATOMIC_RELAXED);
		} else if (op == CMDQ_OP_TLBI_NH_VA) {
			t = FIELD_GET(H_THREAD, d0);
			seq = d1 >> 12;
			/* a list stays contiguous, and a CMD_SYNC follows it when asked */
			if (lrem) {
				if (t != lt || FIELD_GET(H_LIST, d0) != ll || FIELD_GET(H_POS, d0) != lpos)
					failure("slot %u: thread %u's list %llu was interleaved: it holds thread %u's list %llu, command %u of it",
						Q_IDX(&llq, cons), lt, (unsigned long long)ll, t,
						(unsigned long long)FIELD_GET(H_LIST, d0), (unsigned int)FIELD_GET(H_POS, d0));
				lrem--;
				lpos++;
			} else {
				if (lsync)
					failure("slot %u: thread %u's list %llu is not followed by its CMD_SYNC",
						Q_IDX(&llq, cons), lt, (unsigned long long)ll);
				if (FIELD_GET(H_POS, d0))
					failure("slot %u: thread %u's list %llu starts at its command %u",
						Q_IDX(&llq, cons), t, (unsigned long long)FIELD_GET(H_LIST, d0),
						(unsigned int)FIELD_GET(H_POS, d0));
				lt = t;
				ll = FIELD_GET(H_LIST, d0);
				lpos = FIELD_GET(H_POS, d0) + 1;
				lrem = FIELD_GET(H_LEN, d0) > lpos ? FIELD_GET(H_LEN, d0) - lpos : 0;
				lsync = false;
			}
			if (!lrem)
				lsync = d0 & H_SYNC;
			if (t >= (u32)cfg.threads) {
				failure("slot %u holds a command of thread %u, which does not exist", Q_IDX(&llq, cons), t);
			} else {
				u64 want = __atomic_load_n(&chk[t].next, __ATOMIC_RELAXED);

				if (seq < want)
					failure("thread %u's command %llu consumed again, or out of order (after %llu), at slot %u",
						t, (unsigned long long)seq, (unsigned long long)want - 1, Q_IDX(&llq, cons));
				else if (seq > want)
					failure("thread %u's command %llu consumed, but %llu..%llu were skipped (slot %u)",
						t, (unsigned long long)seq, (unsigned long long)want,
						(unsigned long long)seq - 1, Q_IDX(&llq, cons));
				if (seq >= want)
					__atomic_store_n(&chk[t].next, seq + 1, __ATOMIC_RELEASE);
			}
			__atomic_fetch_add(&n_checked, 1, __ATOMIC_RELAXED);
			if (cfg.cmd_ns)
				spin_ns(cfg.cmd_ns);
			if (cfg.error_rate > 0 && (double)(rnd(&rng) >> 11) / (double)(1ULL << 53) < cfg.error_rate) {
				/* CERROR_ILL: stop at this command, raise GERROR, wait for the handler */
				__atomic_fetch_add(&n_errors_injected, 1, __ATOMIC_RELAXED);
				/* the error code stays in CONS.ERR, as the hardware keeps it, until the next error */
				errbits = FIELD_PREP(CMDQ_CONS_ERR, CMDQ_ERR_CERROR_ILL_IDX);
				__atomic_store_n(&reg_cons, cons | errbits, __ATOMIC_RELEASE);
				__atomic_store_n(&gerror_pending, 1, __ATOMIC_RELEASE);
				while (__atomic_load_n(&gerror_pending, __ATOMIC_ACQUIRE)) {
					if (__atomic_load_n(&smmu_stop, __ATOMIC_ACQUIRE) == 2)
						return NULL;
					sched_yield();
				}
				/* the handler turned the command into a CMD_SYNC: fetch it again */
				d0 = __atomic_load_n(&ent[0], __ATOMIC_RELAXED);
				if (FIELD_GET(CMDQ_0_OP, d0) != CMDQ_OP_CMD_SYNC)
					failure("after CERROR_ILL at slot %u the handler left op 0x%x there, not a CMD_SYNC",
						Q_IDX(&llq, cons), (unsigned int)FIELD_GET(CMDQ_0_OP, d0));
			}
			if (cfg.error_rate > 0)
				__atomic_store_n(&ent[1], POISON, __ATOMIC_RELAXED);
		} else if (op != ~0U) {
			failure("slot %u holds an unknown command, op 0x%x", Q_IDX(&llq, cons), op);
		}
		llq.prod = cons;
		cons = queue_inc_prod_n(&llq, 1) & mask;
		/* CONS moves at the SMMU's time, not before: earlier agents run first */
		SIM_SYNC();
		__atomic_store_n(&reg_cons, cons | errbits, __ATOMIC_RELEASE);
#ifdef HARNESS_SIM
		/* CONS is the SMMU's own register: its pollers see the write; SEV on a CMD_SYNC or room again */
		sim_touch(&reg_cons);
		if (sim_sev_on && (completed || was_full))
			sim_sev();
#else
		(void)was_full;
		(void)completed;
#endif
		__atomic_fetch_add(&progress, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *irq_thread(void *arg)
{
	(void)arg;
	self = &irq_thr;
	while (!__atomic_load_n(&all_done, __ATOMIC_ACQUIRE)) {
		if (__atomic_load_n(&gerror_pending, __ATOMIC_ACQUIRE))
			gerror_handler();
		else
			IDLE_POLL();
	}
	return NULL;
}

/* --- the issuing CPUs --- */
static unsigned int batch_limit(void)
{
#ifdef HARNESS_HAS_BATCH_MAX
	return smmu.cmdq.batch_max;
#else
	return CMDQ_BATCH_ENTRIES;
#endif
}

static struct arm_smmu_cmd make_cmd(struct hthread *t, u64 list, int pos, int len, bool sync)
{
	struct arm_smmu_cmd c = arm_smmu_make_cmd_op(CMDQ_OP_TLBI_NH_VA);

	c.data[0] |= FIELD_PREP(H_THREAD, t->id) | FIELD_PREP(H_LIST, list) | FIELD_PREP(H_POS, pos) |
		     FIELD_PREP(H_LEN, len) | (sync ? H_SYNC : 0);
	/* the watchdog reads these counts, so they are stored atomically */
	c.data[1] = t->seq_next << 12;
	__atomic_store_n(&t->seq_next, t->seq_next + 1, __ATOMIC_RELAXED);
	t->cmds++;
	return c;
}

static void after_sync(struct hthread *t, int ret)
{
	u64 done;

	t->syncs++;
	/*
	 * Counted with the driver's message: an oversubscribed host can
	 * starve the fake SMMU past the driver's timeout, and a GERROR
	 * handler on an issuing CPU (--irq-cpu) runs only once that CPU
	 * stops spinning with interrupts off, which for a CMD_SYNC wait
	 * is when it times out: the driver's own way to recover.
	 */
	if (ret == -ETIMEDOUT && (oversubscribed || cfg.irq_cpu >= 0))
		return;
	if (ret) {
		failure("thread %d: a CMD_SYNC returned %d", t->id, ret);
		return;
	}
	done = __atomic_load_n(&chk[t->id].done, __ATOMIC_ACQUIRE);
	if (done < t->seq_next)
		failure("thread %d: a CMD_SYNC returned before its command %llu was completed (the SMMU has completed up to %llu)",
			t->id, (unsigned long long)t->seq_next - 1, (unsigned long long)done);
}

static void op_list(struct hthread *t, int n, bool sync)
{
	struct arm_smmu_cmd cmds[CMDQ_BATCH_ENTRIES];
	int i, ret;

	u64 t0;

	for (i = 0; i < n; i++)
		cmds[i] = make_cmd(t, t->lists, i, n, sync);
	t->lists++;
	t0 = now_ns();
	ret = arm_smmu_cmdq_issue_cmdlist(&smmu, &smmu.cmdq, cmds, n, sync);
	if (sync) {
		t->sync_ns += now_ns() - t0;
		t->sync_n++;
	} else {
		t->nosync_ns += now_ns() - t0;
		t->nosync_n++;
	}
	if (sync)
		after_sync(t, ret);
	else if (ret)
		failure("thread %d: a list of %d commands returned %d", t->id, n, ret);
}

static void op_batch(struct hthread *t, int n)
{
	struct arm_smmu_cmdq_batch batch;
	struct arm_smmu_cmd c;
	int i;

	u64 t0;
	int ret;

	/*
	 * The batch helpers issue a full batch without a CMD_SYNC whenever
	 * the next command does not fit, and the rest with one on submit.
	 */
	int blim = batch_limit(), last = (n - 1) / blim, l;

	c = arm_smmu_make_cmd_op(CMDQ_OP_TLBI_NH_VA);
	arm_smmu_cmdq_batch_init_cmd(&smmu, &batch, &c);
	for (i = 0; i < n; i++) {
		l = i / blim;
		c = make_cmd(t, t->lists + l, i % blim, l == last ? n - last * blim : blim, l == last);
		arm_smmu_cmdq_batch_add_cmd_p(&smmu, &batch, &c);
	}
	t->lists += last + 1;
	t0 = now_ns();
	ret = arm_smmu_cmdq_batch_submit(&smmu, &batch);
	t->sync_ns += now_ns() - t0;
	t->sync_n++;
	after_sync(t, ret);
}

static void *cpu_thread(void *arg)
{
	struct hthread *t = arg;
	unsigned int blim = batch_limit();
	u64 r;

	self = t;
	__atomic_store_n(&t->last_return, now_ns(), __ATOMIC_RELAXED);
	HP("start", "");
	while (!__atomic_load_n(&run_stop, __ATOMIC_ACQUIRE)) {
		switch (t->work) {
		case W_SYNC:
			op_list(t, t->work_n, true);
			break;
		case W_BATCH:
			op_list(t, t->work_n, false);
			break;
		default:
			if (cfg.work_unmap) {
				/*
				 * A dma_map + dma_unmap pair: the IOVA and page-table
				 * work (other_ns), and the unmap's TLBI + CMD_SYNC; in
				 * lazy mode one flush (TLBI + CMD_SYNC) per lazy unmaps.
				 */
				if (cfg.burst > 1) {
					/*
					 * The 2020 harness's loop: burst maps, then
					 * their unmaps; the rest of a pair (other_ns)
					 * is split evenly between its map and its unmap.
					 */
					unsigned int k;

					for (k = 0; k < cfg.burst; k++)
						spin_ns(cfg.other_ns / 2);
					for (k = 0; k < cfg.burst; k++) {
						spin_ns(cfg.other_ns - cfg.other_ns / 2);
						if (!cfg.lazy || t->ops % cfg.lazy == cfg.lazy - 1)
							op_batch(t, 1);
						/* each pair counts as it completes (the rate is taken at t1) */
						if (k + 1 < cfg.burst)
							__atomic_store_n(&t->ops, t->ops + 1, __ATOMIC_RELAXED);
					}
					break;
				}
				spin_ns(cfg.other_ns);
				if (!cfg.lazy || t->ops % cfg.lazy == cfg.lazy - 1)
					op_batch(t, 1);
				break;
			}
			r = rnd(&t->rng) % 8;
			if (r < 4)		/* an unmap: TLBI + CMD_SYNC */
				op_batch(t, 1);
			else if (r < 6)		/* a full non-sync batch */
				op_list(t, blim, false);
			else			/* a large invalidation, over several batches */
				op_batch(t, 1 + rnd(&t->rng) % (3 * blim));
		}
		__atomic_store_n(&t->ops, t->ops + 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&progress, 1, __ATOMIC_RELAXED);
		__atomic_store_n(&t->last_return, now_ns(), __ATOMIC_RELAXED);
		HP("ops", "");
	}
	__atomic_store_n(&t->finished, 1, __ATOMIC_RELEASE);
	/*
	 * A CPU waiting for room refreshes cons only under the exclusive lock
	 * or from a CMD_SYNC; if every other CPU went quiet while it polled, it
	 * would wait for its 1 s timeout (a property of the driver, noted in
	 * MAINTAINERS-notes.md). Until every CPU has finished, the finished
	 * ones go on issuing a bare CMD_SYNC now and then, as a live system
	 * does.
	 */
	__atomic_fetch_add(&cpus_done, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&cpus_done, __ATOMIC_ACQUIRE) < cfg.threads) {
		op_list(t, 0, true);
		usleep(1000);
	}
	__atomic_store_n(&t->quiet, 1, __ATOMIC_RELEASE);
	/* the CPU that takes GERROR keeps taking it until the queue is drained */
	while (t->id == cfg.irq_cpu && !__atomic_load_n(&all_done, __ATOMIC_ACQUIRE)) {
		maybe_irq(t);
		sched_yield();
	}
	return NULL;
}

/* --- the watchdog --- */
static void dump_state(const char *why)
{
	struct arm_smmu_cmdq *cmdq = &smmu.cmdq;
	int i;

	printf("WATCHDOG: %s\n", why);
	for (i = 0; i < cfg.threads; i++)
		printf("  cpu %d: at %s in %s (%s), interrupts %s, %llu lists done, %llu commands issued\n", i,
		       __atomic_load_n(&thr[i].op, __ATOMIC_RELAXED) ?: "-",
		       __atomic_load_n(&thr[i].func, __ATOMIC_RELAXED) ?: "-",
		       __atomic_load_n(&thr[i].what, __ATOMIC_RELAXED) ?: "-",
		       __atomic_load_n(&thr[i].irqs_off, __ATOMIC_RELAXED) ? "off" : "on",
		       (unsigned long long)__atomic_load_n(&thr[i].ops, __ATOMIC_RELAXED),
		       (unsigned long long)__atomic_load_n(&thr[i].seq_next, __ATOMIC_RELAXED));
	if (cfg.irq_cpu < 0)
		printf("  irq thread: at %s in %s\n", __atomic_load_n(&irq_thr.op, __ATOMIC_RELAXED) ?: "-",
		       __atomic_load_n(&irq_thr.func, __ATOMIC_RELAXED) ?: "-");
	printf("  smmu: PROD 0x%x CONS 0x%x, GERROR %s\n", __atomic_load_n(&reg_prod, __ATOMIC_RELAXED),
	       __atomic_load_n(&reg_cons, __ATOMIC_RELAXED),
	       __atomic_load_n(&gerror_pending, __ATOMIC_RELAXED) ? "pending" : "clear");
	printf("  cmdq: llq.prod 0x%x llq.cons 0x%x owner_prod 0x%x lock %d",
	       __atomic_load_n(&cmdq->q.llq.prod, __ATOMIC_RELAXED), __atomic_load_n(&cmdq->q.llq.cons, __ATOMIC_RELAXED),
	       atomic_read(&cmdq->owner_prod), atomic_read(&cmdq->lock));
#ifdef HARNESS_HAS_GATHER
	printf(" gather 0x%016llx", (unsigned long long)atomic64_read(&cmdq->gather));
#endif
#ifdef HARNESS_HAS_BATCH_MAX
	printf(" batch_max %u", cmdq->batch_max);
#endif
	printf("\n  variant %s, seed %llu%s%s, %d threads, %d possible CPUs, queue 2^%d\n", cfg.variant, cfg.seed,
	       cfg.schedule ? ", schedule " : "", cfg.schedule ?: "", cfg.threads, cfg.cpus, cfg.shift);
	if (nsteps)
		printf("  schedule: %d of %d steps replayed\n", sched_count(), nsteps);
	fflush(stdout);
#ifdef HARNESS_SIM
	sim_report_now();
#endif
}

static void *watchdog_thread(void *arg)
{
	u64 last = ~0ULL, since = now_ns(), p, limit = (u64)(cfg.watchdog_s * 1e9), now, lr;
	char why[128];
	int i;

	(void)arg;
	while (!__atomic_load_n(&all_done, __ATOMIC_ACQUIRE)) {
		usleep(20000);
		/* one CPU stuck while the others go on is a failure too */
		for (i = 0; i < cfg.threads && !cfg.feed; i++) {
			lr = __atomic_load_n(&thr[i].last_return, __ATOMIC_RELAXED);
			now = now_ns();	/* read after lr: a return just now is not in the future */
			if (!__atomic_load_n(&thr[i].finished, __ATOMIC_ACQUIRE) && lr && now > lr && now - lr > limit) {
				snprintf(why, sizeof(why), "cpu %d has not returned from a call for %.1f s", i, cfg.watchdog_s);
				dump_state(why);
				_exit(3);
			}
		}
		p = __atomic_load_n(&progress, __ATOMIC_RELAXED);
		if (p != last) {
			last = p;
			since = now_ns();
		} else if (now_ns() - since > max_stall_ns) {
			max_stall_ns = now_ns() - since;
		}
		if (p == last && now_ns() - since > limit) {
			snprintf(why, sizeof(why), "no command consumed and no call returned for %.1f s", cfg.watchdog_s);
			dump_state(why);
			_exit(3);
		}
	}
	return NULL;
}

/* --- feeding the fake SMMU directly: the checker's own fixture --- */
static void feed(const char *list)
{
	struct arm_smmu_ll_queue llq = { .max_n_shift = cfg.shift };
	char *s = strdup(list), *tok;
	u32 prod = 0;
	unsigned int t, lid, pos, len;
	unsigned long long seq;
	char sync;
	__le64 *ent;
	int k;

	for (tok = strtok(s, " ,"); tok; tok = strtok(NULL, " ,")) {
		if (!strcmp(tok, "-")) {	/* a slot published but never written */
			llq.prod = prod;
			prod = queue_inc_prod_n(&llq, 1);
			continue;
		}
		llq.prod = prod;
		ent = Q_ENT(&smmu.cmdq.q, prod);
		if (!strcmp(tok, "S")) {	/* a CMD_SYNC, completed by CONS */
			struct arm_smmu_cmd c = arm_smmu_make_cmd_sync(CMDQ_SYNC_0_CS_SEV, 0);

			ent[0] = c.data[0];
			ent[1] = c.data[1];
			prod = queue_inc_prod_n(&llq, 1);
			continue;
		}
		lid = 0;
		pos = 0;
		len = 1;
		sync = 0;
		k = sscanf(tok, "%u:%llu@%u.%u/%u%c", &t, &seq, &lid, &pos, &len, &sync);
		if ((k != 2 && k != 5 && k != 6) || (k == 6 && sync != 's') || t >= (unsigned int)cfg.threads) {
			fprintf(stderr, "cmdq-harness: --feed wants THREAD:SEQ[@LIST.POS/LEN[s]] items, S or -, with THREAD < %d, not '%s'\n",
				cfg.threads, tok);
			exit(2);
		}
		ent[0] = FIELD_PREP(CMDQ_0_OP, CMDQ_OP_TLBI_NH_VA) | FIELD_PREP(H_THREAD, t) | FIELD_PREP(H_LEN, len) |
			 FIELD_PREP(H_LIST, lid) | FIELD_PREP(H_POS, pos) | (sync == 's' ? H_SYNC : 0);
		ent[1] = (u64)seq << 12;
		if (seq + 1 > thr[t].seq_next)
			thr[t].seq_next = seq + 1;
		prod = queue_inc_prod_n(&llq, 1);
	}
	free(s);
	__atomic_store_n(&reg_prod, prod, __ATOMIC_RELEASE);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: cmdq-harness [options]\n"
		"  --variant NAME     name printed in reports\n"
		"  --threads N        issuing CPUs (1..%d)\n"
		"  --cpus N           num_possible_cpus() the driver sees (default: threads)\n"
		"  --shift S          queue of 2^S entries (7..19)\n"
		"  --seconds X        how long to issue\n"
		"  --seed N           seed of the injected delays and errors\n"
		"  --delay P          inject a delay at P per mille of the points (0..1000)\n"
		"  --delay-max-ns N   longest injected spin\n"
		"  --errors R         CERROR_ILL on a fraction R of the commands (0..0.1)\n"
		"  --irq-cpu N        the GERROR handler runs on CPU N (-1: a thread of its own)\n"
		"  --msi 0|1          CMD_SYNC completion by MSI write (1) or by CONS (0)\n"
		"  --cmd-ns N, --sync-ns N   the fake SMMU's cost per command and per CMD_SYNC\n"
		"  --watchdog S       fail when nothing moves for S seconds\n"
		"  --time-scale N     the driver's clock runs N times slower than the wall\n"
		"                     (default 1; 100 when threads outnumber host CPUs)\n"
		"  --schedule FILE    replay an interleaving\n"
		"  --feed LIST        put THREAD:SEQ[@LIST.POS/LEN[s]] commands in the queue directly,\n"
		"                     S for a CMD_SYNC, - for a slot left unwritten, and publish\n"
		"                     them (the checker's own test)\n"
		"  --work mix|unmap   what a CPU issues: the mix (unmaps, batches, large\n"
		"                     invalidations; the default), or map+unmap pairs\n"
		"  --other-ns N       --work unmap: the rest of a map+unmap (IOVA, page tables)\n"
		"  --lazy N           --work unmap: one TLBI + CMD_SYNC per N pairs (the flush\n"
		"                     queue), not one per unmap (strict; 0, the default)\n"
		"  --burst N          --work unmap: N maps, then their N unmaps (1, the default:\n"
		"                     a map and its unmap in turn)\n"
#ifdef HARNESS_SIM
		"  --sim-profile=FILE, --sim-set=KEY=VALUE, --sim-report=FILE   the simulation's\n"
		"                     (tools/native/sim/sim.c); --seconds are virtual\n"
#endif
		"  --verbose\n", MAX_THREADS);
	exit(2);
}

static long num_arg(const char *name, const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == 0 || *end || v < lo || v > hi) {
		fprintf(stderr, "cmdq-harness: %s: '%s' is not a whole number from %ld to %ld\n", name, s, lo, hi);
		exit(2);
	}
	return v;
}

static double dbl_arg(const char *name, const char *s, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);

	if (*s == 0 || *end || v < lo || v > hi) {
		fprintf(stderr, "cmdq-harness: %s: '%s' is not a number from %g to %g\n", name, s, lo, hi);
		exit(2);
	}
	return v;
}

/* the shortest run: a virtual millisecond is thousands of calls */
#ifdef HARNESS_SIM
#define MIN_SECONDS 0.001
#else
#define MIN_SECONDS 0.01
#endif

/* threads: OS threads, or the simulation's agents */
struct spawned {
	void *(*fn)(void *);
	void *arg;
};
#ifdef HARNESS_SIM
static void sim_start(void *p)
{
	struct spawned *sp = p;

	sp->fn(sp->arg);
}
#endif

/* kinds of thread: an issuing CPU (0), the SMMU, the harness's own */
#ifdef HARNESS_SIM
#define SIM_DEV_KIND SIM_AGENT_DEV
#define SIM_FREE_KIND SIM_AGENT_FREE
#else
#define SIM_DEV_KIND 1
#define SIM_FREE_KIND 2
#endif

static void spawn(pthread_t *tid, int *agent, void *(*fn)(void *), void *arg, int kind, int cpu, const char *name)
{
#ifdef HARNESS_SIM
	struct spawned *sp = malloc(sizeof(*sp));

	sp->fn = fn;
	sp->arg = arg;
	*agent = sim_spawn(sim_start, sp, kind, cpu, name);
	(void)tid;
#else
	cpu_set_t set;

	(void)agent;
	(void)name;
	if (pthread_create(tid, NULL, fn, arg)) {
		perror("cmdq-harness: pthread_create");
		exit(2);
	}
	if (kind == 0 && cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(cpu % host_cpus, &set);
		pthread_setaffinity_np(*tid, sizeof(set), &set);
	}
#endif
}

static void join(pthread_t tid, int agent)
{
#ifdef HARNESS_SIM
	(void)tid;
	while (!sim_finished(agent))
		sim_sleep(100000);
#else
	(void)agent;
	pthread_join(tid, NULL);
#endif
}

#ifdef HARNESS_SIM
static int harness_main(int argc, char **argv)
#else
int main(int argc, char **argv)
#endif
{
	static const struct option opts[] = {
		{ "variant", 1, 0, 'V' }, { "threads", 1, 0, 't' }, { "cpus", 1, 0, 'c' },
		{ "shift", 1, 0, 's' }, { "seconds", 1, 0, 'S' }, { "seed", 1, 0, 'r' },
		{ "delay", 1, 0, 'd' }, { "delay-max-ns", 1, 0, 'D' }, { "errors", 1, 0, 'e' },
		{ "irq-cpu", 1, 0, 'i' }, { "msi", 1, 0, 'm' }, { "cmd-ns", 1, 0, 'C' },
		{ "sync-ns", 1, 0, 'Y' }, { "watchdog", 1, 0, 'w' }, { "schedule", 1, 0, 'k' },
		{ "feed", 1, 0, 'f' }, { "verbose", 0, 0, 'v' }, { "time-scale", 1, 0, 'T' },
		{ "work", 1, 0, 'W' }, { "other-ns", 1, 0, 'O' }, { "lazy", 1, 0, 'L' }, { "burst", 1, 0, 'B' },
		{ 0, 0, 0, 0 },
	};
	pthread_t smmu_tid = 0, wd_tid = 0, irq_tid = 0;
	int smmu_agent = -1, wd_agent = -1, irq_agent = -1;
	u64 t0 = 0, t1 = 1, cmds = 0, ops = 0, st[ST_NR] = { 0 }, sns = 0, sn = 0, nns = 0, nn = 0, points = 0;
	u64 ops_t1 = 0, cmds_t1 = 0;	/* what was done by t1: the rates */
	int c, i, ncpu, ret;
	size_t qbytes;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'V': cfg.variant = optarg; break;
		case 't': cfg.threads = num_arg("--threads", optarg, 1, MAX_THREADS); break;
		case 'c': cfg.cpus = num_arg("--cpus", optarg, 1, 65536); break;
		case 's': cfg.shift = num_arg("--shift", optarg, 7, 19); break;
		case 'S': cfg.seconds = dbl_arg("--seconds", optarg, MIN_SECONDS, 3600); break;
		case 'r': cfg.seed = num_arg("--seed", optarg, 0, LONG_MAX); break;
		case 'd': cfg.delay_permille = num_arg("--delay", optarg, 0, 1000); break;
		case 'D': cfg.delay_max_ns = num_arg("--delay-max-ns", optarg, 1, 100000000); break;
		case 'e': cfg.error_rate = dbl_arg("--errors", optarg, 0, 0.1); break;
		case 'i': cfg.irq_cpu = num_arg("--irq-cpu", optarg, -1, MAX_THREADS - 1); break;
		case 'm': cfg.msi = num_arg("--msi", optarg, 0, 1); break;
		case 'C': cfg.cmd_ns = num_arg("--cmd-ns", optarg, 0, 100000000); break;
		case 'Y': cfg.sync_ns = num_arg("--sync-ns", optarg, 0, 100000000); break;
		case 'w': cfg.watchdog_s = dbl_arg("--watchdog", optarg, 0.1, 3600); break;
		case 'k': cfg.schedule = optarg; break;
		case 'f': cfg.feed = optarg; break;
		case 'v': cfg.verbose = 1; break;
		case 'T': cfg.time_scale = num_arg("--time-scale", optarg, 1, 1000000); break;
		case 'W':
			if (strcmp(optarg, "mix") && strcmp(optarg, "unmap")) {
				fprintf(stderr, "cmdq-harness: --work: '%s' is neither mix nor unmap\n", optarg);
				exit(2);
			}
			cfg.work_unmap = !strcmp(optarg, "unmap");
			break;
		case 'O': cfg.other_ns = num_arg("--other-ns", optarg, 0, 100000000); break;
		case 'L': cfg.lazy = num_arg("--lazy", optarg, 0, 1000000); break;
		case 'B': cfg.burst = num_arg("--burst", optarg, 1, 100000); break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	if (cfg.schedule)
		parse_schedule(cfg.schedule);
	if (cfg.threads < 1 || cfg.threads > MAX_THREADS || cfg.shift < 7 || cfg.shift > 19) {
		fprintf(stderr, "cmdq-harness: threads must be 1..%d and the queue shift 7..19\n", MAX_THREADS);
		exit(2);
	}
	if (!cfg.cpus)
		cfg.cpus = cfg.threads;
	if (cfg.cpus < cfg.threads) {
		fprintf(stderr, "cmdq-harness: --cpus %d is fewer than the %d issuing threads\n", cfg.cpus, cfg.threads);
		exit(2);
	}
	if (cfg.irq_cpu >= cfg.threads) {
		fprintf(stderr, "cmdq-harness: --irq-cpu %d: there are only CPUs 0..%d\n", cfg.irq_cpu, cfg.threads - 1);
		exit(2);
	}

	/* the queue and the device, as arm_smmu_init_one_queue() and probe leave them */
	smmu.dev = &smmu_dev;
#ifdef HARNESS_SIM
	/* the machine's SMMU: its costs, and whether it raises SEV (then the driver waits in WFE) */
	if (!cfg.cmd_ns)
		cfg.cmd_ns = (unsigned int)sim_param("t_cmd");
	if (!cfg.sync_ns)
		cfg.sync_ns = (unsigned int)sim_param("t_sync");
	if (cfg.work_unmap && !cfg.other_ns)
		cfg.other_ns = (unsigned int)sim_param("t_other");
	sim_sev_on = sim_param("smmu_sev") != 0;
	sim_cons_lag = (u64)sim_param("t_cons_lag");
#ifdef ARM_SMMU_FEAT_SEV
	if (sim_sev_on)
		smmu.features |= ARM_SMMU_FEAT_SEV;
#endif
	if (cfg.threads > sim_cpus()) {
		fprintf(stderr, "cmdq-harness: --threads %d: the machine profile has %d CPUs\n", cfg.threads, sim_cpus());
		exit(2);
	}
#endif
	smmu.options = cfg.msi ? ARM_SMMU_OPT_MSIPOLL : 0;
	smmu.cmdq.q.llq.max_n_shift = cfg.shift;
	smmu.cmdq.q.ent_dwords = CMDQ_ENT_DWORDS;
	qbytes = ((size_t)1 << cfg.shift) * CMDQ_ENT_DWORDS * 8;
	smmu.cmdq.q.base = aligned_alloc(4096, (qbytes + 4095) & ~(size_t)4095);
	if (!smmu.cmdq.q.base) {
		perror("cmdq-harness: queue");
		exit(2);
	}
	for (i = 0; i < (1 << cfg.shift); i++) {
		smmu.cmdq.q.base[2 * i] = 0;
		smmu.cmdq.q.base[2 * i + 1] = POISON;
	}
	smmu.cmdq.q.base_dma = (dma_addr_t)(uintptr_t)smmu.cmdq.q.base;
	smmu.cmdq.q.prod_reg = &reg_prod;
	smmu.cmdq.q.cons_reg = &reg_cons;
	ret = arm_smmu_cmdq_init(&smmu, &smmu.cmdq);
	if (ret) {
		printf("REFUSED variant=%s threads=%d cpus=%d shift=%d: arm_smmu_cmdq_init() returned %d\n",
		       cfg.variant, cfg.threads, cfg.cpus, cfg.shift, ret);
		return 2;
	}
	n_dev_err = 0;

#ifdef HARNESS_SIM
	/* every virtual CPU has a core of its own: nothing is oversubscribed */
	ncpu = host_cpus = sim_cpus();
	(void)ncpu;
	sim_name(&smmu.cmdq.q.llq, sizeof(smmu.cmdq.q.llq), "cmdq->q.llq");
#ifdef HARNESS_HAS_SYNC_MSI
	if (smmu.cmdq.sync_msi)
		sim_name(smmu.cmdq.sync_msi, (size_t)cfg.cpus * SMP_CACHE_BYTES, "CPUs' MSI words");
#endif
	sim_name(&smmu.cmdq.owner_prod, sizeof(smmu.cmdq.owner_prod), "cmdq->owner_prod");
	sim_name(&smmu.cmdq.lock, sizeof(smmu.cmdq.lock), "cmdq->lock");
	sim_name(&smmu.cmdq.valid_map, sizeof(smmu.cmdq.valid_map), "cmdq->valid_map");
	sim_name(smmu.cmdq.valid_map, ((size_t)1 << cfg.shift) / 8, "valid map words");
#ifdef HARNESS_HAS_GATHER
	sim_name(&smmu.cmdq.gather, sizeof(smmu.cmdq.gather), "cmdq->gather");
#endif
#ifdef HARNESS_HAS_RETRY_LOCK
	sim_name(&smmu.cmdq.bench_retry_lock, sizeof(smmu.cmdq.bench_retry_lock), "cmdq->bench_retry_lock");
#endif
	sim_name(smmu.cmdq.q.base, qbytes, "queue entries");
	sim_name(&reg_prod, sizeof(reg_prod), "PROD register");
	sim_name(&reg_cons, sizeof(reg_cons), "CONS register");
	sim_name(thr, sizeof(thr), "CPUs' own (MCS nodes, stack)");
	oversubscribed = crowded = false;
	if (!cfg.time_scale)
		cfg.time_scale = 1;
#else
	ncpu = host_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
	oversubscribed = cfg.threads + 1 > ncpu;
	crowded = cfg.threads + 2 > ncpu;
	if (!cfg.time_scale)
		cfg.time_scale = oversubscribed ? 100 : 1;
#endif
	spawn(&smmu_tid, &smmu_agent, smmu_thread, NULL, SIM_DEV_KIND, -1, "smmu");
	spawn(&wd_tid, &wd_agent, watchdog_thread, NULL, SIM_FREE_KIND, -1, "watchdog");
	if (cfg.feed) {
		feed(cfg.feed);
		goto drain;
	}
	if (cfg.irq_cpu < 0)
		spawn(&irq_tid, &irq_agent, irq_thread, NULL, SIM_FREE_KIND, -1, "irq");
	step_started = now_ns();
	t0 = now_ns();
	for (i = 0; i < cfg.threads; i++) {
		thr[i].id = i;
		thr[i].rng = (cfg.seed + 1) * 0x9E3779B97F4A7C15ULL ^ (u64)(i + 1) * 0xBF58476D1CE4E5B9ULL;
		spawn(&thr[i].tid, &thr[i].agent, cpu_thread, &thr[i], 0, i, "cpu");
	}
	usleep((useconds_t)(cfg.seconds * 1e6));
	__atomic_store_n(&run_stop, 1, __ATOMIC_RELEASE);
	t1 = now_ns();
	/* the work done by t1; what the threads finish after it is checked, not counted */
	for (i = 0; i < cfg.threads; i++) {
		ops_t1 += __atomic_load_n(&thr[i].ops, __ATOMIC_RELAXED);
		cmds_t1 += __atomic_load_n(&thr[i].seq_next, __ATOMIC_RELAXED);
	}
	/* a schedule that holds threads must let them go to end */
	sched_replayed = sched_count();
	__atomic_store_n(&cur_step, nsteps, __ATOMIC_RELEASE);
	for (i = 0; i < cfg.threads; i++)
		if (i != cfg.irq_cpu)
			join(thr[i].tid, thr[i].agent);
	/*
	 * The CPU that takes GERROR is joined last, as it serves the SMMU's
	 * errors while the queue drains; but the queue can be judged drained
	 * only once that CPU issues nothing more. Alone (one thread), or
	 * inside its last closing CMD_SYNC, it may still be publishing when
	 * CONS meets PROD: stopping the SMMU then left it waiting for room
	 * that never came, with the watchdog gone (seen once in 24 runs of
	 * make stress-short, series, 1 thread, seed 15).
	 */
	if (cfg.irq_cpu >= 0)
		while (!__atomic_load_n(&thr[cfg.irq_cpu].quiet, __ATOMIC_ACQUIRE))
			usleep(1000);
drain:
	/* every published command is consumed before the SMMU stops */
	while ((__atomic_load_n(&reg_cons, __ATOMIC_ACQUIRE) & ((2U << cfg.shift) - 1)) !=
	       (__atomic_load_n(&reg_prod, __ATOMIC_ACQUIRE) & ((2U << cfg.shift) - 1)))
		usleep(1000);
	__atomic_store_n(&smmu_stop, 1, __ATOMIC_RELEASE);
	join(smmu_tid, smmu_agent);
	__atomic_store_n(&all_done, 1, __ATOMIC_RELEASE);
	join(wd_tid, wd_agent);
	if (cfg.irq_cpu < 0 && !cfg.feed)
		join(irq_tid, irq_agent);
	if (cfg.irq_cpu >= 0 && !cfg.feed)
		join(thr[cfg.irq_cpu].tid, thr[cfg.irq_cpu].agent);

	for (i = 0; i < cfg.threads; i++) {
		if (chk[i].next != thr[i].seq_next)
			failure("thread %d issued %llu commands, the SMMU consumed up to %llu", i,
				(unsigned long long)thr[i].seq_next, (unsigned long long)chk[i].next);
		cmds += thr[i].cmds;
		ops += thr[i].ops;
		points += thr[i].points;
		sns += thr[i].sync_ns;
		sn += thr[i].sync_n;
		nns += thr[i].nosync_ns;
		nn += thr[i].nosync_n;
		for (c = 0; c < ST_NR; c++)
			st[c] += thr[i].stat[c];
	}
	if (cfg.feed) {
		printf("RESULT variant=%s feed checks=%llu failures=%llu\n", cfg.variant,
		       (unsigned long long)n_checked, (unsigned long long)n_failures);
		return n_failures ? 1 : 0;
	}
	if (nsteps)
		printf("schedule: %d of %d steps replayed\n", sched_replayed, nsteps);
	printf("RESULT variant=%s threads=%d cpus=%d shift=%d msi=%d errors=%g seed=%llu seconds=%.3f "
	       "lists=%llu cmds=%llu cmds_per_s=%.0f cmds_per_s_per_thread=%.0f syncs_checked=%llu "
	       "cmds_checked=%llu errors_injected=%llu cmpxchg=%llu cmpxchg_fail=%llu trylock=%llu trylock_fail=%llu locks=%llu "
	       "dev_err=%llu timeouts=%llu oversubscribed=%d time_scale=%u max_stall_ms=%.1f watchdog_s=%.1f sync_issue_ns=%.0f "
	       "nosync_issue_ns=%.0f gather_looks=%llu gathered=%llu work=%s other_ns=%u lazy=%u burst=%u ops_per_s_per_cpu=%.0f points_per_cmd=%.1f "
	       "clock=%s failures=%llu\n",
	       cfg.variant, cfg.threads, cfg.cpus, cfg.shift, cfg.msi, cfg.error_rate, cfg.seed,
	       (t1 - t0) / 1e9, (unsigned long long)ops, (unsigned long long)cmds,
	       cmds_t1 / ((t1 - t0) / 1e9), cmds_t1 / ((t1 - t0) / 1e9) / cfg.threads,
	       (unsigned long long)n_sync_checked, (unsigned long long)n_checked,
	       (unsigned long long)n_errors_injected, (unsigned long long)st[ST_CMPXCHG],
	       (unsigned long long)st[ST_CMPXCHG_FAIL], (unsigned long long)st[ST_TRYLOCK],
	       (unsigned long long)st[ST_TRYLOCK_FAIL], (unsigned long long)st[ST_LOCK],
	       (unsigned long long)n_dev_err, (unsigned long long)n_timeouts, oversubscribed, cfg.time_scale, max_stall_ns / 1e6, cfg.watchdog_s, sn ? (double)sns / sn : 0.0,
	       nn ? (double)nns / nn : 0.0, (unsigned long long)n_gather_looks, (unsigned long long)n_gathered,
	       cfg.work_unmap ? "unmap" : "mix", cfg.other_ns, cfg.lazy, cfg.burst ? cfg.burst : 1,
	       ops_t1 / ((t1 - t0) / 1e9) / cfg.threads, cmds ? (double)points / cmds : 0.0,
#ifdef HARNESS_SIM
	       "virtual",
#elif defined(HARNESS_CLEAN)
	       "wall-clean",
#else
	       "wall-points",
#endif
	       (unsigned long long)n_failures);
	return n_failures ? 1 : 0;
}

#ifdef HARNESS_SIM
int main(int argc, char **argv)
{
	return sim_main(argc, argv, harness_main);
}
#endif
