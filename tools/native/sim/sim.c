// SPDX-License-Identifier: GPL-2.0
/*
 * The simulation core (sim.h says what it models). One OS thread runs
 * every agent as a coroutine: each has its own stack, made once with
 * makecontext(), and agents switch with _setjmp()/_longjmp(), which save
 * no signal mask (swapcontext() would make a system call per switch).
 *
 * Profile file: "key = value" lines, '#' starts a comment (the value's
 * source, written beside it). Keys:
 *   name                   the machine
 *   cpus                   CPUs in the machine
 *   level NAME = N         a level of the topology, innermost first: N
 *                          consecutive CPUs share it (cluster = 4, die = 24)
 *   t_xfer.NAME            a line moved between two agents whose innermost
 *   t_xfer.machine         shared level is NAME (one per level), or that
 *                          share none (machine)
 *   t_hit                  a load or store that hits the requester's cache
 *   t_rmw                  an atomic on a line the requester holds alone
 *   t_mem                  a line that no cache holds, from its home memory
 *   t_fence                a barrier
 *   t_mmio, t_mmio_w       a device register read (non-posted), write
 *   t_repoll               longest park without a write (time-based exits)
 *   atomics = near|far     where an RMW runs: in the requester's cache, or
 *                          at the line's home (the SMMU's die), moving no line
 *   t_far                  far only: the home's occupancy per atomic
 *   home_order = fifo|random  which of the requests waiting for a line
 *                          (transfers and far atomics) goes next (queue_at())
 *   home_cpu               the CPU beside whose memory the driver's data
 *                          and the SMMU sit (the SMMU's NUMA node)
 *   smmu_level             the innermost level the SMMU shares with home_cpu
 *   placement = fill|spread  threads fill CPUs 0, 1, 2...; or spread
 *   t_cmd, t_sync, t_other, smmu_sev, smmu_msi, queue_shift: read by the
 *                          harness through sim_param()
 * --sim-set KEY=VALUE overrides a value (the fit, the sensitivity table).
 * --sim-issuers-free: the CPUs' accesses, fences and register writes cost
 * 1 ns each (ISSUER_FLOOR_NS) and the SMMU's as ever (predict.py's limit:
 * the SMMU alone). A register read is a round trip to the SMMU and keeps
 * its cost, and so does a turn of a wait loop with nothing to wait on. At
 * no cost at all, CPUs that poll CONS, or wake each other with failed
 * cmpxchg()s, would run at one instant and stop virtual time.
 *
 * sim-2 changed from sim-1 (results/2026-12-03-sim1-diagnosis): the SMMU's
 * DMA is pipelined (it no longer waits for each line it reads, or for its
 * MSI write); home_order; --sim-issuers-free.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "sim.h"

#define SIM_VERSION "sim-2"
#define MAX_AGENTS 300
#define MAX_LEVELS 6
#define STACK_BYTES (256 * 1024)
#define WATCH 8
#define LINE_SHIFT 6
#define NWORDS ((MAX_AGENTS + 63) / 64)

typedef uint64_t u64;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("sim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* --- the profile --- */
#define MAX_KEYS 128
static struct {
	char key[48];
	char val[64];
	int used, set;	/* read by the run; given by --sim-set */
} kv[MAX_KEYS];
static int nkv;
static const char *profile_path;
static char profile_name[64];
static int ncpus, nlevels, home_cpu, smmu_level, far_atomics, spread, home_random;
static int level_size[MAX_LEVELS];
static char level_name[MAX_LEVELS][24];
/* cost by distance class: 0 the same agent (a hit), 1..nlevels the level shared, nlevels+1 none */
static double t_class[MAX_LEVELS + 2];
static double t_hit, t_rmw, t_mem, t_fence, t_mmio, t_mmio_w, t_repoll, t_far, xfer_scale = 1;
/* --sim-issuers-free: the CPUs' accesses cost the floor, the SMMU's as ever (the SMMU's own limit) */
static int issuers_free;
/*
 * under --sim-issuers-free a CPU's access costs this floor, not nothing:
 * CPUs that wake each other (a failed cmpxchg() on a watched line) or poll
 * in a loop would otherwise run at one instant, and virtual time would stop
 */
#define ISSUER_FLOOR_NS 1
struct agent;
static u64 cost_of(const struct agent *a, double t);

static int kv_find(const char *key)
{
	int i;

	for (i = 0; i < nkv; i++)
		if (!strcmp(kv[i].key, key))
			return i;
	return -1;
}

static void kv_put(const char *key, const char *val, int set, const char *where)
{
	int i = kv_find(key);

	if (i < 0) {
		if (nkv == MAX_KEYS)
			die("%s: more than %d values", where, MAX_KEYS);
		i = nkv++;
		snprintf(kv[i].key, sizeof(kv[i].key), "%s", key);
	} else if (!set && !kv[i].set) {
		die("%s: %s is given twice", where, key);
	}
	if (kv[i].set && !set)
		return;	/* --sim-set wins over the file */
	snprintf(kv[i].val, sizeof(kv[i].val), "%s", val);
	kv[i].set = set;
}

static const char *kv_str(const char *key)
{
	int i = kv_find(key);

	if (i < 0)
		die("the profile %s lacks a value for '%s'", profile_path, key);
	kv[i].used = 1;
	return kv[i].val;
}

static double kv_num(const char *key)
{
	const char *s = kv_str(key);
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v >= 0) || v > 1e12)
		die("the profile %s: %s = '%s' is not a number from 0 to 1e12", profile_path, key, s);
	return v;
}

double sim_param(const char *key)
{
	return kv_num(key);
}

int sim_cpus(void)
{
	return ncpus;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r'))
		*--e = 0;
	return s;
}

static void load_profile(const char *path)
{
	char line[512], where[600], *p, *eq, *k, *v, key[48];
	FILE *f = fopen(path, "r");
	int lineno = 0, i, last = 1;

	if (!f)
		die("cannot read the profile %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		snprintf(where, sizeof(where), "%s:%d", path, lineno);
		p = strchr(line, '#');
		if (p)
			*p = 0;
		p = trim(line);
		if (!*p)
			continue;
		eq = strchr(p, '=');
		if (!eq)
			die("%s: expected 'key = value', not '%s'", where, p);
		*eq = 0;
		k = trim(p);
		v = trim(eq + 1);
		if (!*v)
			die("%s: %s has no value", where, k);
		if (!strncmp(k, "level ", 6)) {
			if (nlevels == MAX_LEVELS)
				die("%s: more than %d levels", where, MAX_LEVELS);
			snprintf(level_name[nlevels], sizeof(level_name[0]), "%s", trim(k + 6));
			level_size[nlevels] = atoi(v);
			if (level_size[nlevels] < last || level_size[nlevels] % last)
				die("%s: level %s = %s: each level holds a whole number of the level inside it (%d CPUs)",
				    where, level_name[nlevels], v, last);
			last = level_size[nlevels++];
			continue;
		}
		snprintf(key, sizeof(key), "%s", k);
		kv_put(key, v, 0, where);
	}
	fclose(f);
	snprintf(profile_name, sizeof(profile_name), "%s", kv_str("name"));
	ncpus = (int)kv_num("cpus");
	if (ncpus < 1 || ncpus > MAX_AGENTS - 8)
		die("the profile %s: cpus = %d: from 1 to %d", path, ncpus, MAX_AGENTS - 8);
	if (!nlevels)
		die("the profile %s defines no 'level NAME = N' (the topology)", path);
	if (ncpus % level_size[nlevels - 1])
		die("the profile %s: cpus = %d is not a whole number of its outermost level %s (%d)", path, ncpus,
		    level_name[nlevels - 1], level_size[nlevels - 1]);
	t_class[0] = 0;
	for (i = 0; i < nlevels; i++) {
		snprintf(key, sizeof(key), "t_xfer.%s", level_name[i]);
		t_class[i + 1] = kv_num(key);
	}
	t_class[nlevels + 1] = kv_num("t_xfer.machine");
	{
		double scale = kv_num("xfer_scale");

		for (i = 1; i <= nlevels + 1; i++)
			t_class[i] *= scale;
		xfer_scale = scale;
	}
	/* any t_xfer.X that names no level is an error */
	for (i = 0; i < nkv; i++) {
		int l, ok = 0;

		if (strncmp(kv[i].key, "t_xfer.", 7))
			continue;
		if (!strcmp(kv[i].key + 7, "machine"))
			continue;
		for (l = 0; l < nlevels; l++)
			ok |= !strcmp(kv[i].key + 7, level_name[l]);
		if (!ok)
			die("the profile %s: %s names a distance it does not define (levels:%s%s%s%s)", path,
			    kv[i].key, nlevels > 0 ? " " : "", level_name[0], nlevels > 1 ? " ..." : "", "");
	}
	t_hit = kv_num("t_hit");
	t_rmw = kv_num("t_rmw");
	t_mem = kv_num("t_mem");
	t_fence = kv_num("t_fence");
	t_mmio = kv_num("t_mmio");
	t_mmio_w = kv_num("t_mmio_w");
	t_repoll = kv_num("t_repoll");
	if (t_repoll < 1)
		die("the profile %s: t_repoll must be at least 1 ns", path);
	home_cpu = (int)kv_num("home_cpu");
	if (home_cpu >= ncpus)
		die("the profile %s: home_cpu = %d, but the CPUs are 0..%d", path, home_cpu, ncpus - 1);
	{
		const char *s = kv_str("smmu_level"), *a = kv_str("atomics"), *pl = kv_str("placement");

		smmu_level = -1;
		for (i = 0; i < nlevels; i++)
			if (!strcmp(s, level_name[i]))
				smmu_level = i;
		if (smmu_level < 0)
			die("the profile %s: smmu_level = %s names a distance it does not define", path, s);
		if (!strcmp(a, "far"))
			far_atomics = 1;
		else if (strcmp(a, "near"))
			die("the profile %s: atomics = %s: near or far", path, a);
		t_far = kv_num("t_far") * xfer_scale;	/* the interconnect's, scaled with it */
		{
			const char *o = kv_str("home_order");

			if (!strcmp(o, "random"))
				home_random = 1;
			else if (strcmp(o, "fifo"))
				die("the profile %s: home_order = %s: fifo or random", path, o);
		}
		if (!strcmp(pl, "spread"))
			spread = 1;
		else if (strcmp(pl, "fill"))
			die("the profile %s: placement = %s: fill or spread", path, pl);
	}
}

/* --- agents --- */
struct line;
struct agent {
	int id, kind, cpu;	/* cpu: the profile CPU it runs on (the SMMU: home_cpu) */
	const char *name;
	u64 clock;
	int heap_pos;		/* -1: not in the heap (parked without a deadline, or finished) */
	int parked, wfe, finished;
	jmp_buf ctx;
	ucontext_t uc;
	void *stack;
	void (*fn)(void *);
	void *arg;
	void *slot;
	struct wnode {
		struct line *l;
		u64 seq;	/* the access count when it was loaded */
		struct agent *a;
		struct wnode *prev, *next;	/* on l's waiters while parked */
	} watch[WATCH];
	int nwatch;
	u64 park_start, work_ns, wait_ns;
};
static struct agent agents[MAX_AGENTS];

/* the harness's own agents cost nothing; the CPUs under --sim-issuers-free the floor */
static u64 cost_of(const struct agent *a, double t)
{
	if (a->kind == SIM_AGENT_FREE)
		return 0;
	if (issuers_free && a->kind == SIM_AGENT_CPU)
		return ISSUER_FLOOR_NS;
	return (u64)t;
}

static int nagents, nlive;
static struct agent *cur;
static jmp_buf sched_ctx;
static ucontext_t sched_uc;

/* the run queue: a binary heap of agents by (clock, id) */
static struct agent *heap[MAX_AGENTS];
static int nheap;

/*
 * Ties in virtual time go by a hash of the instant and the agent, not by
 * the id alone, which would always favour the low CPUs (those nearest the
 * home under placement = fill). Still a function of the run's inputs.
 */
static uint64_t tie(const struct agent *a)
{
	uint64_t x = a->clock * 0x9E3779B97F4A7C15ULL ^ (uint64_t)(a->id + 1) * 0xBF58476D1CE4E5B9ULL;

	x ^= x >> 31;
	x *= 0x94D049BB133111EBULL;
	return x ^ (x >> 29);
}

static bool before(const struct agent *a, const struct agent *b)
{
	uint64_t ta, tb;

	if (a->clock != b->clock)
		return a->clock < b->clock;
	ta = tie(a);
	tb = tie(b);
	return ta < tb || (ta == tb && a->id < b->id);
}

static void heap_set(int i, struct agent *a)
{
	heap[i] = a;
	a->heap_pos = i;
}

static void sift_up(int i)
{
	struct agent *a = heap[i];

	while (i > 0 && before(a, heap[(i - 1) / 2])) {
		heap_set(i, heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(i, a);
}

static void sift_down(int i)
{
	struct agent *a = heap[i];
	int c;

	for (;;) {
		c = 2 * i + 1;
		if (c >= nheap)
			break;
		if (c + 1 < nheap && before(heap[c + 1], heap[c]))
			c++;
		if (!before(heap[c], a))
			break;
		heap_set(i, heap[c]);
		i = c;
	}
	heap_set(i, a);
}

static void heap_add(struct agent *a)
{
	heap_set(nheap++, a);
	sift_up(nheap - 1);
}

static void heap_del(struct agent *a)
{
	int i = a->heap_pos;
	struct agent *last;

	if (i < 0)
		return;
	last = heap[--nheap];
	a->heap_pos = -1;
	if (last == a)
		return;
	heap_set(i, last);
	sift_up(i);
	sift_down(last->heap_pos);
}

static void heap_fix(struct agent *a)
{
	sift_up(a->heap_pos);
	sift_down(a->heap_pos);
}

/* run the agent at the top of the heap (it may be the caller) */
static void switch_to_next(void)
{
	struct agent *next;

	if (!nheap) {
		if (nlive)
			die("every agent waits and none has a deadline: a deadlock of the simulation itself");
		_longjmp(sched_ctx, 1);
	}
	next = heap[0];
	if (next == cur)
		return;
	if (cur && !cur->finished && _setjmp(cur->ctx))
		return;	/* resumed */
	cur = next;
	_longjmp(cur->ctx, 1);
}

/* after the running agent's clock moved: let an earlier one run */
static void reschedule(void)
{
	if (cur->heap_pos >= 0)
		sift_down(cur->heap_pos);
	if (heap[0] != cur)
		switch_to_next();
}

static void trampoline(void)
{
	struct agent *a = cur;

	/* the first switch comes back to the spawner; later ones run the agent */
	if (!_setjmp(a->ctx))
		setcontext(&sched_uc);
	a->fn(a->arg);
	a->finished = 1;
	nlive--;
	heap_del(a);
	switch_to_next();
	abort();
}

static int place(int n)
{
	/* spread: one CPU per outermost unit in turn (socket 0, socket 1, ...) */
	int units, per;

	if (!spread)
		return n;
	per = level_size[nlevels - 1];
	units = ncpus / per;
	return (n % units) * per + (n / units) % per;
}

static int ncpu_agents;

int sim_spawn(void (*fn)(void *), void *arg, int kind, int cpu, const char *name)
{
	struct agent *a, *me = cur;

	if (nagents == MAX_AGENTS)
		die("more than %d agents", MAX_AGENTS);
	a = &agents[nagents];
	memset(a, 0, sizeof(*a));
	a->id = nagents++;
	a->kind = kind;
	a->name = name;
	a->fn = fn;
	a->arg = arg;
	a->clock = me ? me->clock : 0;
	if (kind == SIM_AGENT_CPU) {
		if (cpu < 0)
			cpu = ncpu_agents;
		if (cpu >= ncpus)
			die("thread %d needs CPU %d, but the profile %s has %d CPUs", ncpu_agents, cpu, profile_name, ncpus);
		a->cpu = place(cpu);
		ncpu_agents++;
	} else {
		a->cpu = home_cpu;
	}
	a->stack = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (a->stack == MAP_FAILED)
		die("no memory for an agent's stack");
	getcontext(&a->uc);
	a->uc.uc_stack.ss_sp = a->stack;
	a->uc.uc_stack.ss_size = STACK_BYTES;
	a->uc.uc_link = NULL;
	makecontext(&a->uc, trampoline, 0);
	cur = a;
	swapcontext(&sched_uc, &a->uc);	/* trampoline saves a->ctx and comes back */
	cur = me;
	nlive++;
	heap_add(a);
	return a->id;
}

int sim_finished(int id)
{
	return agents[id].finished;
}

void **sim_slot(void)
{
	return &cur->slot;
}

int sim_agent_id(void)
{
	return cur ? cur->id : -1;
}

u64 sim_now(void)
{
	return cur ? cur->clock : 0;
}

/* --- the contention profile --- */
#define MAX_NAMES 64
static struct region {
	uintptr_t lo, hi;
	const char *name;
} regions[MAX_NAMES];
static int nregions;

void sim_name(const void *addr, size_t bytes, const char *name)
{
	if (nregions == MAX_NAMES)
		die("more than %d named regions", MAX_NAMES);
	regions[nregions].lo = (uintptr_t)addr;
	regions[nregions].hi = (uintptr_t)addr + bytes;
	regions[nregions++].name = name;
}

/* the fields a line holds, "+"-joined in address order ("cmdq->owner_prod+cmdq->lock") */
static const char *region_of(uintptr_t a)
{
	static char names[MAX_NAMES * 2][160];
	static int nnames;
	char buf[160] = "";
	int i, j, n = 0;
	uintptr_t hi = a + (1 << LINE_SHIFT);
	int order[MAX_NAMES];

	for (i = 0; i < nregions; i++)
		if (regions[i].lo < hi && regions[i].hi > a)
			order[n++] = i;
	/* address order; a region inside another (a field in its struct) is named alone */
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (regions[order[j]].lo < regions[order[i]].lo) {
				int t = order[i];

				order[i] = order[j];
				order[j] = t;
			}
	for (i = 0; i < n; i++) {
		size_t len = strlen(buf);

		snprintf(buf + len, sizeof(buf) - len, "%s%s", len ? "+" : "", regions[order[i]].name);
	}
	if (!n)
		return "(unnamed)";
	for (i = 0; i < nnames; i++)
		if (!strcmp(names[i], buf))
			return names[i];
	if (nnames == MAX_NAMES * 2)
		return "(many)";
	snprintf(names[nnames], sizeof(names[0]), "%s", buf);
	return names[nnames++];
}

#define MAX_OPS 64
static struct opstat {
	const char *op;
	u64 ns, n;
} ops[MAX_OPS];
static int nops;

static void op_charge(const char *op, u64 ns)
{
	int i;

	for (i = 0; i < nops; i++)
		if (ops[i].op == op || !strcmp(ops[i].op, op))
			break;
	if (i == nops) {
		if (nops == MAX_OPS)
			return;
		ops[nops++].op = op;
	}
	ops[i].ns += ns;
	ops[i].n++;
}

/* --- cache lines --- */
struct line {
	uintptr_t tag;		/* address >> LINE_SHIFT, 0: free */
	int owner;		/* the agent holding it exclusively, -1 none */
	u64 sharers[NWORDS];
	u64 busy_until, write_seq, other_seq;	/* the last write; the last by another than writer */
	int writer, cached;
	u64 ns, xfers, accesses;	/* the profile: requesters' time on it, transfers */
	u64 held;		/* the profile: the time the home held it for transactions */
	struct wnode *waiters;	/* the parked agents that loaded it */
};
static u64 seq;	/* accesses so far: orders the accesses of one instant */
#define LINES (1 << 20)
static struct line *lines;
static u64 nlines_used;

static struct line *line_of(const void *addr)
{
	uintptr_t tag = ((uintptr_t)addr >> LINE_SHIFT) | ((uintptr_t)1 << 62);
	u64 h = (tag * 0x9E3779B97F4A7C15ULL) >> 44;
	struct line *l;

	for (;;) {
		l = &lines[h & (LINES - 1)];
		if (l->tag == tag)
			return l;
		if (!l->tag) {
			if (++nlines_used > LINES / 2)
				die("more than %d lines touched", LINES / 2);
			l->tag = tag;
			l->owner = -1;
			l->writer = -1;
			return l;
		}
		h++;
	}
}

static int level_of_cpus(int a, int b)
{
	int i;

	if (a == b)
		return 0;
	for (i = 0; i < nlevels; i++)
		if (a / level_size[i] == b / level_size[i])
			return i + 1;
	return nlevels + 1;
}

/* the distance class between two agents */
static int dist(const struct agent *a, const struct agent *b)
{
	int d;

	if (a == b)
		return 0;
	d = level_of_cpus(a->cpu, b->cpu);
	/* the SMMU is not a core: it shares at most smmu_level with home_cpu's CPUs */
	if ((a->kind == SIM_AGENT_DEV || b->kind == SIM_AGENT_DEV) && d < smmu_level + 1)
		d = smmu_level + 1;
	if (d == 0)
		d = 1;	/* two agents on one CPU (not placed so by the harness) */
	return d;
}

static int dist_home(const struct agent *a)
{
	int d = level_of_cpus(a->cpu, home_cpu);

	if (a->kind == SIM_AGENT_DEV && d < smmu_level + 1)
		d = smmu_level + 1;
	return d ? d : 1;
}

static bool is_sharer(const struct line *l, int id)
{
	return l->sharers[id / 64] & (1ULL << (id % 64));
}

/* the farthest holder of l other than a, or -1 */
static int farthest_holder(const struct line *l, const struct agent *a, int *dclass)
{
	int w, b, id, best = -1, bd = -1, d;

	if (l->owner >= 0 && l->owner != a->id) {
		best = l->owner;
		bd = dist(a, &agents[best]);
	}
	for (w = 0; w < NWORDS; w++) {
		u64 m = l->sharers[w];

		while (m) {
			b = __builtin_ctzll(m);
			m &= m - 1;
			id = w * 64 + b;
			if (id == a->id)
				continue;
			d = dist(a, &agents[id]);
			if (d > bd) {
				bd = d;
				best = id;
			}
		}
	}
	*dclass = bd;
	return best;
}

static void unwatch_all(struct agent *a)
{
	int i;

	for (i = 0; i < a->nwatch; i++) {
		struct wnode *w = &a->watch[i];

		if (w->prev)
			w->prev->next = w->next;
		else if (w->l && w->l->waiters == w)
			w->l->waiters = w->next;
		if (w->next)
			w->next->prev = w->prev;
		w->prev = w->next = NULL;
	}
	a->nwatch = 0;
}

/* a parked agent resumes at t (a write, an SEV) */
static void wake(struct agent *a, u64 t)
{
	unwatch_all(a);
	a->parked = 0;
	a->wfe = 0;
	if (t < a->park_start)
		t = a->park_start;
	a->wait_ns += t - a->park_start;
	a->clock = t;
	heap_fix(a);
}

static void wake_waiters(struct line *l, u64 t)
{
	while (l->waiters)
		wake(l->waiters->a, t);
}

/*
 * A uniform draw in [0, 1) for the home's arbitration: one fixed stream for
 * the whole run, so a run is a function of its inputs; the harness's --seed
 * does not move it.
 */
static u64 rng_state = 0x243F6A8885A308D3ULL;
static double draw(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / 9007199254740992.0;
}

/*
 * A request for l that arrives at t and holds the line for occ: when it
 * starts. The requests waiting for a line (transfers and far atomics alike)
 * are granted first come, first served (home_order = fifo), or in no
 * particular order (home_order = random): the request starts at a
 * uniformly drawn point of the backlog it found. Either way the backlog
 * grows by occ, so the line does the same work.
 */
static u64 queue_at(struct line *l, u64 t, u64 occ)
{
	u64 start;

	l->held += occ;
	if (t >= l->busy_until) {
		l->busy_until = t + occ;
		return t;
	}
	start = home_random ? t + (u64)(draw() * (double)(l->busy_until - t)) : l->busy_until;
	l->busy_until += occ;
	return start;
}

/*
 * A transaction on l: it starts when queue_at() grants it, costs
 * the requester its latency, and holds the line for its occupancy: an
 * ownership transfer for its whole latency (the home blocks the line until
 * the new owner has it), a far atomic for t_far (the home executes them
 * one after another), a read of a line nobody owns not at all (the home
 * serves readers side by side).
 */
static u64 transfer(struct line *l, u64 now, double latency, double occupancy)
{
	u64 start = queue_at(l, now, (u64)(occupancy + 0.5));

	l->xfers++;
	return start - now + (u64)(latency + 0.5);
}

/* a line's first touch comes from memory; after that the home's cache has it */
static double from_home(struct line *l, const struct agent *a)
{
	double c = t_class[dist_home(a)];

	if (!l->cached) {
		l->cached = 1;
		c += t_mem;
	}
	return c;
}

static u64 access_cost(struct agent *a, struct line *l, int kind)
{
	u64 now = a->clock, c;
	int holder, d, id = a->id;
	double h;

	if (a->kind == SIM_AGENT_FREE)
		return 0;
	/*
	 * The SMMU's DMA, pipelined: it reads every command up to PROD, and
	 * writes its MSIs, without waiting for each line (a read snoops the
	 * line from its owner and leaves it there; a write invalidates every
	 * copy and leaves the line at its home). The line is held for the
	 * move, and a CPU that wants it waits; the SMMU's clock pays t_hit.
	 */
	if (a->kind == SIM_AGENT_DEV) {
		if (l->owner >= 0)
			transfer(l, now, 0, t_class[dist(a, &agents[l->owner])]);
		else
			transfer(l, now, 0, kind == SIM_LOAD ? 0 : from_home(l, a));
		if (kind != SIM_LOAD) {
			l->owner = -1;
			memset(l->sharers, 0, sizeof(l->sharers));
		}
		l->cached = 1;
		return (u64)t_hit;
	}
	if (issuers_free) {
		/* the SMMU's limit: the line moves, the CPU pays the floor */
		if (kind == SIM_LOAD) {
			if (l->owner >= 0 && l->owner != id)
				l->sharers[l->owner / 64] |= 1ULL << (l->owner % 64);
			if (l->owner != id)
				l->owner = -1;
			l->sharers[id / 64] |= 1ULL << (id % 64);
		} else {
			memset(l->sharers, 0, sizeof(l->sharers));
			l->owner = id;
		}
		l->cached = 1;
		return ISSUER_FLOOR_NS;
	}
	switch (kind) {
	case SIM_LOAD:
		if (l->owner == id || is_sharer(l, id))
			return (u64)t_hit;
		if (l->owner >= 0) {
			/* from the owner's cache: an ownership change (it keeps a shared copy) */
			d = dist(a, &agents[l->owner]);
			c = transfer(l, now, t_class[d], t_class[d]);
			l->sharers[l->owner / 64] |= 1ULL << (l->owner % 64);
			l->owner = -1;
		} else {
			c = transfer(l, now, from_home(l, a), 0);
		}
		l->cached = 1;
		l->sharers[id / 64] |= 1ULL << (id % 64);
		return c;
	case SIM_STORE:
	case SIM_RMW:
		if (kind == SIM_RMW && far_atomics) {
			/*
			 * At the home: the request travels there (half a
			 * transfer), waits while the home executes the
			 * requests before it (t_far each), is executed and its
			 * answer travels back; every cached copy is invalidated
			 * and the line stays at the home. A CPU near the home
			 * gets its answer, and its next try, in sooner.
			 *
			 * Which waiting request goes next: queue_at(). Whether
			 * a cmpxchg() succeeds is decided when it is issued
			 * (the access takes effect at its start); the
			 * arbitration decides when its answer, and so the
			 * CPU's next try, comes back. Under home_order = random
			 * the answers come back spread out, and a CPU whose
			 * answer came back early retries with the new value
			 * before the others' answers are back.
			 */
			u64 arrive, start;

			h = t_class[dist_home(a)] / 2;
			arrive = now + (u64)(h + 0.5);
			if (!l->cached) {
				l->cached = 1;
				arrive += (u64)(t_mem + 0.5);
			}
			start = queue_at(l, arrive, (u64)(t_far + 0.5));
			l->xfers++;
			c = start + (u64)(t_far + 0.5) + (u64)(h + 0.5) - now;
			l->owner = -1;
			memset(l->sharers, 0, sizeof(l->sharers));
			return c;
		}
		if (l->owner == id) {
			/* held alone: a store hits, an atomic costs t_rmw */
			return (u64)(kind == SIM_RMW ? t_rmw : t_hit);
		}
		holder = farthest_holder(l, a, &d);
		if (holder >= 0) {
			c = transfer(l, now, t_class[d], t_class[d]);
		} else if (is_sharer(l, id)) {
			c = (u64)t_hit;	/* the only sharer: an upgrade */
		} else {
			h = from_home(l, a);
			c = transfer(l, now, h, h);
		}
		l->cached = 1;
		memset(l->sharers, 0, sizeof(l->sharers));
		l->owner = id;
		if (kind == SIM_RMW)
			c += (u64)t_rmw;
		return c;
	}
	return 0;
}

static void charge(u64 c, struct line *l, const char *op)
{
	cur->clock += c;
	cur->work_ns += c;
	if (l)
		l->ns += c;
	op_charge(op, c);
}

static void watch(struct agent *a, struct line *l)
{
	int i;

	for (i = 0; i < a->nwatch; i++)
		if (a->watch[i].l == l) {
			a->watch[i].seq = seq;
			return;
		}
	if (a->nwatch < WATCH) {
		i = a->nwatch++;
	} else {
		int j;

		for (i = 0, j = 1; j < WATCH; j++)	/* replace the oldest */
			if (a->watch[j].seq < a->watch[i].seq)
				i = j;
	}
	a->watch[i].l = l;
	a->watch[i].seq = seq;
	a->watch[i].a = a;
	a->watch[i].prev = a->watch[i].next = NULL;
}

static void written(struct agent *a, struct line *l)
{
	if (l->writer != a->id) {
		l->other_seq = l->write_seq;
		l->writer = a->id;
	}
	l->write_seq = ++seq;
	if (l->waiters)
		wake_waiters(l, a->clock);
}

void sim_access(int kind, const void *addr, const char *op)
{
	struct line *l = NULL;
	u64 c;

	if (!cur)
		return;
	/*
	 * An earlier agent runs first; then this access takes effect, and
	 * the memory operation after this call too, before anyone else
	 * runs: its cost moves the clock, and the switch comes at the next
	 * point. So accesses take effect in the order of their start times.
	 */
	reschedule();
	seq++;
	switch (kind) {
	case SIM_FENCE:
		c = cost_of(cur, t_fence);
		charge(c, NULL, op);
		break;
	case SIM_MMIO_R:
		l = line_of(addr);
		l->accesses++;
		watch(cur, l);
		/* a round trip to the SMMU, even under --sim-issuers-free */
		charge(cur->kind == SIM_AGENT_FREE ? 0 : (u64)t_mmio, l, op);
		break;
	case SIM_MMIO_W:
		l = line_of(addr);
		l->accesses++;
		charge(cost_of(cur, t_mmio_w), l, op);
		written(cur, l);
		break;
	default:
		l = line_of(addr);
		l->accesses++;
		c = access_cost(cur, l, kind);
		/* what a load or an RMW read is what a wait that follows waits on */
		if (kind != SIM_STORE)
			watch(cur, l);
		/* the access takes effect at its start; its cost moves the clock after */
		if (kind != SIM_LOAD)
			written(cur, l);
		charge(c, l, op);
	}
}

void sim_store_range(const void *addr, size_t bytes, const char *op)
{
	uintptr_t a = (uintptr_t)addr, end = a + bytes;

	for (a &= ~(uintptr_t)((1 << LINE_SHIFT) - 1); a < end; a += 1 << LINE_SHIFT)
		sim_access(SIM_STORE, (const void *)a, op);
}

static void park(u64 max_ns)
{
	struct agent *a = cur;
	int i;

	/* a line another agent wrote since it was loaded: no wait */
	for (i = 0; i < a->nwatch; i++) {
		struct line *l = a->watch[i].l;
		u64 by_other = l->writer != a->id ? l->write_seq : l->other_seq;

		if (by_other > a->watch[i].seq) {
			a->nwatch = 0;
			return;
		}
	}
	for (i = 0; i < a->nwatch; i++) {
		struct wnode *w = &a->watch[i];

		w->prev = NULL;
		w->next = w->l->waiters;
		if (w->next)
			w->next->prev = w;
		w->l->waiters = w;
	}
	if (max_ns > (u64)t_repoll || !max_ns)
		max_ns = (u64)t_repoll;
	a->parked = 1;
	a->park_start = a->clock;
	/* the heap holds it at its deadline */
	a->clock += max_ns;
	heap_fix(a);
	switch_to_next();
	if (a->parked) {	/* the deadline, not a write */
		unwatch_all(a);
		a->parked = 0;
		a->wfe = 0;
		a->wait_ns += max_ns;
	}
	a->nwatch = 0;
}

void sim_wait(int kind, u64 max_ns, const char *op)
{
	u64 t0;

	if (!cur)
		return;
	t0 = cur->clock;
	if (kind == SIM_W_DELAY) {
		/* udelay(): a fixed delay, as the kernel's, whatever is written meanwhile */
		cur->clock += max_ns;
		cur->wait_ns += max_ns;
		op_charge(op, max_ns);
		reschedule();
		return;
	}
	if (cur->kind == SIM_AGENT_FREE || !cur->nwatch) {
		/*
		 * nothing to wait for: a turn of the loop, which takes time
		 * even under --sim-issuers-free (free, it could spin forever)
		 */
		sim_advance(cur->kind == SIM_AGENT_FREE ? 0 : (u64)t_fence);
		return;
	}
	cur->wfe = kind == SIM_W_WFE;
	park(0);
	op_charge(op, cur->clock - t0);
}

void sim_park_on(const void *addr, u64 max_ns)
{
	struct line *l = line_of(addr);

	unwatch_all(cur);
	watch(cur, l);
	park(max_ns);
}

void sim_touch(const void *addr)
{
	written(cur, line_of(addr));
}

void sim_sync(void)
{
	if (cur)
		reschedule();
}

void sim_sev(void)
{
	int i;

	for (i = 0; i < nagents; i++)
		if (agents[i].parked && agents[i].wfe)
			wake(&agents[i], cur->clock);
}

void sim_advance(u64 ns)
{
	if (!cur)
		return;
	cur->clock += ns;
	cur->work_ns += ns;
	reschedule();
}

void sim_sleep(u64 ns)
{
	if (!cur)
		return;
	cur->clock += ns;
	reschedule();
}

void sim_yield(void)
{
	sim_sleep(1000);
}

/* --- the program --- */
static int (*hmain)(int, char **);
static int h_argc, h_rc;
static char **h_argv;
static const char *report_path;

static void main_agent(void *arg)
{
	(void)arg;
	h_rc = hmain(h_argc, h_argv);
}

static int by_ns_line(const void *a, const void *b)
{
	const struct line *x = *(const struct line *const *)a, *y = *(const struct line *const *)b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : (x->tag < y->tag ? -1 : 1);
}

static int by_ns_op(const void *a, const void *b)
{
	const struct opstat *x = a, *y = b;

	return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : strcmp(x->op, y->op);
}

/* the contention profile, by shim point and by named field */
static void report(FILE *f)
{
	struct { const char *name; u64 ns, xfers, acc, nl, held, maxheld; } fields[MAX_NAMES + 1];
	int nf = 0, i, j;
	u64 total = 0, xfers = 0, cpu_work = 0, cpu_wait = 0, end = 0;
	size_t k;

	for (i = 0; i < nagents; i++) {
		if (agents[i].kind == SIM_AGENT_CPU) {
			cpu_work += agents[i].work_ns;
			cpu_wait += agents[i].wait_ns;
		}
		if (agents[i].clock > end)
			end = agents[i].clock;
	}
	for (k = 0; k < LINES; k++) {
		struct line *l = &lines[k];
		const char *n;

		if (!l->tag)
			continue;
		total += l->ns;
		xfers += l->xfers;
		n = region_of((l->tag & ~((uintptr_t)1 << 62)) << LINE_SHIFT);
		for (j = 0; j < nf; j++)
			if (fields[j].name == n)
				break;
		if (j == nf) {
			if (nf == MAX_NAMES + 1)
				continue;
			fields[nf].name = n;
			fields[nf].ns = fields[nf].xfers = fields[nf].acc = fields[nf].nl = 0;
			fields[nf].held = fields[nf].maxheld = 0;
			nf++;
		}
		fields[j].ns += l->ns;
		fields[j].xfers += l->xfers;
		fields[j].acc += l->accesses;
		fields[j].nl++;
		fields[j].held += l->held;
		if (l->held > fields[j].maxheld)
			fields[j].maxheld = l->held;
	}
	/* sort the fields by time */
	for (i = 0; i < nf; i++)
		for (j = i + 1; j < nf; j++)
			if (fields[j].ns > fields[i].ns || (fields[j].ns == fields[i].ns && strcmp(fields[j].name, fields[i].name) < 0)) {
				__typeof__(fields[0]) t = fields[i];

				fields[i] = fields[j];
				fields[j] = t;
			}
	qsort(ops, nops, sizeof(ops[0]), by_ns_op);
	fprintf(f, "SIMPROFILE model=%s profile=%s cpus_used=%d virtual_ns=%llu cpu_work_ns=%llu cpu_park_ns=%llu line_ns=%llu transfers=%llu\n",
		SIM_VERSION, profile_name, ncpu_agents, (unsigned long long)end, (unsigned long long)cpu_work,
		(unsigned long long)cpu_wait, (unsigned long long)total, (unsigned long long)xfers);
	for (i = 0; i < nops; i++)
		fprintf(f, "SIMPOINT op=%s ns=%llu n=%llu\n", ops[i].op, (unsigned long long)ops[i].ns,
			(unsigned long long)ops[i].n);
	for (i = 0; i < nf; i++)
		fprintf(f, "SIMLINE field=%s lines=%llu ns=%llu transfers=%llu accesses=%llu held_ns=%llu busiest_held_ns=%llu\n",
			fields[i].name, (unsigned long long)fields[i].nl, (unsigned long long)fields[i].ns,
			(unsigned long long)fields[i].xfers, (unsigned long long)fields[i].acc,
			(unsigned long long)fields[i].held, (unsigned long long)fields[i].maxheld);
	(void)by_ns_line;
}

/* the contention profile now (the harness's watchdog calls it before it exits) */
void sim_report_now(void)
{
	FILE *f;

	if (!report_path)
		return;
	fflush(stdout);
	f = strcmp(report_path, "-") ? fopen(report_path, "w") : stdout;
	if (!f)
		die("cannot write %s: %s", report_path, strerror(errno));
	report(f);
	if (f != stdout)
		fclose(f);
	fflush(stdout);
}

int sim_main(int argc, char **argv, int (*harness_main)(int, char **))
{
	char **hargv = calloc(argc + 1, sizeof(char *));
	int i, n = 0;

	hargv[n++] = argv[0];
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strncmp(a, "--sim-profile=", 14)) {
			profile_path = a + 14;
		} else if (!strcmp(a, "--sim-issuers-free")) {
			issuers_free = 1;
		} else if (!strncmp(a, "--sim-report=", 13)) {
			report_path = a + 13;
		} else if (!strncmp(a, "--sim-set=", 10)) {
			char key[48], *eq;

			snprintf(key, sizeof(key), "%s", a + 10);
			eq = strchr(key, '=');
			if (!eq || eq == key || !eq[1])
				die("--sim-set wants KEY=VALUE, not '%s'", a + 10);
			*eq = 0;
			kv_put(key, strchr(a + 10, '=') + 1, 1, "--sim-set");
		} else if (!strncmp(a, "--sim-", 6)) {
			die("unknown option %s (the simulation's: --sim-profile=FILE --sim-set=KEY=VALUE --sim-report=FILE --sim-issuers-free)",
			    a);
		} else {
			hargv[n++] = argv[i];
		}
	}
	if (!profile_path)
		die("--sim-profile=FILE is required (tools/native/sim/profiles/)");
	load_profile(profile_path);
	for (i = 0; i < nkv; i++)
		if (kv[i].set && kv_find(kv[i].key) >= 0) {
			/* a --sim-set of a key the profile does not have is a typo */
			bool in_file = false;
			FILE *f = fopen(profile_path, "r");
			char line[512];

			while (f && fgets(line, sizeof(line), f)) {
				char *p = trim(line), *eq = strchr(p, '=');

				if (eq) {
					*eq = 0;
					if (!strcmp(trim(p), kv[i].key))
						in_file = true;
				}
			}
			if (f)
				fclose(f);
			if (!in_file)
				die("--sim-set %s: the profile %s has no such value", kv[i].key, profile_path);
		}
	lines = mmap(NULL, sizeof(struct line) * LINES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (lines == MAP_FAILED)
		die("no memory for the line table");
	hmain = harness_main;
	h_argc = n;
	h_argv = hargv;
	getcontext(&sched_uc);
	sim_spawn(main_agent, NULL, SIM_AGENT_FREE, -1, "main");
	if (!_setjmp(sched_ctx)) {
		cur = heap[0];
		_longjmp(cur->ctx, 1);
	}
	cur = NULL;
	sim_report_now();
	return h_rc;
}
