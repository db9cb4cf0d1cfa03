// SPDX-License-Identifier: GPL-2.0
/*
 * The native iova harness: a variant's own IOVA allocator (iova.c, with the
 * rbtree and sbitmap code it uses; extracted by tools/native/extract --unit
 * iova, never retyped), driven by real threads as dma-iommu drives it.
 *
 * Every allocation is dma-iommu's: alloc_iova_fast() below 4 GiB first
 * without flushing the rcache, then below 2^48 with. Workloads:
 *   a  same CPU: each thread frees its oldest IOVA and allocates a new one,
 *      64 outstanding per thread (the rcache's best case)
 *   b  cross CPU: thread i allocates and hands the IOVA to thread i+1, which
 *      frees it, as TX submission and completion on different CPUs
 *   c  deferred free: each thread queues its IOVAs on its own flush queue of
 *      256 entries and frees the whole queue when it is full; a timer
 *      thread frees every queue each 10 ms (dma-iommu's lazy mode)
 *   d  mixed sizes and masks: as a, with sizes of 1..64 granules, and one
 *      allocation in 8 for a device with a 28-bit DMA mask
 *   e  more than 32k outstanding: as a, with 40960 IOVAs outstanding in all
 *      (more than a 32768-unit bitmap holds)
 * Sizes are 1 granule (4 KiB) unless the workload says otherwise.
 *
 * Checks (--check 1, the stress default): no two live IOVAs overlap (a
 * shadow bitmap of every granule handed out), each IOVA is below its limit,
 * above start_pfn and aligned to its size rounded up to a power of two, no
 * free of an IOVA that is not live, and at the end everything is freed: the
 * shadow is empty, after the caches are flushed the rbtree holds only what
 * the allocator itself keeps there, and no iova, magazine or other
 * allocation is left when the domain is put.
 *
 * Counters: allocations by path (CPU rcache, depot, bitmap, rbtree, failed)
 * and size; per lock class (rbtree, CPU rcache, depot, bitmap word)
 * acquisitions, contended acquisitions, hold and wait time; bitmap words
 * scanned and bits claimed.
 *
 * Exit: 0 all checks passed; 1 a check failed; 2 bad input; 3 watchdog.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

#include "iova-shim.h"
#include "iova-features.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wtype-limits"
#include "iova-types.h"
#include "iova-funcs.h"
#pragma GCC diagnostic pop

#define MAX_THREADS 1024
#define SHADOW_PFNS (1UL << 24)		/* granules the overlap check covers */
#define FQ_SIZE 256			/* IOVA_FQ_SIZE */
#define FQ_TIMEOUT_NS 10000000ULL	/* IOVA_FQ_TIMEOUT: 10 ms */
#define RING 1024			/* workload b's hand-over ring */
#define E_TOTAL 40960			/* workload e: IOVAs outstanding in all */
#define NORD 7				/* sizes 1 .. 64 granules: orders 0 .. 6 */

enum path { P_CPU, P_DEPOT, P_BITMAP, P_RBTREE, P_FAIL, P_NR };
static const char *const path_name[P_NR] = { "cpu", "depot", "bitmap", "rbtree", "fail" };
static const char *const lock_name[LK_NR] = { "rbtree", "cpu_rcache", "depot", "bitmap_word", "other" };
#define CLS_RBTREE_ALLOC 0x100		/* the rbtree lock, taken to allocate */
#define CLS_DEPOT_GET 0x200		/* the depot lock, taken to allocate */

static struct {
	int threads, check, delay_permille;
	char workload;
	double seconds, watchdog_s;
	unsigned long long seed;
	const char *variant;
} cfg = { .threads = 1, .workload = 'a', .seconds = 1, .seed = 1, .watchdog_s = 10,
	  .variant = "?" };

struct lockstat { u64 acq, contended, hold, wait; };
struct item { unsigned long pfn, size; };

struct hthread {
	int id;
	pthread_t tid;
	u64 rng;
	/* this call's path, set by the lock and bitmap hooks */
	unsigned int call_rbtree, call_depot, call_claims;
	u64 n_alloc, n_free, t_alloc, t_free;
	u64 paths[P_NR][NORD];
	struct lockstat lk[LK_NR];
	u64 words_scanned, bits_claimed;
	u64 progress;
	/* workload state */
	struct item *win;
	unsigned int win_n, win_head;
	struct item *ring;		/* b: inbound ring, c: flush queue */
	unsigned int ring_head, ring_tail;
	spinlock_t fq_lock;
	char pad[64];
} __attribute__((aligned(64)));

static struct hthread thr[MAX_THREADS + 2];
static __thread struct hthread *self;
__thread int harness_cpu;
int harness_fence_word;
int harness_nr_cpus = 1;
static struct iova_domain iovad;
static unsigned long limit28, limit32, limit64;
static unsigned long *shadow;
static int stop, go;
static u64 n_failures, n_warnings;
static double ns_per_tick = 1;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

static void failure(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void failure(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&report_lock);
	if (n_failures++ < 20) {
		printf("FAIL: ");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf(" (variant %s, workload %c, seed %llu)\n", cfg.variant, cfg.workload, cfg.seed);
		fflush(stdout);
	}
	pthread_mutex_unlock(&report_lock);
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline u64 ticks(void)
{
#if defined(__x86_64__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	u64 v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	return now_ns();
#endif
}

static void calibrate(void)
{
	u64 t0 = now_ns(), c0 = ticks(), t1, c1;

	do
		t1 = now_ns();
	while (t1 - t0 < 50000000ULL);
	c1 = ticks();
	ns_per_tick = (double)(t1 - t0) / (double)(c1 - c0);
}

static u64 rnd(u64 *s)
{
	u64 x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

u32 harness_random_below(u32 n)
{
	static __thread u64 s;

	if (!s)
		s = cfg.seed * 0x9e3779b97f4a7c15ULL + (u64)harness_cpu + 1;
	return n ? (u32)(rnd(&s) % n) : 0;
}

static void spin_ns(u64 ns)
{
	u64 end = now_ns() + ns;

	while (now_ns() < end)
		;
}

/* a seeded delay inside a lock or between two steps, under --delay */
static void maybe_delay(void)
{
	if (cfg.delay_permille && self && rnd(&self->rng) % 1000 < (u64)cfg.delay_permille)
		spin_ns(rnd(&self->rng) % 2000);
}

int harness_warn(int cond, const char *what, const char *func, int line)
{
	if (cond) {
		__atomic_fetch_add(&n_warnings, 1, __ATOMIC_RELAXED);
		failure("WARN_ON(%s) in %s (line %d of the extracted code)", what, func, line);
	}
	return cond;
}

void harness_bug(const char *what, const char *func, int line)
{
	printf("BUG_ON(%s) in %s (line %d)\n", what, func, line);
	fflush(stdout);
	exit(1);
}

void harness_log(const char *func, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&report_lock);
	printf("kernel message (%s): ", func);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&report_lock);
}

/* --- locks --- */
int harness_lock_class(const char *expr, const char *func)
{
	int cls = LK_OTHER;

	if (strstr(expr, "iova_rbtree_lock"))
		cls = LK_RBTREE | (!strcmp(func, "__alloc_and_insert_iova_range") ? CLS_RBTREE_ALLOC : 0);
	else if (strstr(expr, "cpu_rcache->lock"))
		cls = LK_CPU_RCACHE;
	else if (strstr(expr, "rcache->lock"))
		cls = LK_DEPOT | (!strcmp(func, "__iova_rcache_get") ? CLS_DEPOT_GET : 0);
	else if (strstr(expr, "swap_lock"))
		cls = LK_BITMAP;
	return cls;
}

void harness_lock(spinlock_t *l, int cls)
{
	struct hthread *t = self;
	u64 t0 = ticks(), t1;
	int c = cls & 0xff;

	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		do {
#if defined(__x86_64__)
			__builtin_ia32_pause();
#endif
		} while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED) ||
			 __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE));
		t1 = ticks();
		if (t) {
			t->lk[c].contended++;
			t->lk[c].wait += t1 - t0;
		}
	} else {
		t1 = t0;
	}
	l->owner = c;
	l->t0 = t1;
	if (t) {
		t->lk[c].acq++;
		if (cls & CLS_RBTREE_ALLOC)
			t->call_rbtree++;
		if (cls & CLS_DEPOT_GET)
			t->call_depot++;
		maybe_delay();
	}
}

void harness_unlock(spinlock_t *l)
{
	struct hthread *t = self;

	if (t)
		t->lk[l->owner].hold += ticks() - l->t0;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/* the bitmap's word scans: every look at a word starts here */
unsigned long harness_find_next_zero_bit(const unsigned long *addr, unsigned long size, unsigned long offset)
{
	unsigned long i;

	if (self)
		self->words_scanned++;
	for (i = offset; i < size; i++)
		if (!((__atomic_load_n(&addr[BIT_WORD(i)], __ATOMIC_RELAXED) >> (i % BITS_PER_LONG)) & 1))
			return i;
	return size;
}

/* --- memory --- */
static long live_kmalloc;

struct kmem_cache *harness_kmem_cache_create(const char *name, size_t size)
{
	struct kmem_cache *c = calloc(1, sizeof(*c));

	if (c) {
		c->name = name;
		c->size = size;
	}
	return c;
}

void *harness_alloc(struct kmem_cache *c, size_t size, bool zero)
{
	void *p = zero ? calloc(1, size) : malloc(size);

	if (p)
		__atomic_fetch_add(c ? &c->live : &live_kmalloc, 1, __ATOMIC_RELAXED);
	return p;
}

void harness_free(struct kmem_cache *c, const void *p)
{
	if (!p)
		return;
	__atomic_fetch_sub(c ? &c->live : &live_kmalloc, 1, __ATOMIC_RELAXED);
	free((void *)p);
}

void *harness_alloc_percpu(size_t size, size_t align)
{
	size_t stride = (size + 63) & ~(size_t)63;
	char *base;

	(void)align;
	base = aligned_alloc(64, 64 + stride * (size_t)harness_nr_cpus);
	if (!base)
		return NULL;
	memset(base, 0, 64 + stride * (size_t)harness_nr_cpus);
	((size_t *)(base + 64))[-1] = stride;
	__atomic_fetch_add(&live_kmalloc, 1, __ATOMIC_RELAXED);
	return base + 64;
}

void harness_free_percpu(void *p)
{
	if (!p)
		return;
	__atomic_fetch_sub(&live_kmalloc, 1, __ATOMIC_RELAXED);
	free((char *)p - 64);
}

/* --- delayed work: one kworker thread --- */
#define MAX_WORKS 64
static struct delayed_work *works[MAX_WORKS];
static int nworks;
static pthread_mutex_t work_lock = PTHREAD_MUTEX_INITIALIZER;
static u64 n_work_runs;

void harness_init_delayed_work(struct delayed_work *dw, void (*fn)(struct work_struct *))
{
	dw->work.func = fn;
	dw->pending = 0;
	pthread_mutex_lock(&work_lock);
	if (nworks == MAX_WORKS) {
		fprintf(stderr, "iova-harness: more than %d delayed works\n", MAX_WORKS);
		exit(2);
	}
	works[nworks++] = dw;
	dw->registered = 1;
	pthread_mutex_unlock(&work_lock);
}

bool harness_schedule_delayed_work(struct delayed_work *dw, unsigned long ms)
{
	int was = 0;

	/* the due time first, then pending: the kworker reads them in that order */
	if (__atomic_load_n(&dw->pending, __ATOMIC_ACQUIRE))
		return false;
	__atomic_store_n(&dw->due_ns, now_ns() + ms * 1000000ULL, __ATOMIC_RELAXED);
	return __atomic_compare_exchange_n(&dw->pending, &was, 1, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

bool harness_cancel_delayed_work_sync(struct delayed_work *dw)
{
	int i, was;

	pthread_mutex_lock(&work_lock);
	was = __atomic_exchange_n(&dw->pending, 0, __ATOMIC_ACQ_REL);
	for (i = 0; i < nworks; i++)
		if (works[i] == dw) {
			works[i] = works[--nworks];
			break;
		}
	dw->registered = 0;
	pthread_mutex_unlock(&work_lock);
	return was;
}

static int kworker_stop;

static void *kworker_thread(void *arg)
{
	struct hthread *t = arg;
	int i;

	self = t;
	harness_cpu = t->id;
	while (!__atomic_load_n(&kworker_stop, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&work_lock);
		for (i = 0; i < nworks; i++) {
			struct delayed_work *dw = works[i];

			if (__atomic_load_n(&dw->pending, __ATOMIC_ACQUIRE) &&
			    __atomic_load_n(&dw->due_ns, __ATOMIC_RELAXED) <= now_ns()) {
				__atomic_store_n(&dw->pending, 0, __ATOMIC_RELEASE);
				n_work_runs++;
				dw->work.func(&dw->work);
			}
		}
		pthread_mutex_unlock(&work_lock);
		usleep(1000);
	}
	return NULL;
}

/* --- the checks --- */
static unsigned long align_of(unsigned long size)
{
	return roundup_pow_of_two(size);
}

static void shadow_take(unsigned long pfn, unsigned long size, unsigned long limit)
{
	unsigned long i;

	if (pfn < iovad.start_pfn || pfn + size - 1 > limit)
		failure("IOVA pfn 0x%lx size %lu is outside [0x%lx, 0x%lx]", pfn, size, iovad.start_pfn, limit);
	if (pfn & (align_of(size) - 1))
		failure("IOVA pfn 0x%lx size %lu is not aligned to %lu granules", pfn, size, align_of(size));
	if (pfn + size > SHADOW_PFNS) {
		failure("IOVA pfn 0x%lx size %lu is beyond the shadow (2^24 granules): the 4 GiB space should not run out here",
			pfn, size);
		return;
	}
	for (i = pfn; i < pfn + size; i++)
		if (__atomic_fetch_or(&shadow[BIT_WORD(i)], BIT_MASK(i), __ATOMIC_RELAXED) & BIT_MASK(i))
			failure("IOVA pfn 0x%lx size %lu overlaps a live IOVA at granule 0x%lx", pfn, size, i);
}

static void shadow_give(unsigned long pfn, unsigned long size)
{
	unsigned long i;

	if (pfn + size > SHADOW_PFNS)
		return;
	for (i = pfn; i < pfn + size; i++)
		if (!(__atomic_fetch_and(&shadow[BIT_WORD(i)], ~BIT_MASK(i), __ATOMIC_RELAXED) & BIT_MASK(i)))
			failure("free of pfn 0x%lx size %lu: granule 0x%lx is not live", pfn, size, i);
}

/* --- dma-iommu's calls, timed and classified --- */
static int order_of(unsigned long size)
{
	int o = order_base_2(size);

	return o < NORD ? o : NORD - 1;
}

static unsigned long do_alloc(struct hthread *t, unsigned long size)
{
	unsigned long pfn, limit = limit32, lim32 = limit32, lim64 = limit64;
	enum path p;
	u64 t0;

	t->call_rbtree = t->call_depot = t->call_claims = 0;
	/* workload d: one allocation in 8 for a device with a 28-bit DMA mask */
	if (cfg.workload == 'd' && !(rnd(&t->rng) % 8))
		limit = lim32 = lim64 = limit28;
	t0 = ticks();
	pfn = alloc_iova_fast(&iovad, size, lim32, false);
	if (!pfn && lim64 != lim32) {
		limit = lim64;
		pfn = alloc_iova_fast(&iovad, size, lim64, true);
	}
	t->t_alloc += ticks() - t0;
	t->n_alloc++;
	if (!pfn)
		p = P_FAIL;
	else if (t->call_rbtree)
		p = P_RBTREE;
	else if (t->call_claims)
		p = P_BITMAP;
	else if (t->call_depot)
		p = P_DEPOT;
	else
		p = P_CPU;
	t->paths[p][order_of(size)]++;
	if (pfn && cfg.check)
		shadow_take(pfn, size, limit);
	if (!pfn)
		failure("alloc_iova_fast() of %lu granules failed with %d threads", size, cfg.threads);
	return pfn;
}

static void do_free(struct hthread *t, unsigned long pfn, unsigned long size)
{
	u64 t0;

	if (cfg.check)
		shadow_give(pfn, size);
	t0 = ticks();
	free_iova_fast(&iovad, pfn, size);
	t->t_free += ticks() - t0;
	t->n_free++;
}

/* the bitmap's claims (test_and_set_bit_lock() that found the bit clear) */
bool harness_claimed(bool was_set)
{
	if (!was_set && self) {
		self->call_claims++;
		self->bits_claimed++;
	}
	return was_set;
}

static unsigned long size_for(struct hthread *t)
{
	return cfg.workload == 'd' ? 1 + rnd(&t->rng) % 64 : 1;
}

static unsigned int window(void)
{
	if (cfg.workload == 'e')
		return (E_TOTAL + cfg.threads - 1) / cfg.threads;
	return 64;
}

/* --- workloads --- */
/* free every IOVA on q's flush queue, on the calling CPU; q's lock held */
static void fq_drain(struct hthread *q)
{
	while (q->ring_tail != q->ring_head) {
		struct item *it = &q->ring[q->ring_tail % FQ_SIZE];

		do_free(self, it->pfn, it->size);
		q->ring_tail++;
	}
}

static void fq_free_all(struct hthread *q)
{
	spin_lock(&q->fq_lock);
	fq_drain(q);
	spin_unlock(&q->fq_lock);
}

static void step(struct hthread *t)
{
	struct hthread *next;
	struct item it;
	unsigned int n;

	switch (cfg.workload) {
	case 'a':
	case 'd':
	case 'e':
		/* free the oldest, allocate a new one in its place */
		it = t->win[t->win_head];
		do_free(t, it.pfn, it.size);
		maybe_delay();
		it.size = size_for(t);
		it.pfn = do_alloc(t, it.size);
		t->win[t->win_head] = it;
		t->win_head = (t->win_head + 1) % t->win_n;
		break;
	case 'b':
		/* complete what the previous CPU submitted, then submit to the next */
		n = 0;
		while (n < 8 && __atomic_load_n(&t->ring_tail, __ATOMIC_RELAXED) !=
				__atomic_load_n(&t->ring_head, __ATOMIC_ACQUIRE)) {
			it = t->ring[t->ring_tail % RING];
			__atomic_store_n(&t->ring_tail, t->ring_tail + 1, __ATOMIC_RELEASE);
			do_free(t, it.pfn, it.size);
			n++;
		}
		next = &thr[(t->id + 1) % cfg.threads];
		if (__atomic_load_n(&next->ring_head, __ATOMIC_RELAXED) -
		    __atomic_load_n(&next->ring_tail, __ATOMIC_ACQUIRE) < RING) {
			it.size = size_for(t);
			it.pfn = do_alloc(t, it.size);
			next->ring[next->ring_head % RING] = it;
			__atomic_store_n(&next->ring_head, next->ring_head + 1, __ATOMIC_RELEASE);
		}
		break;
	case 'c':
		it.size = size_for(t);
		it.pfn = do_alloc(t, it.size);
		spin_lock(&t->fq_lock);
		/* a full queue is flushed and freed by the CPU that found it full */
		if (t->ring_head - t->ring_tail == FQ_SIZE)
			fq_drain(t);
		t->ring[t->ring_head % FQ_SIZE] = it;
		t->ring_head++;
		spin_unlock(&t->fq_lock);
		break;
	}
}

static void fill(struct hthread *t)
{
	unsigned int i;

	if (cfg.workload == 'a' || cfg.workload == 'd' || cfg.workload == 'e') {
		t->win_n = window();
		t->win = calloc(t->win_n, sizeof(*t->win));
		for (i = 0; i < t->win_n; i++) {
			t->win[i].size = size_for(t);
			t->win[i].pfn = do_alloc(t, t->win[i].size);
		}
	}
}

static void drain(struct hthread *t)
{
	unsigned int i;

	if (t->win) {
		for (i = 0; i < t->win_n; i++)
			if (t->win[i].pfn)
				do_free(t, t->win[i].pfn, t->win[i].size);
		free(t->win);
		t->win = NULL;
	}
}

static u64 timed_allocs[MAX_THREADS], timed_frees[MAX_THREADS];
static u64 timed_t_alloc[MAX_THREADS], timed_t_free[MAX_THREADS];
static int ready;

static void *cpu_thread(void *arg)
{
	struct hthread *t = arg;
	cpu_set_t set;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	self = t;
	harness_cpu = t->id;
	CPU_ZERO(&set);
	CPU_SET(t->id % ncpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	fill(t);
	__atomic_fetch_add(&ready, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE))
		;
	/* the timed part starts with the counters at zero */
	t->n_alloc = t->n_free = t->t_alloc = t->t_free = 0;
	memset(t->paths, 0, sizeof(t->paths));
	memset(t->lk, 0, sizeof(t->lk));
	t->words_scanned = t->bits_claimed = 0;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		step(t);
		__atomic_store_n(&t->progress, t->progress + 1, __ATOMIC_RELAXED);
	}
	timed_allocs[t->id] = t->n_alloc;
	timed_frees[t->id] = t->n_free;
	timed_t_alloc[t->id] = t->t_alloc;
	timed_t_free[t->id] = t->t_free;
	return NULL;
}

/* workload c's flush-queue timer, on a CPU of its own */
static void *timer_thread(void *arg)
{
	struct hthread *t = arg;
	int i;

	self = t;
	harness_cpu = t->id;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		u64 until = now_ns() + FQ_TIMEOUT_NS;

		while (now_ns() < until && !__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
			usleep(500);
		for (i = 0; i < cfg.threads; i++)
			fq_free_all(&thr[i]);
		__atomic_store_n(&t->progress, t->progress + 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *watchdog_thread(void *arg)
{
	u64 last[MAX_THREADS] = { 0 }, since = now_ns();
	int i, moved;

	(void)arg;
	for (;;) {
		usleep(100000);
		if (__atomic_load_n(&stop, __ATOMIC_ACQUIRE) == 2)
			return NULL;
		moved = 0;
		for (i = 0; i < cfg.threads; i++) {
			u64 p = __atomic_load_n(&thr[i].progress, __ATOMIC_RELAXED);

			if (p != last[i])
				moved = 1;
			last[i] = p;
		}
		if (moved || !__atomic_load_n(&go, __ATOMIC_ACQUIRE)) {
			since = now_ns();
			continue;
		}
		if (now_ns() - since > (u64)(cfg.watchdog_s * 1e9)) {
			printf("WATCHDOG: no thread finished a step for %.1f s (variant %s, workload %c, %d threads, seed %llu)\n",
			       cfg.watchdog_s, cfg.variant, cfg.workload, cfg.threads, cfg.seed);
			fflush(stdout);
			_exit(3);
		}
	}
}

/* the rbtree's nodes other than the anchor */
static unsigned long rbtree_nodes(void)
{
	struct rb_node *n;
	unsigned long c = 0;

	for (n = rb_first(&iovad.rbroot); n; n = rb_next(n))
		if (n != &iovad.anchor.node)
			c++;
	return c;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: iova-harness [--variant NAME] [--workload a|b|c|d|e] [--threads N] [--seconds S]\n"
		"                    [--seed N] [--check 0|1] [--delay PERMILLE] [--watchdog S]\n"
		"Drives the variant's own alloc_iova_fast()/free_iova_fast() as dma-iommu does.\n"
		"Workloads: a same CPU, b cross CPU, c deferred free (flush queue), d sizes 1..64,\n"
		"e 40960 outstanding. Prints a RESULT line; exit 0 pass, 1 check failed, 2 bad input, 3 watchdog.\n");
	exit(2);
}

static long num_arg(const char *name, const char *s, long lo, long hi)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "iova-harness: %s: '%s' is not a whole number from %ld to %ld\n", name, s, lo, hi);
		exit(2);
	}
	return v;
}

static double dbl_arg(const char *name, const char *s, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);

	if (*s == '\0' || *end != '\0' || !(v >= lo && v <= hi)) {
		fprintf(stderr, "iova-harness: %s: '%s' is not a number from %g to %g\n", name, s, lo, hi);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "variant", 1, 0, 'v' }, { "workload", 1, 0, 'w' }, { "threads", 1, 0, 't' },
		{ "seconds", 1, 0, 's' }, { "seed", 1, 0, 'S' }, { "check", 1, 0, 'c' },
		{ "delay", 1, 0, 'd' }, { "watchdog", 1, 0, 'W' }, { 0, 0, 0, 0 }
	};
	pthread_t wd, tm, kw;
	struct hthread *timer = NULL, *kworker;
	u64 allocs = 0, frees = 0, ta = 0, tf = 0, paths[P_NR] = { 0 }, words = 0, claims = 0;
	char byorder[512];
	struct lockstat lk[LK_NR] = { 0 };
	unsigned long expect_nodes, nodes;
	double secs;
	int o, i, p, c;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'v': cfg.variant = optarg; break;
		case 'w':
			if (strlen(optarg) != 1 || !strchr("abcde", optarg[0])) {
				fprintf(stderr, "iova-harness: --workload: '%s' is not one of a b c d e\n", optarg);
				exit(2);
			}
			cfg.workload = optarg[0];
			break;
		case 't': cfg.threads = (int)num_arg("--threads", optarg, 1, MAX_THREADS); break;
		case 's': cfg.seconds = dbl_arg("--seconds", optarg, 0.01, 3600); break;
		case 'S': cfg.seed = (unsigned long long)num_arg("--seed", optarg, 0, LONG_MAX); break;
		case 'c': cfg.check = (int)num_arg("--check", optarg, 0, 1); break;
		case 'd': cfg.delay_permille = (int)num_arg("--delay", optarg, 0, 1000); break;
		case 'W': cfg.watchdog_s = dbl_arg("--watchdog", optarg, 0.1, 3600); break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();

	calibrate();
	/* CPUs: the workers, then the flush-queue timer, then the kworker */
	harness_nr_cpus = cfg.threads + 2;
	for (i = 0; i < cfg.threads + 2; i++) {
		thr[i].id = i;
		thr[i].rng = cfg.seed * 0x9e3779b97f4a7c15ULL + (u64)i * 0x632be59bd9b4e019ULL + 1;
		spin_lock_init(&thr[i].fq_lock);
		if (cfg.workload == 'b')
			thr[i].ring = calloc(RING, sizeof(struct item));
		else if (cfg.workload == 'c')
			thr[i].ring = calloc(FQ_SIZE, sizeof(struct item));
	}
	self = &thr[0];
	harness_cpu = 0;
	if (cfg.check) {
		shadow = calloc(SHADOW_PFNS / BITS_PER_LONG, sizeof(long));
		if (!shadow) {
			perror("iova-harness: shadow");
			exit(2);
		}
	}

	/* dma-iommu's set-up: 4 KiB granules, base pfn 1, the rcaches, the bitmap where there is one */
	if (iova_cache_get()) {
		printf("FAIL: iova_cache_get() failed\n");
		return 1;
	}
	init_iova_domain(&iovad, 4096, 1);
	if (iova_domain_init_rcaches(&iovad)) {
		printf("FAIL: iova_domain_init_rcaches() failed\n");
		return 1;
	}
	limit28 = DMA_BIT_MASK(28) >> iova_shift(&iovad);
	limit32 = DMA_BIT_MASK(32) >> iova_shift(&iovad);
	limit64 = DMA_BIT_MASK(48) >> iova_shift(&iovad);
	expect_nodes = 0;
#ifdef HARNESS_HAS_BITMAP
	if (harness_init_bitmap(&iovad, limit32)) {
		printf("FAIL: the variant's bitmap set-up failed\n");
		return 1;
	}
	expect_nodes = rbtree_nodes();	/* the bitmap's region */
#endif
	kworker = &thr[cfg.threads + 1];
	pthread_create(&kw, NULL, kworker_thread, kworker);
	pthread_create(&wd, NULL, watchdog_thread, NULL);
	for (i = 0; i < cfg.threads; i++)
		pthread_create(&thr[i].tid, NULL, cpu_thread, &thr[i]);
	while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) < cfg.threads)
		usleep(1000);
	if (cfg.workload == 'c') {
		timer = &thr[cfg.threads];
		pthread_create(&tm, NULL, timer_thread, timer);
	}
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	usleep((useconds_t)(cfg.seconds * 1e6));
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < cfg.threads; i++)
		pthread_join(thr[i].tid, NULL);
	if (timer)
		pthread_join(tm, NULL);

	/* the totals of the timed part, before the drain adds to them */
	for (i = 0; i < cfg.threads + 1; i++) {
		for (p = 0; p < P_NR; p++)
			for (o = 0; o < NORD; o++)
				paths[p] += thr[i].paths[p][o];
		for (c = 0; c < LK_NR; c++) {
			lk[c].acq += thr[i].lk[c].acq;
			lk[c].contended += thr[i].lk[c].contended;
			lk[c].hold += thr[i].lk[c].hold;
			lk[c].wait += thr[i].lk[c].wait;
		}
		words += thr[i].words_scanned;
		claims += thr[i].bits_claimed;
	}
	for (i = 0; i < cfg.threads; i++) {
		allocs += timed_allocs[i];
		frees += timed_frees[i];
		ta += timed_t_alloc[i];
		tf += timed_t_free[i];
	}
	{
		int n = 0;

		for (p = 0; p < P_NR; p++)
			for (o = 0; o < NORD; o++) {
				u64 s = 0;

				for (i = 0; i < cfg.threads + 1; i++)
					s += thr[i].paths[p][o];
				if (s)
					n += snprintf(byorder + n, sizeof(byorder) - n, "%s%s@%d:%llu", n ? "," : "",
						      path_name[p], 1 << o, (unsigned long long)s);
			}
		if (!n)
			snprintf(byorder, sizeof(byorder), "-");
		printf("paths by size (path@granules:count): %s\n", byorder);
	}

	/* everything back: the threads' own, every queue, then the caches */
	self = &thr[0];
	harness_cpu = 0;
	for (i = 0; i < cfg.threads; i++)
		drain(&thr[i]);
	if (cfg.workload == 'b')
		for (i = 0; i < cfg.threads; i++)
			while (thr[i].ring_tail != thr[i].ring_head) {
				struct item it = thr[i].ring[thr[i].ring_tail % RING];

				do_free(&thr[0], it.pfn, it.size);
				thr[i].ring_tail++;
			}
	if (cfg.workload == 'c')
		for (i = 0; i < cfg.threads; i++)
			fq_free_all(&thr[i]);
	__atomic_store_n(&kworker_stop, 1, __ATOMIC_RELEASE);
	pthread_join(kw, NULL);
	if (cfg.check) {
		for (i = 0; i < (int)(SHADOW_PFNS / BITS_PER_LONG); i++)
			if (shadow[i]) {
				failure("granules still live after every IOVA was freed (shadow word %d: 0x%lx)", i, shadow[i]);
				break;
			}
	}
	for (c = 0; c < harness_nr_cpus; c++)
		free_cpu_cached_iovas(c, &iovad);
	free_global_cached_iovas(&iovad);
#ifdef harness_bitmap_used
	if (harness_bitmap_used(&iovad))
		failure("%u bitmap units still taken after every IOVA was freed", harness_bitmap_used(&iovad));
#endif
	nodes = rbtree_nodes();
	if (nodes != expect_nodes)
		failure("after every IOVA was freed and the caches flushed, the rbtree holds %lu nodes besides the anchor; expected %lu",
			nodes, expect_nodes);
	put_iova_domain(&iovad);
	if (iova_cache && iova_cache->live)
		failure("%ld struct iova leaked", iova_cache->live);
	if (iova_magazine_cache && iova_magazine_cache->live)
		failure("%ld magazines leaked", iova_magazine_cache->live);
	if (live_kmalloc)
		failure("%ld kmalloc/percpu allocations leaked", live_kmalloc);
	iova_cache_put();
	__atomic_store_n(&stop, 2, __ATOMIC_RELEASE);
	pthread_join(wd, NULL);

	secs = cfg.seconds;
	printf("locks (class: acquisitions, contended, hold ns, wait ns):");
	for (c = 0; c < LK_NR; c++)
		printf(" %s: %llu %llu %.0f %.0f;", lock_name[c], (unsigned long long)lk[c].acq,
		       (unsigned long long)lk[c].contended, lk[c].hold * ns_per_tick, lk[c].wait * ns_per_tick);
	printf("\n");
	printf("RESULT variant=%s workload=%c threads=%d seconds=%.3f seed=%llu check=%d delay=%d "
	       "allocs=%llu frees=%llu alloc_ns=%.1f free_ns=%.1f",
	       cfg.variant, cfg.workload, cfg.threads, secs, cfg.seed, cfg.check, cfg.delay_permille,
	       (unsigned long long)allocs, (unsigned long long)frees,
	       allocs ? ta * ns_per_tick / allocs : 0, frees ? tf * ns_per_tick / frees : 0);
	for (p = 0; p < P_NR; p++)
		printf(" %s=%llu", path_name[p], (unsigned long long)paths[p]);
	for (c = 0; c < LK_NR - 1; c++)
		printf(" %s_acq=%llu %s_cont=%llu %s_hold_ns=%.0f %s_wait_ns=%.0f", lock_name[c],
		       (unsigned long long)lk[c].acq, lock_name[c], (unsigned long long)lk[c].contended,
		       lock_name[c], lk[c].hold * ns_per_tick, lock_name[c], lk[c].wait * ns_per_tick);
	printf(" by_size=%s", byorder);
	printf(" words_scanned=%llu bits_claimed=%llu work_runs=%llu failures=%llu\n",
	       (unsigned long long)words, (unsigned long long)claims, (unsigned long long)n_work_runs,
	       (unsigned long long)n_failures);
	if (n_failures)
		printf("FAILED: %llu check(s) failed\n", (unsigned long long)n_failures);
	return n_failures ? 1 : 0;
}
