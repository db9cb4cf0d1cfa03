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
 * and, for the sizes above the rcache's limit (33 granules and more), which
 * v3's size classes serve:
 *   f  as a, 32 outstanding per thread, sizes 33..256 granules: an order of
 *      6, 7 or 8 with equal chance, then a size of that order
 *   g  as b, size 64 granules, at most 64 in flight to each thread
 *   h  as c (the flush queue), with f's sizes
 *   i  as a, size 64, 512 outstanding in all: twice the 256 slots of the
 *      first class, so that the rbtree fallback is taken
 *   j  as a, sizes 33..64 granules, every allocation with a 28-bit limit
 *      (below where a class's region lies)
 *   k  not timed: after 300 allocations and frees of 64, 128 and 256
 *      granules each (so that a variant with size classes sets them up),
 *      IOVAs of 512 granules below 4 GiB are allocated until the first
 *      failure; space32_lost is the share of the 32-bit space that was not
 *      handed out, and allocs their count
 * Sizes are 1 granule (4 KiB) unless the workload says otherwise. Each run
 * starts with an untimed warm-up (--warmup, 50 ms by default), so that
 * lazily set-up state (v3's classes) is in place when the timing starts.
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
 *
 * Built with -DHARNESS_SIM (tools/native/sim/build-iova), the same code
 * runs under the simulation (tools/native/sim/sim.c): the threads are
 * virtual CPUs placed by its machine profile, the clock is virtual, every
 * shared access is costed by its cache-line model, and each spinlock is a
 * queued lock as arm64's, whose waiters spin on their own node. What the
 * shim does not see (the rbtree walk's compute, the rcache's magazines
 * under their lock) costs nothing there, except for --call-ns per call and
 * --node-ns per rbtree node looked at. Workload k is not simulated.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <sched.h>
#include <stdarg.h>
#include <time.h>
#include <unistd.h>

#include "iova-shim.h"
#include "iova-features.h"

#ifdef HARNESS_SIM
/* every rbtree node the code looks at: a load of its line, and --node-ns */
static void harness_node_look(const void *node);
#define to_iova(n) ({ struct rb_node *__n = (n); harness_node_look(__n); driver_to_iova(__n); })
#endif

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
#define SHADOW_PFNS (1UL << 24)		/* granules each window of the overlap check covers */
#define FQ_SIZE 256			/* IOVA_FQ_SIZE */
#define FQ_TIMEOUT_NS 10000000ULL	/* IOVA_FQ_TIMEOUT: 10 ms */
#define RING 1024			/* workload b's hand-over ring */
#define E_TOTAL 40960			/* workload e: IOVAs outstanding in all */
#define I_TOTAL 512			/* workload i: IOVAs outstanding in all */
#define G_INFLIGHT 64			/* workload g: the most in flight to a thread */
#define K_SIZE 512			/* workload k: the size counted */
#define NORD 10				/* sizes 1 .. 512 granules: orders 0 .. 9 */

enum path { P_CPU, P_DEPOT, P_BITMAP, P_RBTREE, P_FAIL, P_NR };
static const char *const path_name[P_NR] = { "cpu", "depot", "bitmap", "rbtree", "fail" };
static const char *const lock_name[LK_NR] = { "rbtree", "cpu_rcache", "depot", "bitmap_word", "other" };
#define CLS_RBTREE_ALLOC 0x100		/* the rbtree lock, taken to allocate */
#define CLS_DEPOT_GET 0x200		/* the depot lock, taken to allocate */

static struct {
	int threads, check, delay_permille;
	char workload;
	double seconds, watchdog_s, warmup_s;
	unsigned long long seed;
	const char *variant;
	u64 call_ns, node_ns;	/* under simulation: local work per call, per rbtree node */
} cfg = { .threads = 1, .workload = 'a', .seconds = 1, .seed = 1, .watchdog_s = 10,
	  .warmup_s = 0.05, .variant = "?" };

struct lockstat { u64 acq, contended, hold, wait; };
struct item { unsigned long pfn, size; };

struct hthread {
	int id;
	pthread_t tid;
	u64 rng;
	/* this call's path, set by the lock and bitmap hooks */
	unsigned int call_rbtree, call_depot, call_claims;
	u64 call_words, fallback_words;	/* words looked at by this call; by calls the rbtree served */
	u64 n_alloc, n_free, t_alloc, t_free;
	u64 paths[P_NR][NORD];
	struct lockstat lk[LK_NR];
	u64 words_scanned, bits_claimed;
	u64 progress;
	int timed;
	/* workload state */
	struct item *win;
	unsigned int win_n, win_head;
	struct item *ring;		/* b: inbound ring, c: flush queue */
	unsigned int ring_head, ring_tail;
	spinlock_t fq_lock;
	int agent;			/* under simulation: its agent */
#ifdef HARNESS_SIM
	struct hmcs { struct hmcs *next; int locked; } __attribute__((aligned(64))) mcs;
#endif
	char pad[64];
} __attribute__((aligned(64)));

static struct hthread thr[MAX_THREADS + 2];
#ifdef HARNESS_SIM
#define self (*(struct hthread **)sim_slot())
/* the main agent has no hthread: CPU 0's, which is idle while main works */
int harness_sim_cpu(void)
{
	return self ? self->id : 0;
}
#define set_cpu(id) ((void)(id))
#else
static __thread struct hthread *self;
__thread int harness_cpu;
#define set_cpu(id) (harness_cpu = (id))
#endif
int harness_fence_word;
int harness_nr_cpus = 1;
static struct iova_domain iovad;
static unsigned long limit28, limit32, limit64;
static int pci_32bit_workaround = 1;	/* cleared at the first failure below 4 GiB */
static unsigned long *shadow;
static int stop, go, timing;
static u64 n_failures, n_warnings;
static double ns_per_tick = 1;
static unsigned long held_peak;		/* the most granules the rbtree held, sampled */
static unsigned long sample_held(void);
/* the watchdog samples under sample_lock until main says it is over (before it frees anything) */
static pthread_mutex_t sample_lock = PTHREAD_MUTEX_INITIALIZER;
static int sampling_over;
static unsigned int classes_report_n;
static unsigned long classes_report_bytes;
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
#ifdef HARNESS_SIM
	return sim_now();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
#endif
}

#ifdef HARNESS_SIM
#define usleep(us) sim_sleep((u64)(us) * 1000)
#endif

static inline u64 ticks(void)
{
#if defined(HARNESS_SIM)
	return sim_now();
#elif defined(__x86_64__)
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
#ifdef HARNESS_SIM
	ns_per_tick = 1;
#else
	u64 t0 = now_ns(), c0 = ticks(), t1, c1;

	do
		t1 = now_ns();
	while (t1 - t0 < 50000000ULL);
	c1 = ticks();
	ns_per_tick = (double)(t1 - t0) / (double)(c1 - c0);
#endif
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
#ifdef HARNESS_SIM
	sim_advance(ns);
#else
	u64 end = now_ns() + ns;

	while (now_ns() < end)
		;
#endif
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

#ifdef HARNESS_SIM
/*
 * arm64's queued spinlock, in the shape that decides its cost (as the cmdq
 * harness's, tools/native/shim.h): an uncontended lock is one RMW of the
 * lock word; a contended one appends the CPU's own node with an RMW of the
 * tail and spins on that node until it is the head; the head alone spins
 * on the lock word, takes it when the holder's store frees it, and makes
 * its successor the head with one store to that node. The pending bit is
 * not modelled. Between two points nothing else runs, so plain C is atomic
 * here. Returns true if the lock was contended.
 */
static struct hmcs main_mcs;

static bool sim_queued_lock(spinlock_t *l)
{
	struct hmcs *me = self ? &self->mcs : &main_mcs, *prev;
	uintptr_t v;

	SIMA(SIM_RMW, &l->locked, "spin_lock");
	if (!l->locked) {
		l->locked = 1;
		return false;
	}
	SIMA(SIM_STORE, me, "spin_lock");
	me->next = NULL;
	me->locked = 0;
	SIMA(SIM_RMW, &l->locked, "spin_lock");
	v = l->locked;
	l->locked = (v & 1) | (uintptr_t)me;
	prev = (struct hmcs *)(v & ~(uintptr_t)1);
	if (prev) {
		SIMA(SIM_STORE, &prev->next, "spin_lock");
		prev->next = me;
		for (;;) {	/* behind the head: on its own node */
			SIMA(SIM_LOAD, &me->locked, "spin_lock_wait");
			if (me->locked)
				break;
			sim_wait(SIM_W_RELAX, 0, "spin_lock_wait");
		}
	}
	for (;;) {	/* the head: on the lock word */
		SIMA(SIM_LOAD, &l->locked, "spin_lock_wait");
		if (!(l->locked & 1))
			break;
		sim_wait(SIM_W_RELAX, 0, "spin_lock_wait");
	}
	SIMA(SIM_RMW, &l->locked, "spin_lock");
	if ((l->locked & ~(uintptr_t)1) == (uintptr_t)me) {
		l->locked = 1;	/* the last in the queue: clear the tail */
	} else {
		l->locked |= 1;
		for (;;) {	/* the successor is linking itself in */
			SIMA(SIM_LOAD, &me->next, "spin_lock_wait");
			if (me->next)
				break;
			sim_wait(SIM_W_RELAX, 0, "spin_lock_wait");
		}
		SIMA(SIM_STORE, &me->next->locked, "spin_lock");
		me->next->locked = 1;
	}
	return true;
}
#endif

void harness_lock(spinlock_t *l, int cls)
{
	struct hthread *t = self;
	u64 t0 = ticks(), t1;
	int c = cls & 0xff;
	bool contended;

#ifdef HARNESS_SIM
	contended = sim_queued_lock(l);
#else
	contended = __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
	if (contended) {
		do {
#if defined(__x86_64__)
			__builtin_ia32_pause();
#endif
		} while (__atomic_load_n(&l->locked, __ATOMIC_RELAXED) ||
			 __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE));
	}
#endif
	if (contended) {
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
#ifdef HARNESS_SIM
	SIMA(SIM_STORE, &l->locked, "spin_unlock");
	l->locked &= ~(uintptr_t)1;
#else
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
#endif
}

/*
 * The bitmap's word scans: every look at a word starts here. A word at a
 * time, as the kernel's _find_next_zero_bit() (lib/find_bit.c): a loop
 * over single bits would cost the bitmap up to 64 loads a look, which the
 * kernel never pays, and make it look slower than it is.
 */
unsigned long harness_find_next_zero_bit(const unsigned long *addr, unsigned long size, unsigned long offset)
{
	unsigned long i, w;

	if (self) {
		self->words_scanned++;
		self->call_words++;
	}
	if (offset >= size)
		return size;
	i = BIT_WORD(offset);
	SIMA(SIM_LOAD, &addr[i], "find_next_zero_bit");
	w = ~__atomic_load_n(&addr[i], __ATOMIC_RELAXED) & (~0UL << (offset % BITS_PER_LONG));
	while (!w) {
		if ((i + 1) * BITS_PER_LONG >= size)
			return size;
		i++;
		SIMA(SIM_LOAD, &addr[i], "find_next_zero_bit");
		w = ~__atomic_load_n(&addr[i], __ATOMIC_RELAXED);
	}
	i = i * BITS_PER_LONG + __builtin_ctzl(w);
	return i < size ? i : size;
}

#ifdef HARNESS_SIM
static void harness_node_look(const void *node)
{
	SIMA(SIM_LOAD, node, "rbtree node");
	if (cfg.node_ns)
		sim_advance(cfg.node_ns);
}
#endif

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
#ifdef HARNESS_SIM
	/* a line of its own, as SLAB_HWCACHE_ALIGN gives struct iova; written here */
	size_t bytes = (size + 63) & ~(size_t)63;
	void *p = aligned_alloc(64, bytes);

	if (p) {
		if (zero)
			memset(p, 0, size);
		sim_store_range(p, size, "kmem_cache_alloc");
	}
#else
	void *p = zero ? calloc(1, size) : malloc(size);
#endif

	if (p)
		__atomic_fetch_add(c ? &c->live : &live_kmalloc, 1, __ATOMIC_RELAXED);
	return p;
}

void harness_free(struct kmem_cache *c, const void *p)
{
	if (!p)
		return;
	/* the slab's free-list pointer goes into the object */
	SIMA(SIM_STORE, p, "kmem_cache_free");
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

/* --- work and delayed work: one kworker thread --- */
#define MAX_WORKS 64
static struct work_struct *works[MAX_WORKS];
static int nworks;
static pthread_mutex_t work_lock = PTHREAD_MUTEX_INITIALIZER;
static u64 n_work_runs;

void harness_init_work(struct work_struct *w, void (*fn)(struct work_struct *))
{
	w->func = fn;
	w->pending = 0;
	pthread_mutex_lock(&work_lock);
	if (nworks == MAX_WORKS) {
		fprintf(stderr, "iova-harness: more than %d works\n", MAX_WORKS);
		exit(2);
	}
	works[nworks++] = w;
	w->registered = 1;
	pthread_mutex_unlock(&work_lock);
}

bool harness_schedule_work(struct work_struct *w, unsigned long ms)
{
	int was = 0;

	/* the due time first, then pending: the kworker reads them in that order */
	if (__atomic_load_n(&w->pending, __ATOMIC_ACQUIRE))
		return false;
	__atomic_store_n(&w->due_ns, now_ns() + ms * 1000000ULL, __ATOMIC_RELAXED);
	return __atomic_compare_exchange_n(&w->pending, &was, 1, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* the kworker runs a work with work_lock held: taking it waits for a running one */
bool harness_cancel_work_sync(struct work_struct *w)
{
	int i, was;

	pthread_mutex_lock(&work_lock);
	was = __atomic_exchange_n(&w->pending, 0, __ATOMIC_ACQ_REL);
	for (i = 0; i < nworks; i++)
		if (works[i] == w) {
			works[i] = works[--nworks];
			break;
		}
	w->registered = 0;
	pthread_mutex_unlock(&work_lock);
	return was;
}

static int kworker_stop;

static void *kworker_thread(void *arg)
{
	struct hthread *t = arg;
	int i;

	self = t;
	set_cpu(t->id);
	while (!__atomic_load_n(&kworker_stop, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&work_lock);
		for (i = 0; i < nworks; i++) {
			struct work_struct *w = works[i];

			if (__atomic_load_n(&w->pending, __ATOMIC_ACQUIRE) &&
			    __atomic_load_n(&w->due_ns, __ATOMIC_RELAXED) <= now_ns()) {
				__atomic_store_n(&w->pending, 0, __ATOMIC_RELEASE);
				n_work_runs++;
				w->func(w);
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

/*
 * The shadow's bit for the range at pfn: the low window (the first 2^24
 * granules: the 32-bit space and above) or the high one (the top 2^24
 * below the 48-bit limit, where dma-iommu's retry allocates once the
 * 32-bit space is used up: many CPUs' flush queues do that). ULONG_MAX
 * when the range lies in neither.
 */
static unsigned long shadow_bit(unsigned long pfn, unsigned long size)
{
	unsigned long high = limit64 + 1 - SHADOW_PFNS;

	if (pfn + size <= SHADOW_PFNS)
		return pfn;
	if (pfn >= high && pfn + size - 1 <= limit64)
		return SHADOW_PFNS + (pfn - high);
	return ULONG_MAX;
}

static void shadow_take(unsigned long pfn, unsigned long size, unsigned long limit)
{
	unsigned long i, b;

	if (pfn < iovad.start_pfn || pfn + size - 1 > limit)
		failure("IOVA pfn 0x%lx size %lu is outside [0x%lx, 0x%lx]", pfn, size, iovad.start_pfn, limit);
	if (pfn & (align_of(size) - 1))
		failure("IOVA pfn 0x%lx size %lu is not aligned to %lu granules", pfn, size, align_of(size));
	b = shadow_bit(pfn, size);
	if (b == ULONG_MAX) {
		failure("IOVA pfn 0x%lx size %lu is in neither window of the shadow (the first 2^24 granules, the last 2^24 below 2^48 bytes)",
			pfn, size);
		return;
	}
	for (i = b; i < b + size; i++)
		if (__atomic_fetch_or(&shadow[BIT_WORD(i)], BIT_MASK(i), __ATOMIC_RELAXED) & BIT_MASK(i))
			failure("IOVA pfn 0x%lx size %lu overlaps a live IOVA at granule 0x%lx", pfn, size,
				pfn + (i - b));
}

static void shadow_give(unsigned long pfn, unsigned long size)
{
	unsigned long i, b = shadow_bit(pfn, size);

	if (b == ULONG_MAX)
		return;
	for (i = b; i < b + size; i++)
		if (!(__atomic_fetch_and(&shadow[BIT_WORD(i)], ~BIT_MASK(i), __ATOMIC_RELAXED) & BIT_MASK(i)))
			failure("free of pfn 0x%lx size %lu: granule 0x%lx is not live", pfn, size, pfn + (i - b));
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
	t->call_words = 0;
	/* workload d: one allocation in 8 for a device with a 28-bit DMA mask; j: all */
	if ((cfg.workload == 'd' && !(rnd(&t->rng) % 8)) || cfg.workload == 'j')
		limit = lim32 = lim64 = limit28;
	t0 = ticks();
#ifdef HARNESS_SIM
	sim_advance(cfg.call_ns);
#endif
	/*
	 * As iommu_dma_alloc_iova(): below 4 GiB first, where the mask is
	 * wider, until that fails once (the device's pci_32bit_workaround;
	 * the harness's threads are one device), then the whole mask with the
	 * rcache flushed on failure.
	 */
	if (lim64 != lim32 && __atomic_load_n(&pci_32bit_workaround, __ATOMIC_RELAXED)) {
		pfn = alloc_iova_fast(&iovad, size, lim32, false);
		if (!pfn)
			__atomic_store_n(&pci_32bit_workaround, 0, __ATOMIC_RELAXED);
	} else {
		pfn = 0;
	}
	if (!pfn) {
		limit = lim64;
		pfn = alloc_iova_fast(&iovad, size, lim64, true);
	}
	t->t_alloc += ticks() - t0;
	t->n_alloc++;
	if (!pfn)
		p = P_FAIL;
	else if (t->call_rbtree) {
		p = P_RBTREE;
		t->fallback_words += t->call_words;
	}
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
#ifdef HARNESS_SIM
	sim_advance(cfg.call_ns);
#endif
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
	unsigned int o;

	switch (cfg.workload) {
	case 'd':
		return 1 + rnd(&t->rng) % 64;
	case 'f':
	case 'h':
		/* an order of 6, 7 or 8, then a size of that order: 33..256 */
		o = 6 + rnd(&t->rng) % 3;
		return (1UL << (o - 1)) + 1 + rnd(&t->rng) % (1UL << (o - 1));
	case 'g':
	case 'i':
		return 64;
	case 'j':
		return 33 + rnd(&t->rng) % 32;
	}
	return 1;
}

static unsigned int window(void)
{
	switch (cfg.workload) {
	case 'e':
		return (E_TOTAL + cfg.threads - 1) / cfg.threads;
	case 'f':
		return 32;
	case 'i':
		return (I_TOTAL + cfg.threads - 1) / cfg.threads;
	}
	return 64;
}

static bool same_cpu_workload(void)
{
	return strchr("adefij", cfg.workload) != NULL;
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
	case 'f':
	case 'i':
	case 'j':
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
	case 'g':
		/* complete what the previous CPU submitted, then submit to the next */
		n = 0;
		while (n < 8 && __atomic_load_n(&t->ring_tail, __ATOMIC_RELAXED) !=
				__HS(SIM_LOAD, &t->ring_head, "ring", __atomic_load_n(&t->ring_head, __ATOMIC_ACQUIRE))) {
			it = t->ring[t->ring_tail % RING];
			SIMA(SIM_STORE, &t->ring_tail, "ring");
			__atomic_store_n(&t->ring_tail, t->ring_tail + 1, __ATOMIC_RELEASE);
			do_free(t, it.pfn, it.size);
			n++;
		}
		next = &thr[(t->id + 1) % cfg.threads];
		SIMA(SIM_LOAD, &next->ring_tail, "ring");
		if (__atomic_load_n(&next->ring_head, __ATOMIC_RELAXED) -
		    __atomic_load_n(&next->ring_tail, __ATOMIC_ACQUIRE) <
		    (cfg.workload == 'g' ? G_INFLIGHT : RING)) {
			it.size = size_for(t);
			it.pfn = do_alloc(t, it.size);
			next->ring[next->ring_head % RING] = it;
			SIMA(SIM_STORE, &next->ring_head, "ring");
			__atomic_store_n(&next->ring_head, next->ring_head + 1, __ATOMIC_RELEASE);
			n++;
		}
#ifdef HARNESS_SIM
		/* nothing to do: wait for a ring to move (the loads above are watched) */
		if (!n) {
			SIMA(SIM_LOAD, &t->ring_head, "ring");
			sim_wait(SIM_W_RELAX, 0, "ring_idle");
		}
#endif
		break;
	case 'c':
	case 'h':
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

	if (same_cpu_workload()) {
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
	set_cpu(t->id);
#ifdef HARNESS_SIM
	(void)set;
	(void)ncpu;
#else
	CPU_ZERO(&set);
	CPU_SET(t->id % ncpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
#endif
	fill(t);
	__atomic_fetch_add(&ready, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) {
#ifdef HARNESS_SIM
		sim_sleep(1000);
#endif
	}
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		/* the timed part, after the warm-up, starts with the counters at zero */
		if (!t->timed && __atomic_load_n(&timing, __ATOMIC_ACQUIRE)) {
			t->timed = 1;
			t->n_alloc = t->n_free = t->t_alloc = t->t_free = 0;
			memset(t->paths, 0, sizeof(t->paths));
			memset(t->lk, 0, sizeof(t->lk));
			t->words_scanned = t->bits_claimed = t->fallback_words = 0;
		}
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
	set_cpu(t->id);
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
		/* the space held, regions included, every 100 ms of the run */
#ifndef HARNESS_SIM
		/* (under simulation main's agent would wait for this mutex on the same thread) */
		pthread_mutex_lock(&sample_lock);
		if (__atomic_load_n(&go, __ATOMIC_ACQUIRE) && !sampling_over)
			sample_held();
		pthread_mutex_unlock(&sample_lock);
#endif
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

#ifdef HARNESS_HAS_CLASSES
/* v3's size classes: how many are set up, their slots taken, their memory */
static unsigned int classes_set_up(void)
{
	struct iova_classes *ic = iovad.classes;
	unsigned int i, n = 0;

	for (i = 0; ic && i < ic->nr; i++)
		n += !!__atomic_load_n(&ic->class[i], __ATOMIC_ACQUIRE);
	return n;
}

static unsigned int classes_used(void)
{
	struct iova_classes *ic = iovad.classes;
	unsigned int i, n = 0;

	for (i = 0; ic && i < ic->nr; i++)
		if (ic->class[i])
			n += sbitmap_weight(&ic->class[i]->sb);
	return n;
}

/* bytes: the classes' structure, and per class set up its own, its words and a hint per CPU */
static unsigned long classes_bytes(void)
{
	struct iova_classes *ic = iovad.classes;
	unsigned long b;
	unsigned int i;

	if (!ic)
		return 0;
	b = sizeof(*ic);
	for (i = 0; i < ic->nr; i++)
		if (ic->class[i])
			b += sizeof(struct iova_class) + ic->class[i]->sb.map_nr * sizeof(struct sbitmap_word) +
			     (unsigned long)harness_nr_cpus * sizeof(unsigned int);
	return b;
}
#else
static unsigned int classes_set_up(void) { return 0; }
static unsigned long classes_bytes(void) { return 0; }
#endif

/* granules the rbtree holds (every node but the anchor): the space taken */
static unsigned long rbtree_granules(void)
{
	struct rb_node *n;
	unsigned long g = 0;

	for (n = rb_first(&iovad.rbroot); n; n = rb_next(n))
		if (n != &iovad.anchor.node)
			g += iova_size(to_iova(n));
	return g;
}

/* the granules the rbtree holds now, under its lock (the depot's trim may run); the peak follows */
static unsigned long sample_held(void)
{
	unsigned long flags, g, peak;

	spin_lock_irqsave(&iovad.iova_rbtree_lock, flags);
	g = rbtree_granules();
	spin_unlock_irqrestore(&iovad.iova_rbtree_lock, flags);
	peak = __atomic_load_n(&held_peak, __ATOMIC_RELAXED);
	while (g > peak && !__atomic_compare_exchange_n(&held_peak, &peak, g, false, __ATOMIC_RELAXED,
							__ATOMIC_RELAXED))
		;
	return g;
}

/*
 * Workload k: the 32-bit space that 512-granule IOVAs can still have. First
 * 300 allocations and frees of each class size, so that a variant with
 * size classes sets them up (its kworker is given 200 ms), then K_SIZE
 * allocations below 4 GiB, without the rcache flush or the 64-bit retry,
 * until one fails. Returns their count; all are freed again.
 */
static unsigned long space32(struct hthread *t)
{
	static unsigned long warm[300], got[(1UL << 20) / K_SIZE + 1];
	unsigned long n = 0, i, size;
	u64 t0;

	for (size = 64; size <= 256; size *= 2) {
		for (i = 0; i < 300; i++)
			warm[i] = do_alloc(t, size);
		for (i = 0; i < 300; i++)
			do_free(t, warm[i], size);
		usleep(200000 / 3);
	}
	t->n_alloc = t->t_alloc = t->n_free = t->t_free = 0;
	memset(t->paths, 0, sizeof(t->paths));
	memset(t->lk, 0, sizeof(t->lk));
	for (;;) {
		unsigned long pfn;

		t->call_rbtree = t->call_depot = t->call_claims = 0;
		t0 = ticks();
		pfn = alloc_iova_fast(&iovad, K_SIZE, limit32, false);
		t->t_alloc += ticks() - t0;
		t->n_alloc++;
		if (!pfn)
			break;
		t->paths[t->call_rbtree ? P_RBTREE : P_BITMAP][order_of(K_SIZE)]++;
		if (cfg.check)
			shadow_take(pfn, K_SIZE, limit32);
		if (n == ARRAY_SIZE(got)) {
			failure("more 512-granule IOVAs below 4 GiB than fit in it");
			break;
		}
		got[n++] = pfn;
	}
	t->n_alloc--;
	for (i = 0; i < n; i++)
		do_free(t, got[i], K_SIZE);
	return n;
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

/* a thread: a pthread, or under simulation an agent (a virtual CPU, or free for the watchdog) */
struct spawned { void *(*fn)(void *); void *arg; };

#ifdef HARNESS_SIM
static void sim_start(void *p)
{
	struct spawned sp = *(struct spawned *)p;

	free(p);
	sp.fn(sp.arg);
}
#endif

static void spawn(pthread_t *tid, int *agent, void *(*fn)(void *), void *arg, int cpu, const char *name)
{
#ifdef HARNESS_SIM
	struct spawned *sp = malloc(sizeof(*sp));

	if (!sp) {
		perror("iova-harness: spawn");
		exit(2);
	}
	sp->fn = fn;
	sp->arg = arg;
	*agent = sim_spawn(sim_start, sp, cpu < 0 ? SIM_AGENT_FREE : SIM_AGENT_CPU, cpu < 0 ? 0 : cpu, name);
	(void)tid;
#else
	(void)agent;
	(void)cpu;
	(void)name;
	if (pthread_create(tid, NULL, fn, arg)) {
		perror("iova-harness: pthread_create");
		exit(2);
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

static void usage(void)
{
	fprintf(stderr,
		"usage: iova-harness [--variant NAME] [--workload a..k] [--threads N] [--seconds S]\n"
		"                    [--seed N] [--check 0|1] [--delay PERMILLE] [--watchdog S] [--warmup S]\n"
		"                    [--call-ns N] [--node-ns N] (under simulation only)\n"
		"Drives the variant's own alloc_iova_fast()/free_iova_fast() as dma-iommu does.\n"
		"Workloads: a same CPU, b cross CPU, c deferred free (flush queue), d sizes 1..64,\n"
		"e 40960 outstanding; above the rcache: f sizes 33..256, g 64 on the next CPU,\n"
		"h f's sizes behind the flush queue, i 512 of 64 outstanding, j 33..64 with a\n"
		"28-bit limit, k 512-granule IOVAs below 4 GiB counted until the first failure.\n"
		"Prints a RESULT line; exit 0 pass, 1 check failed, 2 bad input, 3 watchdog.\n");
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

#ifdef HARNESS_SIM
static int harness_main(int argc, char **argv)
#else
int main(int argc, char **argv)
#endif
{
	static const struct option opts[] = {
		{ "variant", 1, 0, 'v' }, { "workload", 1, 0, 'w' }, { "threads", 1, 0, 't' },
		{ "seconds", 1, 0, 's' }, { "seed", 1, 0, 'S' }, { "check", 1, 0, 'c' },
		{ "delay", 1, 0, 'd' }, { "watchdog", 1, 0, 'W' }, { "warmup", 1, 0, 'u' },
		{ "call-ns", 1, 0, 'C' }, { "node-ns", 1, 0, 'N' }, { 0, 0, 0, 0 }
	};
	pthread_t wd = 0, tm = 0, kw = 0;
	int wd_agent = -1, tm_agent = -1, kw_agent = -1;
	struct hthread *timer = NULL, *kworker;
	u64 allocs = 0, frees = 0, ta = 0, tf = 0, paths[P_NR] = { 0 }, words = 0, claims = 0, fbwords = 0;
	char byorder[2048];
	struct lockstat lk[LK_NR] = { 0 };
	unsigned long expect_nodes, nodes, held = 0, k_count = 0;
	double space_lost = 0;
	double secs;
	int o, i, p, c;

	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'v': cfg.variant = optarg; break;
		case 'w':
			if (strlen(optarg) != 1 || !strchr("abcdefghijk", optarg[0])) {
				fprintf(stderr, "iova-harness: --workload: '%s' is not one of a to k\n", optarg);
				exit(2);
			}
			cfg.workload = optarg[0];
			break;
		case 't': cfg.threads = (int)num_arg("--threads", optarg, 1, MAX_THREADS); break;
		case 's': cfg.seconds = dbl_arg("--seconds", optarg, 0.001, 3600); break;
		case 'S': cfg.seed = (unsigned long long)num_arg("--seed", optarg, 0, LONG_MAX); break;
		case 'c': cfg.check = (int)num_arg("--check", optarg, 0, 1); break;
		case 'd': cfg.delay_permille = (int)num_arg("--delay", optarg, 0, 1000); break;
		case 'W': cfg.watchdog_s = dbl_arg("--watchdog", optarg, 0.1, 3600); break;
		case 'u': cfg.warmup_s = dbl_arg("--warmup", optarg, 0, 60); break;
		case 'C': cfg.call_ns = (u64)num_arg("--call-ns", optarg, 0, 1000000); break;
		case 'N': cfg.node_ns = (u64)num_arg("--node-ns", optarg, 0, 1000000); break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
#ifdef HARNESS_SIM
	if (cfg.workload == 'k') {
		fprintf(stderr, "iova-harness: workload k counts address space, not time: run it natively\n");
		exit(2);
	}
	/* the workers, the flush-queue timer and the kworker each have a virtual CPU */
	if (cfg.threads + 2 > sim_cpus()) {
		fprintf(stderr, "iova-harness: %d threads need %d virtual CPUs; the profile has %d\n",
			cfg.threads, cfg.threads + 2, sim_cpus());
		exit(2);
	}
	sim_name(&iovad, sizeof(iovad), "iovad (rbtree lock, cached nodes)");
	sim_name(thr, sizeof(thr), "CPUs' own (MCS nodes, rings)");
#else
	if (cfg.call_ns || cfg.node_ns) {
		fprintf(stderr, "iova-harness: --call-ns and --node-ns apply under simulation only (tools/native/sim/build-iova)\n");
		exit(2);
	}
#endif

	calibrate();
	/* CPUs: the workers, then the flush-queue timer, then the kworker */
	harness_nr_cpus = cfg.threads + 2;
	for (i = 0; i < cfg.threads + 2; i++) {
		thr[i].id = i;
		thr[i].rng = cfg.seed * 0x9e3779b97f4a7c15ULL + (u64)i * 0x632be59bd9b4e019ULL + 1;
		spin_lock_init(&thr[i].fq_lock);
		if (cfg.workload == 'b' || cfg.workload == 'g')
			thr[i].ring = calloc(RING, sizeof(struct item));
		else if (cfg.workload == 'c' || cfg.workload == 'h')
			thr[i].ring = calloc(FQ_SIZE, sizeof(struct item));
	}
	self = &thr[0];
	set_cpu(0);
	if (cfg.check) {
		shadow = calloc(2 * SHADOW_PFNS / BITS_PER_LONG, sizeof(long));
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
#ifdef HARNESS_HAS_CLASSES
	/* as dma-iommu would: below 4 GiB; the classes are set up later, lazily */
	if (iova_domain_init_classes(&iovad, limit32)) {
		printf("FAIL: iova_domain_init_classes() failed\n");
		return 1;
	}
#endif
	kworker = &thr[cfg.threads + 1];
	spawn(&kw, &kw_agent, kworker_thread, kworker, cfg.threads + 1, "kworker");
	spawn(&wd, &wd_agent, watchdog_thread, NULL, -1, "watchdog");
	if (cfg.workload == 'k') {
		/* not timed: one CPU counts what the 32-bit space still holds */
		k_count = space32(&thr[0]);
		space_lost = 1.0 - (double)(k_count * K_SIZE) / (double)(limit32 + 1);
		timed_allocs[0] = thr[0].n_alloc;
		timed_t_alloc[0] = thr[0].t_alloc;
		timed_frees[0] = thr[0].n_free;
		timed_t_free[0] = thr[0].t_free;
		goto counted;
	}
	for (i = 0; i < cfg.threads; i++)
		spawn(&thr[i].tid, &thr[i].agent, cpu_thread, &thr[i], i, "cpu");
	while (__atomic_load_n(&ready, __ATOMIC_ACQUIRE) < cfg.threads)
		usleep(1000);
	if (cfg.workload == 'c' || cfg.workload == 'h') {
		timer = &thr[cfg.threads];
		spawn(&tm, &tm_agent, timer_thread, timer, cfg.threads, "fq timer");
	}
	__atomic_store_n(&go, 1, __ATOMIC_RELEASE);
	usleep((useconds_t)(cfg.warmup_s * 1e6));
	__atomic_store_n(&timing, 1, __ATOMIC_RELEASE);
	usleep((useconds_t)(cfg.seconds * 1e6));
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < cfg.threads; i++)
		join(thr[i].tid, thr[i].agent);
	if (timer)
		join(tm, tm_agent);
	/* the space the allocator holds at the end of the timed part, regions included */
	held = sample_held();

counted:
	pthread_mutex_lock(&sample_lock);
	sampling_over = 1;
	pthread_mutex_unlock(&sample_lock);
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
		fbwords += thr[i].fallback_words;
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
	set_cpu(0);
	for (i = 0; i < cfg.threads; i++)
		drain(&thr[i]);
	if (cfg.workload == 'b' || cfg.workload == 'g')
		for (i = 0; i < cfg.threads; i++)
			while (thr[i].ring_tail != thr[i].ring_head) {
				struct item it = thr[i].ring[thr[i].ring_tail % RING];

				do_free(&thr[0], it.pfn, it.size);
				thr[i].ring_tail++;
			}
	if (cfg.workload == 'c' || cfg.workload == 'h')
		for (i = 0; i < cfg.threads; i++)
			fq_free_all(&thr[i]);
	__atomic_store_n(&kworker_stop, 1, __ATOMIC_RELEASE);
	join(kw, kw_agent);
	/* each class set up is one region in the rbtree */
	expect_nodes += classes_set_up();
	if (cfg.check) {
		for (i = 0; i < (int)(2 * SHADOW_PFNS / BITS_PER_LONG); i++)
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
#ifdef HARNESS_HAS_CLASSES
	if (classes_used())
		failure("%u class slots still taken after every IOVA was freed", classes_used());
#endif
	{
		unsigned int ncls = classes_set_up();
		unsigned long cbytes = classes_bytes();

		/* before put_iova_domain() frees them */
		printf("classes: %u set up, %lu bytes\n", ncls, cbytes);
		classes_report_n = ncls;
		classes_report_bytes = cbytes;
	}
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
	join(wd, wd_agent);

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
	printf(" words_scanned=%llu fallback_words=%llu bits_claimed=%llu work_runs=%llu held_granules=%lu held_peak_granules=%lu classes=%u class_bytes=%lu",
	       (unsigned long long)words, (unsigned long long)fbwords, (unsigned long long)claims,
	       (unsigned long long)n_work_runs, held, __atomic_load_n(&held_peak, __ATOMIC_RELAXED), classes_report_n, classes_report_bytes);
	if (cfg.workload == 'k')
		printf(" k_allocs=%lu space32_lost=%.5f", k_count, space_lost);
#ifdef HARNESS_SIM
	printf(" clock=virtual call_ns=%llu node_ns=%llu ops_per_s_per_cpu=%.0f",
	       (unsigned long long)cfg.call_ns, (unsigned long long)cfg.node_ns,
	       (double)allocs / secs / cfg.threads);
#endif
	printf(" failures=%llu\n", (unsigned long long)n_failures);
	if (n_failures)
		printf("FAILED: %llu check(s) failed\n", (unsigned long long)n_failures);
	return n_failures ? 1 : 0;
}

#ifdef HARNESS_SIM
int main(int argc, char **argv)
{
	return sim_main(argc, argv, harness_main);
}
#endif
