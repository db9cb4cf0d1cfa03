/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel primitives for the native cmdq harness, on GCC's C11 atomics with
 * the kernel's ordering, in the way tools/testing/vma/vma_internal.h stands
 * in for the headers mm/vma.c includes. The code under test is the tree's
 * own (tools/native/extract); only what it calls is defined here.
 *
 * Every primitive that touches shared state, waits or changes the interrupt
 * state is a "point": harness_point() records where the thread is (for the
 * watchdog), may inject a delay (seeded), may hold the thread (schedule
 * mode), counts retries and lock acquisitions, and runs a pending GERROR
 * handler when this thread is the IRQ CPU and its interrupts are on.
 *
 * Three builds of the one shim:
 *  - the stress build (the default): every point as above;
 *  - HARNESS_CLEAN (make bench-native): no point at all. The atomics are
 *    plain C11 atomics with the kernel's orderings, and nothing is called,
 *    delayed or counted per access except the per-thread statistics;
 *  - HARNESS_SIM (make sim): every point also tells the simulation
 *    (tools/native/sim) what it touches, SIMA() before the access, with
 *    its address, and SIMW() where the code waits.
 *
 * With HARNESS_TSAN, every atomic is sequentially consistent and the MMIO
 * accessors are release/acquire. GCC's ThreadSanitizer does not model
 * fences, so the kernel's barriers (dma_wmb(), the control dependencies the
 * driver relies on) would show as races on the queue entries; making every
 * atomic an ordering operation leaves TSan to find plain accesses that no
 * atomic protocol orders at all. Weak-memory reorderings are the litmus
 * tests' job, not this harness's (an x86 host keeps stores in order).
 */
#ifndef HARNESS_SHIM_H
#define HARNESS_SHIM_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;
typedef uint64_t __le64;
typedef uint32_t __le32;
typedef uint64_t dma_addr_t;
typedef int64_t ktime_t;

#define __iomem
#define __force
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define SMP_CACHE_BYTES 64
#define ____cacheline_aligned_in_smp __attribute__((aligned(SMP_CACHE_BYTES)))
#define BITS_PER_LONG 64
#define BIT(n) (1UL << (n))
#define BIT_ULL(n) (1ULL << (n))
#define BIT_WORD(n) ((n) / BITS_PER_LONG)
#define GENMASK(h, l) (((~0UL) - (1UL << (l)) + 1) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define GENMASK_ULL(h, l) (((~0ULL) - (1ULL << (l)) + 1) & (~0ULL >> (63 - (h))))
#define __bf_shf(x) (__builtin_ffsll(x) - 1)
#define FIELD_PREP(mask, val) (((u64)(val) << __bf_shf(mask)) & (mask))
#define FIELD_GET(mask, reg) ((__typeof__(mask))(((reg) & (mask)) >> __bf_shf(mask)))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp_t(t, v, lo, hi) min_t(t, max_t(t, v, lo), hi)
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#if defined(HARNESS_CLEAN) && defined(HARNESS_SIM)
#error "HARNESS_CLEAN and HARNESS_SIM exclude each other"
#endif
#ifdef HARNESS_SIM
#include "sim.h"
#define SIMA(kind, addr, op) sim_access(kind, (const void *)(addr), op)
#define SIMW(kind, ns, op) sim_wait(kind, ns, op)
/*
 * A queue entry is written by the driver's queue_write() through
 * cpu_to_le64(), which has no address. tools/native/sim/build renames the
 * driver's own function to driver_queue_write(), and every call of it
 * comes here: one store per cache line the entry touches, then the
 * driver's code.
 */
#define queue_write(dst, src, n) \
	(sim_store_range((dst), (n) * sizeof(__le64), "queue_write"), driver_queue_write((dst), (src), (n)))
#else
#define SIMA(kind, addr, op) ((void)0)
#define SIMW(kind, ns, op) ((void)0)
#endif
#define cpu_to_le64(x) ({ HP("cpu_to_le64", "a queue entry being written"); (x); })
#define le64_to_cpu(x) (x)
/* the hosts are little-endian, as the SMMU writes a CMD_SYNC's MSI data */
#define cpu_to_le32(x) ((__le32)(x))
#define le32_to_cpu(x) ((u32)(x))
#define WARN_ON_ONCE(c) harness_warn(!!(c), #c, __func__)
#define WARN_ON(c) harness_warn(!!(c), #c, __func__)

/* --- the harness's hooks (cmdq-harness.c) --- */
enum harness_stat { ST_CMPXCHG, ST_CMPXCHG_FAIL, ST_TRYLOCK, ST_TRYLOCK_FAIL, ST_LOCK, ST_NR };
void harness_point(const char *op, const char *func, const char *what);
void harness_stat(enum harness_stat s);
unsigned long harness_irq_save(const char *func);
void harness_irq_restore(unsigned long flags, const char *func);
void harness_udelay(unsigned long us, const char *func);
int harness_warn(int cond, const char *what, const char *func);
unsigned int harness_possible_cpus(void);
/* symbols the driver exports for its KUnit module: nothing to export here */
#define EXPORT_SYMBOL_IF_KUNIT(sym) extern int harness_no_export

#ifdef HARNESS_CLEAN
#define HP(op, what) ((void)0)
#else
#define HP(op, what) harness_point(op, __func__, what)
#endif

#ifdef HARNESS_TSAN
#define MO_RLX __ATOMIC_SEQ_CST
#define MO_ACQ __ATOMIC_SEQ_CST
#define MO_REL __ATOMIC_SEQ_CST
#else
#define MO_RLX __ATOMIC_RELAXED
#define MO_ACQ __ATOMIC_ACQUIRE
#define MO_REL __ATOMIC_RELEASE
#endif

/* points after loads and before stores, so that the window between them can be widened or held */
#define READ_ONCE(x) ({ __typeof__(x) __v; SIMA(SIM_LOAD, &(x), "READ_ONCE"); __v = __atomic_load_n(&(x), MO_RLX); \
	TSAN_SYNC(); HP("READ_ONCE", #x); __v; })
#define WRITE_ONCE(x, v) do { HP("WRITE_ONCE", #x); SIMA(SIM_STORE, &(x), "WRITE_ONCE"); TSAN_SYNC(); \
	__atomic_store_n(&(x), (v), MO_RLX); } while (0)

/*
 * Barriers: fences. GCC's TSan supports no fence at all; under HARNESS_TSAN
 * a barrier is a sequentially consistent RMW of one shared word, which TSan
 * does model (it orders more than the fence would: every barrier with every
 * other).
 */
#ifdef HARNESS_TSAN
extern int harness_fence_word;
#define __atomic_thread_fence(mo) ((void)__atomic_fetch_add(&harness_fence_word, 0, __ATOMIC_SEQ_CST))
/*
 * The driver reaches the same bytes through different sizes: cons is
 * stored as a u32 (WRITE_ONCE(llq.cons)) and read back as part of the
 * u64 llq.val, and the owned flag is cleared by a 32-bit RMW on the word a
 * 64-bit cmpxchg() claims. TSan synchronises per address and size, so it
 * would see no ordering there. Every store and RMW is therefore preceded,
 * and every load and RMW followed, by an RMW of the one shared word: a
 * value seen through any alias then carries its writer's history.
 */
#define TSAN_SYNC() ((void)__atomic_fetch_add(&harness_fence_word, 0, __ATOMIC_SEQ_CST))
#else
#define TSAN_SYNC() ((void)0)
#endif
#define barrier() __asm__ __volatile__("" ::: "memory")
#define smp_mb() do { HP("smp_mb", ""); SIMA(SIM_FENCE, NULL, "smp_mb"); __atomic_thread_fence(__ATOMIC_SEQ_CST); } while (0)
#define smp_rmb() do { HP("smp_rmb", ""); SIMA(SIM_FENCE, NULL, "smp_rmb"); __atomic_thread_fence(__ATOMIC_ACQUIRE); } while (0)
#define smp_wmb() do { HP("smp_wmb", ""); SIMA(SIM_FENCE, NULL, "smp_wmb"); __atomic_thread_fence(__ATOMIC_RELEASE); } while (0)
#define dma_wmb() do { HP("dma_wmb", ""); SIMA(SIM_FENCE, NULL, "dma_wmb"); __atomic_thread_fence(__ATOMIC_RELEASE); } while (0)
#define dma_rmb() do { HP("dma_rmb", ""); SIMA(SIM_FENCE, NULL, "dma_rmb"); __atomic_thread_fence(__ATOMIC_ACQUIRE); } while (0)
#define wmb() do { HP("wmb", ""); SIMA(SIM_FENCE, NULL, "wmb"); __atomic_thread_fence(__ATOMIC_SEQ_CST); } while (0)
#define rmb() do { HP("rmb", ""); SIMA(SIM_FENCE, NULL, "rmb"); __atomic_thread_fence(__ATOMIC_SEQ_CST); } while (0)
#define mb() do { HP("mb", ""); SIMA(SIM_FENCE, NULL, "mb"); __atomic_thread_fence(__ATOMIC_SEQ_CST); } while (0)
#define __iomb() do { HP("__iomb", ""); SIMA(SIM_FENCE, NULL, "__iomb"); __atomic_thread_fence(__ATOMIC_SEQ_CST); } while (0)
#define smp_mb__before_atomic() smp_mb()
#define smp_mb__after_atomic() smp_mb()

/* Atomics */
typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;
typedef struct { s64 counter; } atomic64_t;

#ifdef HARNESS_CLEAN
#define POINT_AT(op, f, w) ((void)(f), (void)(w))
#else
#define POINT_AT(op, f, w) harness_point(op, f, w)
#endif
#define ATOMIC_OPS(pfx, T, t)							\
static inline T pfx##_read_at(const t *v, const char *f, const char *w) \
	{ T r; SIMA(SIM_LOAD, &v->counter, #pfx "_read"); r = __atomic_load_n(&v->counter, MO_RLX); TSAN_SYNC(); \
	  POINT_AT(#pfx "_read", f, w); return r; } \
static inline T pfx##_read_acquire(const t *v) \
	{ T r; SIMA(SIM_LOAD, &v->counter, #pfx "_read_acquire"); r = __atomic_load_n(&v->counter, MO_ACQ); TSAN_SYNC(); return r; } \
static inline void pfx##_set(t *v, T i) \
	{ SIMA(SIM_STORE, &v->counter, #pfx "_set"); TSAN_SYNC(); __atomic_store_n(&v->counter, i, MO_RLX); } \
static inline void pfx##_set_release(t *v, T i) \
	{ SIMA(SIM_STORE, &v->counter, #pfx "_set_release"); TSAN_SYNC(); __atomic_store_n(&v->counter, i, MO_REL); }

ATOMIC_OPS(atomic, int, atomic_t)
ATOMIC_OPS(atomic_long, long, atomic_long_t)
ATOMIC_OPS(atomic64, s64, atomic64_t)
/* atomic_read() is a point, with the caller's function and argument */
#define atomic_read(v) atomic_read_at(v, __func__, #v)
#define atomic_long_read(v) atomic_long_read_at(v, __func__, #v)
#define atomic64_read(v) atomic64_read_at(v, __func__, #v)

/* value-returning RMW, with a point before it */
#define __RMW(name, builtin, mo, v, i)					\
	({								\
		__typeof__((v)->counter) __r;				\
		HP(name, #v);						\
		SIMA(SIM_RMW, &(v)->counter, name);			\
		TSAN_SYNC();						\
		__r = builtin(&(v)->counter, (i), mo);			\
		TSAN_SYNC();						\
		__r;							\
	})
#define atomic_set_release(v, i) ({ HP("atomic_set_release", #v); SIMA(SIM_STORE, &(v)->counter, "atomic_set_release"); TSAN_SYNC(); __atomic_store_n(&(v)->counter, (i), MO_REL); })
#define atomic_fetch_add_relaxed(i, v) __RMW("atomic_fetch_add", __atomic_fetch_add, MO_RLX, v, i)
#define atomic_fetch_inc_relaxed(v) __RMW("atomic_fetch_inc", __atomic_fetch_add, MO_RLX, v, 1)
#define atomic_fetch_andnot_relaxed(i, v) __RMW("atomic_fetch_andnot", __atomic_fetch_and, MO_RLX, v, ~(i))
#define atomic_fetch_andnot_release(i, v) __RMW("atomic_fetch_andnot", __atomic_fetch_and, MO_REL, v, ~(i))
#define atomic_dec_return_release(v) (__RMW("atomic_dec_return", __atomic_fetch_sub, MO_REL, v, 1) - 1)
#define atomic_add_return_relaxed(i, v) (__RMW("atomic_add_return", __atomic_fetch_add, MO_RLX, v, i) + (i))
#define atomic_long_xor(i, v) ((void)__RMW("atomic_long_xor", __atomic_fetch_xor, MO_RLX, v, i))
#define atomic64_fetch_add_relaxed(i, v) __RMW("atomic64_fetch_add", __atomic_fetch_add, MO_RLX, v, i)
#define atomic64_fetch_and_relaxed(i, v) __RMW("atomic64_fetch_and", __atomic_fetch_and, MO_RLX, v, i)
#define atomic64_fetch_andnot_relaxed(i, v) __RMW("atomic64_fetch_andnot", __atomic_fetch_and, MO_RLX, v, ~(i))
#define atomic64_add_return_relaxed(i, v) (__RMW("atomic64_add_return", __atomic_fetch_add, MO_RLX, v, i) + (i))
#define atomic64_fetch_add(i, v) __RMW("atomic64_fetch_add", __atomic_fetch_add, __ATOMIC_SEQ_CST, v, i)
#define atomic64_fetch_and(i, v) __RMW("atomic64_fetch_and", __atomic_fetch_and, __ATOMIC_SEQ_CST, v, i)

/*
 * cmpxchg() on a queue word counts as a claim attempt; atomic_cmpxchg() on
 * the cmdq lock (its exclusive trylock) is counted apart.
 */
#define __CMPXCHG(name, st, ptr, o, n, mo)				\
	({								\
		__typeof__(*(ptr)) __old = (o);				\
		HP(name, #ptr);						\
		SIMA(SIM_RMW, (ptr), name);				\
		harness_stat(st);					\
		TSAN_SYNC();						\
		if (!__atomic_compare_exchange_n((ptr), &__old, (n), false, mo, MO_RLX)) \
			harness_stat((enum harness_stat)((st) + 1));	\
		TSAN_SYNC();						\
		__old;							\
	})
#define cmpxchg_relaxed(ptr, o, n) __CMPXCHG("cmpxchg", ST_CMPXCHG, ptr, o, n, MO_RLX)
#define cmpxchg(ptr, o, n) __CMPXCHG("cmpxchg", ST_CMPXCHG, ptr, o, n, __ATOMIC_SEQ_CST)
#define atomic_cmpxchg_relaxed(v, o, n) __CMPXCHG("atomic_cmpxchg", ST_TRYLOCK, &(v)->counter, o, n, MO_RLX)
#define atomic64_cmpxchg_relaxed(v, o, n) __CMPXCHG("atomic64_cmpxchg", ST_CMPXCHG, &(v)->counter, o, n, MO_RLX)
#define atomic_long_cmpxchg_relaxed(v, o, n) __CMPXCHG("atomic_long_cmpxchg", ST_CMPXCHG, &(v)->counter, o, n, MO_RLX)
/* try_cmpxchg(): the kernel's form, which updates *old when it fails */
#define __TRY_CMPXCHG(name, st, ptr, po, n, mo)				\
	({								\
		__typeof__(*(ptr)) __t_o = *(po);			\
		__typeof__(*(ptr)) __t_r =				\
			__CMPXCHG(name, st, ptr, __t_o, n, mo);		\
		if (__t_r != __t_o)					\
			*(po) = __t_r;					\
		__t_r == __t_o;						\
	})
#define atomic64_try_cmpxchg_relaxed(v, po, n) __TRY_CMPXCHG("atomic64_try_cmpxchg", ST_CMPXCHG, &(v)->counter, po, n, MO_RLX)

/* Waits: a point on every turn, with the expression it waits for */
#define __COND_LOAD(name, ptr, cond, mo)				\
	({								\
		__typeof__(*(ptr)) VAL;					\
		for (;;) {						\
			SIMA(SIM_LOAD, (ptr), name);			\
			VAL = __atomic_load_n((ptr), mo);		\
			TSAN_SYNC();					\
			if (cond)					\
				break;					\
			HP(name, #ptr ": " #cond);			\
			SIMW(SIM_W_RELAX, 0, name);			\
		}							\
		VAL;							\
	})
#define smp_cond_load_relaxed(ptr, cond) __COND_LOAD("smp_cond_load", ptr, cond, MO_RLX)
#define smp_cond_load_acquire(ptr, cond) __COND_LOAD("smp_cond_load", ptr, cond, MO_ACQ)
#define atomic_cond_read_relaxed(v, c) __COND_LOAD("atomic_cond_read", &(v)->counter, c, MO_RLX)
#define atomic_cond_read_acquire(v, c) __COND_LOAD("atomic_cond_read", &(v)->counter, c, MO_ACQ)
#define atomic_long_cond_read_relaxed(v, c) __COND_LOAD("atomic_long_cond_read", &(v)->counter, c, MO_RLX)
#define atomic64_cond_read_relaxed(v, c) __COND_LOAD("atomic64_cond_read", &(v)->counter, c, MO_RLX)

/* MMIO: the registers are words in memory that the fake SMMU reads and writes */
/*
 * readl() is ordered after the load, writel() before the store; the
 * _relaxed forms are not. An x86 host orders them all the same, so the
 * harness cannot show a missing barrier (the litmus tests are for that).
 */
#define readl_relaxed(a) ({ u32 __r; SIMA(SIM_MMIO_R, (a), "readl"); __r = __atomic_load_n((a), MO_RLX); TSAN_SYNC(); \
	HP("readl", #a); __r; })
#define readl(a) ({ u32 __r; SIMA(SIM_MMIO_R, (a), "readl"); __r = __atomic_load_n((a), __ATOMIC_ACQUIRE); TSAN_SYNC(); \
	HP("readl", #a); __r; })
#define writel_relaxed(v, a) do { HP("writel", #a); SIMA(SIM_MMIO_W, (a), "writel"); TSAN_SYNC(); \
	__atomic_store_n((a), (v), MO_RLX); } while (0)
#define writel(v, a) do { HP("writel", #a); SIMA(SIM_MMIO_W, (a), "writel"); TSAN_SYNC(); \
	__atomic_store_n((a), (v), __ATOMIC_RELEASE); } while (0)

/* CPU and interrupts */
#define cpu_relax() do { HP("cpu_relax", ""); SIMW(SIM_W_RELAX, 0, "cpu_relax"); } while (0)
#define wfe() do { HP("wfe", ""); SIMW(SIM_W_WFE, 0, "wfe"); } while (0)
#define udelay(us) harness_udelay(us, __func__)
#define local_irq_save(flags) do { (flags) = harness_irq_save(__func__); } while (0)
#define local_irq_restore(flags) harness_irq_restore(flags, __func__)
#define num_possible_cpus() harness_possible_cpus()
#define nr_cpu_ids harness_possible_cpus()
unsigned int harness_cpu_id(void);	/* the IRQ thread counts as CPU 0 */
#define raw_smp_processor_id() harness_cpu_id()
#define smp_processor_id() harness_cpu_id()

/* spinlock (the cmdq-spinlock bench variant) */
#ifdef HARNESS_SIM
/*
 * Under simulation, arm64's lock: a queued spinlock (qspinlock), in the
 * shape that decides its cost. One word holds the locked bit and the queue's
 * tail. An uncontended lock is one cmpxchg. A contended one appends the
 * CPU's own node (a cache line of its own) with an RMW on the tail; the
 * CPU spins on its node until it is the queue's head; the head alone spins
 * on the lock word until the holder's store releases it, takes it, and
 * makes its successor the head with one store to that node. So a
 * hand-off moves the lock word to the head and one node line to the next,
 * and waiters behind the head touch nothing shared. Not modelled:
 * qspinlock's pending bit, which spares the first waiter the queue.
 * The test-and-set loop below (make stress) would have every waiter
 * hammer the lock word, which is not what a kernel does.
 */
struct harness_mcs {
	struct harness_mcs *next;
	int locked;
} __attribute__((aligned(64)));
typedef struct { uintptr_t val; } spinlock_t;	/* bit 0: locked; the rest: the tail node */
struct harness_mcs *harness_mcs_node(void);	/* the running CPU's own */
#define spin_lock_init(l) ((l)->val = 0)
/* under simulation a memory operation between two points runs alone: plain C is atomic here */
static inline void harness_spin_lock(spinlock_t *l)
{
	struct harness_mcs *me = harness_mcs_node(), *prev;
	uintptr_t v;

	HP("spin_lock", "");
	SIMA(SIM_RMW, &l->val, "spin_lock");
	if (!l->val) {
		l->val = 1;
		harness_stat(ST_LOCK);
		return;
	}
	SIMA(SIM_STORE, me, "spin_lock");
	me->next = NULL;
	me->locked = 0;
	SIMA(SIM_RMW, &l->val, "spin_lock");
	v = l->val;
	l->val = (v & 1) | (uintptr_t)me;
	prev = (struct harness_mcs *)(v & ~(uintptr_t)1);
	if (prev) {
		SIMA(SIM_STORE, &prev->next, "spin_lock");
		prev->next = me;
		for (;;) {	/* behind the head: on its own node */
			SIMA(SIM_LOAD, &me->locked, "spin_lock_wait");
			if (me->locked)
				break;
			HP("spin_lock_wait", "");
			SIMW(SIM_W_RELAX, 0, "spin_lock_wait");
		}
	}
	for (;;) {	/* the head: on the lock word */
		SIMA(SIM_LOAD, &l->val, "spin_lock_wait");
		if (!(l->val & 1))
			break;
		HP("spin_lock_wait", "");
		SIMW(SIM_W_RELAX, 0, "spin_lock_wait");
	}
	SIMA(SIM_RMW, &l->val, "spin_lock");
	if ((l->val & ~(uintptr_t)1) == (uintptr_t)me) {
		l->val = 1;	/* the last in the queue: clear the tail */
	} else {
		l->val |= 1;
		for (;;) {	/* the successor is linking itself in */
			SIMA(SIM_LOAD, &me->next, "spin_lock_wait");
			if (me->next)
				break;
			SIMW(SIM_W_RELAX, 0, "spin_lock_wait");
		}
		SIMA(SIM_STORE, &me->next->locked, "spin_lock");
		me->next->locked = 1;
	}
	harness_stat(ST_LOCK);
}
static inline void harness_spin_unlock(spinlock_t *l)
{
	HP("spin_unlock", "");
	SIMA(SIM_STORE, &l->val, "spin_unlock");
	l->val &= ~(uintptr_t)1;
}
/* a qspinlock is locked, or has waiters queued, when its word is not 0 */
static inline int harness_spin_is_locked(spinlock_t *l)
{
	HP("spin_is_locked", "");
	SIMA(SIM_LOAD, &l->val, "spin_is_locked");
	return l->val != 0;
}
#define spin_lock(l) harness_spin_lock(l)
#define spin_unlock(l) harness_spin_unlock(l)
#define spin_is_locked(l) harness_spin_is_locked(l)
#else
typedef struct { int locked; } spinlock_t;
#define spin_lock_init(l) __atomic_store_n(&(l)->locked, 0, MO_RLX)
#define spin_lock(l)								\
	do {									\
		HP("spin_lock", #l);						\
		while (__atomic_exchange_n(&(l)->locked, 1, MO_ACQ))		\
			HP("spin_lock_wait", #l);				\
		harness_stat(ST_LOCK);						\
	} while (0)
#define spin_unlock(l) do { HP("spin_unlock", #l); __atomic_store_n(&(l)->locked, 0, MO_REL); } while (0)
#define spin_is_locked(l) ({ HP("spin_is_locked", #l); __atomic_load_n(&(l)->locked, MO_RLX) != 0; })
#endif
/*
 * raw spinlocks, which code that runs with interrupts off must take (a
 * spinlock_t sleeps under PREEMPT_RT): the same lock here, where nothing
 * is preempted
 */
typedef spinlock_t raw_spinlock_t;
#define raw_spin_lock_init(l) spin_lock_init(l)
#define raw_spin_lock(l) spin_lock(l)
#define raw_spin_unlock(l) spin_unlock(l)
#define raw_spin_is_locked(l) spin_is_locked(l)

/* time */
ktime_t harness_ktime_get(void);
#define ktime_get() harness_ktime_get()
#define ktime_add_us(t, us) ((t) + (ktime_t)(us) * 1000)
#define ktime_compare(a, b) ((a) < (b) ? -1 : (a) > (b) ? 1 : 0)

#endif
