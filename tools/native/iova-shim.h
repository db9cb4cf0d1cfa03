/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel primitives for the native iova harness (iova-harness.c). The code
 * under test is the variant's own rbtree, sbitmap and iova code, taken by
 * tools/native/extract --unit iova; this file defines only what that code
 * calls, the way tools/testing/vma/vma_internal.h stands in for mm/vma.c's
 * headers.
 *
 *  - A "CPU" is a harness thread: smp_processor_id() is the thread's own
 *    number, and per-CPU data is one cache-line-aligned copy per thread.
 *    A thread never migrates, as code under a spinlock or with preemption
 *    off never does.
 *  - Spinlocks are test-and-set locks that count, per lock class (the
 *    rbtree lock, a CPU's rcache lock, the depot lock, a bitmap word's
 *    swap_lock), acquisitions, contended acquisitions, hold and wait time.
 *    The class is found once per call site from the lock's expression.
 *  - Interrupts do not exist: the *_irqsave forms only lock.
 *  - kmem_cache, kmalloc and kvmalloc are malloc, with live-object counts
 *    for the leak check.
 *  - Work and delayed work run on a harness kworker thread after their
 *    delay (schedule_work, schedule_delayed_work and their cancel_*_sync),
 *    as the depot trim and the size classes' set-up do in the kernel.
 *
 * Under HARNESS_SIM (tools/native/sim/build-iova) the threads are virtual
 * CPUs of the simulation (tools/native/sim/sim.c): every shared access
 * below tells it the address first (SIMA), a spinlock is a queued lock as
 * arm64's, and a CPU is the running agent's own number.
 */
#ifndef HARNESS_IOVA_SHIM_H
#define HARNESS_IOVA_SHIM_H

#include <errno.h>
#include <limits.h>
#include <pthread.h>
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
typedef uint64_t dma_addr_t;
typedef uint64_t phys_addr_t;
typedef unsigned int gfp_t;

#define __percpu
#define __read_mostly
#define __init
#define __exit
#define __must_check
#define __maybe_unused __attribute__((unused))
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define noinline __attribute__((noinline))
#define SMP_CACHE_BYTES 64
#define ____cacheline_aligned_in_smp __attribute__((aligned(SMP_CACHE_BYTES)))
#define ____cacheline_aligned __attribute__((aligned(SMP_CACHE_BYTES)))
#define cache_line_size() SMP_CACHE_BYTES
#define BITS_PER_LONG 64
#define BIT(n) (1UL << (n))
#define BIT_MASK(nr) (1UL << ((nr) % BITS_PER_LONG))
#define BIT_WORD(n) ((n) / BITS_PER_LONG)
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
#define swap(a, b) do { __typeof__(a) __t = (a); (a) = (b); (b) = __t; } while (0)
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define BUILD_BUG_ON(c) _Static_assert(!(c), #c)
#define SZ_64M 0x04000000UL
#define SZ_256M 0x10000000UL
#define PAGE_SIZE 4096UL
#define NUMA_NO_NODE (-1)
#define DMA_BIT_MASK(n) (((n) == 64) ? ~0ULL : ((1ULL << (n)) - 1))
#define GFP_KERNEL 0u
#define GFP_ATOMIC 1u
#define GFP_NOWAIT 2u
#define __GFP_NOWARN 0x100u
#define SLAB_HWCACHE_ALIGN 1u
#define HZ 1000
#define msecs_to_jiffies(ms) ((unsigned long)(ms))

/* symbols the code exports: nothing to export here */
#define EXPORT_SYMBOL(sym) extern int harness_no_export
#define EXPORT_SYMBOL_GPL(sym) extern int harness_no_export
#define EXPORT_SYMBOL_IF_KUNIT(sym) extern int harness_no_export
#define VISIBLE_IF_KUNIT static
#define MODULE_AUTHOR(x) extern int harness_no_export
#define MODULE_DESCRIPTION(x) extern int harness_no_export
#define MODULE_LICENSE(x) extern int harness_no_export

/* --- the harness's hooks (iova-harness.c) --- */
int harness_warn(int cond, const char *what, const char *func, int line);
void harness_bug(const char *what, const char *func, int line) __attribute__((noreturn));
void harness_log(const char *func, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define WARN_ON(c) harness_warn(!!(c), #c, __func__, __LINE__)
#define WARN_ON_ONCE(c) WARN_ON(c)
#define WARN(c, ...) harness_warn(!!(c), #c, __func__, __LINE__)
#define WARN_ONCE(c, ...) harness_warn(!!(c), #c, __func__, __LINE__)
#define BUG_ON(c) do { if (c) harness_bug(#c, __func__, __LINE__); } while (0)
#define pr_err(...) harness_log(__func__, __VA_ARGS__)
#define pr_warn(...) harness_log(__func__, __VA_ARGS__)
#define pr_info(...) harness_log(__func__, __VA_ARGS__)
#define pr_notice(...) harness_log(__func__, __VA_ARGS__)

/* --- memory ordering, on GCC's C11 atomics (x86 and arm64 hosts) --- */
#ifdef HARNESS_SIM
#include "sim.h"
#define SIMA(kind, addr, op) sim_access(kind, (const void *)(addr), op)
#else
#define SIMA(kind, addr, op) ((void)0)
#endif
/* a shared access: the simulation hears of it first (nothing without it) */
#define __HS(kind, addr, op, expr) (SIMA(kind, addr, op), (expr))
#define barrier() __asm__ __volatile__("" ::: "memory")
#define READ_ONCE(x) __HS(SIM_LOAD, &(x), "READ_ONCE", __atomic_load_n(&(x), __ATOMIC_RELAXED))
#define WRITE_ONCE(x, v) __HS(SIM_STORE, &(x), "WRITE_ONCE", __atomic_store_n(&(x), (v), __ATOMIC_RELAXED))
#define data_race(x) (x)
#ifdef HARNESS_TSAN
/* GCC's ThreadSanitizer models no fence: a barrier is an RMW of one shared word */
extern int harness_fence_word;
#define __hfence(mo) ((void)__atomic_fetch_add(&harness_fence_word, 0, __ATOMIC_SEQ_CST))
#else
#define __hfence(mo) __HS(SIM_FENCE, NULL, "smp_mb", __atomic_thread_fence(mo))
#endif
#define smp_mb() __hfence(__ATOMIC_SEQ_CST)
#define smp_rmb() __hfence(__ATOMIC_ACQUIRE)
#define smp_wmb() __hfence(__ATOMIC_RELEASE)
#define smp_mb__before_atomic() smp_mb()
#define smp_mb__after_atomic() smp_mb()
#define xchg(p, v) __HS(SIM_RMW, (p), "xchg", __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST))

typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;
#define atomic_read(v) __HS(SIM_LOAD, &(v)->counter, "atomic_read", __atomic_load_n(&(v)->counter, __ATOMIC_RELAXED))
#define atomic_set(v, i) __HS(SIM_STORE, &(v)->counter, "atomic_set", __atomic_store_n(&(v)->counter, (i), __ATOMIC_RELAXED))
#define atomic_inc(v) __HS(SIM_RMW, &(v)->counter, "atomic_inc", (void)__atomic_fetch_add(&(v)->counter, 1, __ATOMIC_RELAXED))
#define atomic_dec(v) __HS(SIM_RMW, &(v)->counter, "atomic_dec", (void)__atomic_fetch_sub(&(v)->counter, 1, __ATOMIC_RELAXED))
#define atomic_inc_return_relaxed(v) \
	__HS(SIM_RMW, &(v)->counter, "atomic_inc_return", __atomic_fetch_add(&(v)->counter, 1, __ATOMIC_RELAXED) + 1)
/* fully ordered when it decrements, as the kernel's */
static inline int atomic_dec_if_positive(atomic_t *v)
{
	int c = (SIMA(SIM_RMW, &v->counter, "atomic_dec_if_positive"), __atomic_load_n(&v->counter, __ATOMIC_RELAXED));

	do {
		if (c <= 0)
			return c - 1;
	} while (!__atomic_compare_exchange_n(&v->counter, &c, c - 1, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	return c - 1;
}
#define smp_store_release(p, v) __HS(SIM_STORE, (p), "smp_store_release", __atomic_store_n((p), (v), __ATOMIC_RELEASE))
#define smp_load_acquire(p) __HS(SIM_LOAD, (p), "smp_load_acquire", __atomic_load_n((p), __ATOMIC_ACQUIRE))
#define atomic_long_andnot(i, v) \
	__HS(SIM_RMW, &(v)->counter, "atomic_long_andnot", (void)__atomic_fetch_and(&(v)->counter, ~(long)(i), __ATOMIC_RELAXED))

/* bit operations: the atomic ones are atomic, as in the kernel */
#define __HB(nr, addr) (&(addr)[BIT_WORD(nr)])
#define set_bit(nr, addr) \
	__HS(SIM_RMW, __HB(nr, addr), "set_bit", (void)__atomic_fetch_or(__HB(nr, addr), BIT_MASK(nr), __ATOMIC_RELAXED))
#define clear_bit(nr, addr) \
	__HS(SIM_RMW, __HB(nr, addr), "clear_bit", (void)__atomic_fetch_and(__HB(nr, addr), ~BIT_MASK(nr), __ATOMIC_RELAXED))
#define clear_bit_unlock(nr, addr) \
	__HS(SIM_RMW, __HB(nr, addr), "clear_bit_unlock", (void)__atomic_fetch_and(__HB(nr, addr), ~BIT_MASK(nr), __ATOMIC_RELEASE))
#define test_bit(nr, addr) \
	__HS(SIM_LOAD, __HB(nr, addr), "test_bit", (__atomic_load_n(__HB(nr, addr), __ATOMIC_RELAXED) >> ((nr) % BITS_PER_LONG)) & 1)
bool harness_claimed(bool was_set);
#define test_and_set_bit_lock(nr, addr) \
	__HS(SIM_RMW, __HB(nr, addr), "test_and_set_bit_lock", \
	     harness_claimed((__atomic_fetch_or(__HB(nr, addr), BIT_MASK(nr), __ATOMIC_ACQUIRE) & BIT_MASK(nr)) != 0))
unsigned long harness_find_next_zero_bit(const unsigned long *addr, unsigned long size, unsigned long offset);
#define find_next_zero_bit(addr, size, off) harness_find_next_zero_bit(addr, size, off)
#define hweight_long(w) ((unsigned int)__builtin_popcountl(w))
#define bitmap_weight(addr, nbits) ((unsigned int)__builtin_popcountl(*(addr) & (~0UL >> (BITS_PER_LONG - (nbits)))))

static inline int fls_long(unsigned long x) { return x ? BITS_PER_LONG - __builtin_clzl(x) : 0; }
static inline unsigned long __ffs(unsigned long x) { return __builtin_ctzl(x); }
static inline unsigned long __fls(unsigned long x) { return BITS_PER_LONG - 1 - __builtin_clzl(x); }
#define ilog2(n) ((int)__fls((unsigned long)(n)))
static inline bool is_power_of_2(unsigned long n) { return n != 0 && (n & (n - 1)) == 0; }
static inline unsigned long roundup_pow_of_two(unsigned long n) { return 1UL << fls_long(n - 1); }
static inline unsigned long rounddown_pow_of_two(unsigned long n) { return 1UL << __fls(n); }
#define do_div(n, base) ({ u32 __rem = (u32)((n) % (base)); (n) /= (base); __rem; })
#define order_base_2(n) ((n) > 1 ? ilog2((n) - 1) + 1 : 0)

/* --- CPUs --- */
#ifdef HARNESS_SIM
int harness_sim_cpu(void);	/* the running agent's CPU */
#define harness_cpu harness_sim_cpu()
#else
extern __thread int harness_cpu;
#endif
extern int harness_nr_cpus;
#define smp_processor_id() harness_cpu
#define raw_smp_processor_id() harness_cpu
#define get_cpu() harness_cpu
#define put_cpu() do { } while (0)
#define preempt_disable() barrier()
#define preempt_enable() barrier()
#define migrate_disable() barrier()
#define migrate_enable() barrier()
#define for_each_possible_cpu(c) for ((c) = 0; (c) < harness_nr_cpus; (c)++)
#define for_each_online_cpu(c) for_each_possible_cpu(c)
#define num_online_cpus() ((unsigned int)harness_nr_cpus)
#define num_possible_cpus() ((unsigned int)harness_nr_cpus)
u32 harness_random_below(u32 n);
#define get_random_u32_below(n) harness_random_below(n)

/* per-CPU data: one cache-line-aligned copy per CPU; the stride sits before copy 0 */
void *harness_alloc_percpu(size_t size, size_t align);
void harness_free_percpu(void *p);
#define __alloc_percpu(size, align) harness_alloc_percpu((size), (align))
#define alloc_percpu(type) ((type *)harness_alloc_percpu(sizeof(type), __alignof__(type)))
#define alloc_percpu_gfp(type, gfp) alloc_percpu(type)
#define free_percpu(p) harness_free_percpu(p)
#define per_cpu_ptr(p, cpu) ((__typeof__(p))((char *)(p) + (size_t)(cpu) * ((const size_t *)(p))[-1]))
#define raw_cpu_ptr(p) per_cpu_ptr((p), harness_cpu)
#define this_cpu_ptr(p) raw_cpu_ptr(p)
#define get_cpu_ptr(p) raw_cpu_ptr(p)
#define put_cpu_ptr(p) do { } while (0)
#define this_cpu_read(x) (*raw_cpu_ptr(&(x)))
#define this_cpu_write(x, v) (*raw_cpu_ptr(&(x)) = (v))

/* --- locks --- */
enum harness_lock_class { LK_RBTREE, LK_CPU_RCACHE, LK_DEPOT, LK_BITMAP, LK_OTHER, LK_NR };
#ifdef HARNESS_SIM
/* a queued lock (iova-harness.c): bit 0 locked, the rest the queue's tail */
typedef struct { uintptr_t locked; int owner; u64 t0; } spinlock_t;
#else
typedef struct { int locked; int owner; u64 t0; } spinlock_t;
#endif
typedef spinlock_t raw_spinlock_t;
int harness_lock_class(const char *expr, const char *func);
void harness_lock(spinlock_t *l, int cls);
void harness_unlock(spinlock_t *l);
#define __HLOCK(l) do {								\
		static int __cls = -1;						\
		if (__atomic_load_n(&__cls, __ATOMIC_RELAXED) < 0)		\
			__atomic_store_n(&__cls, harness_lock_class(#l, __func__), __ATOMIC_RELAXED); \
		harness_lock((l), __atomic_load_n(&__cls, __ATOMIC_RELAXED));	\
	} while (0)
#define __HUNLOCK(l) harness_unlock(l)
#define spin_lock_init(l) memset((l), 0, sizeof(*(l)))
#define raw_spin_lock_init(l) spin_lock_init(l)
#define spin_lock(l) __HLOCK(l)
#define spin_unlock(l) __HUNLOCK(l)
#define spin_lock_irqsave(l, f) do { (f) = 0; __HLOCK(l); } while (0)
#define spin_unlock_irqrestore(l, f) do { (void)(f); __HUNLOCK(l); } while (0)
#define raw_spin_lock_irqsave(l, f) spin_lock_irqsave(l, f)
#define raw_spin_unlock_irqrestore(l, f) spin_unlock_irqrestore(l, f)
#define assert_spin_locked(l) WARN_ON(!(__atomic_load_n(&(l)->locked, __ATOMIC_RELAXED) & 1))
#define lockdep_assert_held(l) assert_spin_locked(l)
/* guard(raw_spinlock_irqsave)(&lock): held to the end of the scope */
static inline void harness_guard_unlock(raw_spinlock_t **l) { __HUNLOCK(*l); }
#define __HCAT2(a, b) a##b
#define __HCAT(a, b) __HCAT2(a, b)
#define guard(kind) __HGUARD_##kind
#define __HGUARD_raw_spinlock_irqsave(l)					\
	raw_spinlock_t *__HCAT(__guard_, __COUNTER__) __attribute__((cleanup(harness_guard_unlock))) = \
		({ __HLOCK(l); (l); })
#define __HGUARD_spinlock_irqsave(l) __HGUARD_raw_spinlock_irqsave(l)

struct mutex { pthread_mutex_t m; };
#define DEFINE_MUTEX(name) struct mutex name = { PTHREAD_MUTEX_INITIALIZER }
#define mutex_lock(x) pthread_mutex_lock(&(x)->m)
#define mutex_unlock(x) pthread_mutex_unlock(&(x)->m)

/* --- memory --- */
struct kmem_cache { const char *name; size_t size; long live; };
struct kmem_cache *harness_kmem_cache_create(const char *name, size_t size);
void *harness_alloc(struct kmem_cache *c, size_t size, bool zero);
void harness_free(struct kmem_cache *c, const void *p);
#define kmem_cache_create(name, size, align, flags, ctor) harness_kmem_cache_create((name), (size))
#define kmem_cache_destroy(c) free(c)
#define kmem_cache_alloc(c, gfp) harness_alloc((c), (c)->size, false)
#define kmem_cache_zalloc(c, gfp) harness_alloc((c), (c)->size, true)
#define kmem_cache_free(c, p) harness_free((c), (p))
#define kmalloc(size, gfp) harness_alloc(NULL, (size), false)
#define kzalloc(size, gfp) harness_alloc(NULL, (size), true)
#define kcalloc(n, size, gfp) harness_alloc(NULL, (n) * (size), true)
#define kzalloc_obj(x, ...) harness_alloc(NULL, sizeof(x), true)
#define kzalloc_objs(x, n, ...) harness_alloc(NULL, sizeof(x) * (n), true)
#define kmalloc_array(n, size, gfp) harness_alloc(NULL, (n) * (size), false)
#define kvzalloc_node(size, gfp, node) harness_alloc(NULL, (size), true)
#define kvzalloc(size, gfp) harness_alloc(NULL, (size), true)
#define kfree(p) harness_free(NULL, (p))
#define kvfree(p) harness_free(NULL, (p))
#define kmemleak_transient_leak(p) do { } while (0)
#define ERR_PTR(e) ((void *)(long)(e))

/* --- CPU hotplug: no CPU ever goes away here --- */
struct hlist_node { struct hlist_node *next, **pprev; };
#define hlist_entry_safe(ptr, type, member) ((ptr) ? container_of(ptr, type, member) : NULL)
enum cpuhp_state { CPUHP_IOMMU_IOVA_DEAD = 1 };
static inline int harness_cpuhp(void) { return 0; }
#define cpuhp_setup_state_multi(state, name, up, down) harness_cpuhp()
#define cpuhp_remove_multi_state(state) harness_cpuhp()
#define cpuhp_state_add_instance_nocalls(state, node) harness_cpuhp()
#define cpuhp_state_remove_instance_nocalls(state, node) harness_cpuhp()

/* --- work and delayed work, run by the harness's kworker thread --- */
struct work_struct { void (*func)(struct work_struct *work); u64 due_ns; int pending; int registered; };
struct delayed_work { struct work_struct work; };
void harness_init_work(struct work_struct *w, void (*fn)(struct work_struct *));
bool harness_schedule_work(struct work_struct *w, unsigned long ms);
bool harness_cancel_work_sync(struct work_struct *w);
#define INIT_WORK(w, fn) harness_init_work((w), (fn))
#define schedule_work(w) harness_schedule_work((w), 0)
#define system_dfl_wq NULL
#define queue_work(wq, w) ((void)(wq), harness_schedule_work((w), 0))
#define cancel_work_sync(w) harness_cancel_work_sync(w)
#define INIT_DELAYED_WORK(dw, fn) harness_init_work(&(dw)->work, (fn))
#define schedule_delayed_work(dw, delay) harness_schedule_work(&(dw)->work, (delay))
#define cancel_delayed_work_sync(dw) harness_cancel_work_sync(&(dw)->work)
#define to_delayed_work(w) container_of(w, struct delayed_work, work)

#endif
