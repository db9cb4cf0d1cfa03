/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the command-queue code needs of the rest of the driver: the few
 * fields of struct arm_smmu_device it reads, device messages (counted by
 * the harness), and allocation. Included after the extracted types, before
 * the extracted functions.
 */
#ifndef HARNESS_SMMU_SHIM_H
#define HARNESS_SMMU_SHIM_H

struct device {
	const char *name;
};

struct arm_smmu_device;
struct arm_smmu_impl_ops {
	struct arm_smmu_cmdq *(*get_secondary_cmdq)(struct arm_smmu_device *smmu,
						    struct arm_smmu_cmd *cmd);
};

struct arm_smmu_device {
	struct device *dev;
	u32 features;
	u32 options;
	const struct arm_smmu_impl_ops *impl_ops;
	struct arm_smmu_cmdq cmdq;
};

#define GFP_KERNEL 0
void harness_dev_err(struct device *dev, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define dev_err(dev, ...) harness_dev_err(dev, __func__, __VA_ARGS__)
#define dev_err_ratelimited(dev, ...) harness_dev_err(dev, __func__, __VA_ARGS__)
#define dev_notice(dev, ...) harness_dev_err(dev, __func__, __VA_ARGS__)
/*
 * A bitmap on a cache line of its own, as kmalloc() gives one of 64 bytes
 * or more: where it starts within a line must not depend on what the
 * program allocated before (under simulation, its command line).
 */
static inline void *harness_bitmap_zalloc(size_t nbits)
{
	size_t bytes = (((nbits) + BITS_PER_LONG - 1) / BITS_PER_LONG) * sizeof(unsigned long);
	void *p = aligned_alloc(SMP_CACHE_BYTES, (bytes + SMP_CACHE_BYTES - 1) & ~(size_t)(SMP_CACHE_BYTES - 1));

	if (p)
		memset(p, 0, bytes);
	return p;
}
#define devm_bitmap_zalloc(dev, nbits, gfp) harness_bitmap_zalloc(nbits)

/* a zeroed array on lines of its own (a driver's ____cacheline_aligned items) */
static inline void *harness_kcalloc(size_t n, size_t size)
{
	size_t bytes = n * size;
	void *p = aligned_alloc(SMP_CACHE_BYTES, (bytes + SMP_CACHE_BYTES - 1) & ~(size_t)(SMP_CACHE_BYTES - 1));

	if (p)
		memset(p, 0, bytes);
	return p;
}
#define devm_kcalloc(dev, n, size, gfp) harness_kcalloc(n, size)

/* coherent DMA memory: zeroed, on lines of its own; its address is its DMA address */
static inline void *harness_dma_alloc(size_t size, dma_addr_t *dma)
{
	void *p = aligned_alloc(SMP_CACHE_BYTES, (size + SMP_CACHE_BYTES - 1) & ~(size_t)(SMP_CACHE_BYTES - 1));

	if (p) {
		memset(p, 0, size);
		*dma = (dma_addr_t)(uintptr_t)p;
	}
	return p;
}
#define dmam_alloc_coherent(dev, size, dma, gfp) harness_dma_alloc(size, dma)

struct static_key_false {
	int enabled;
};
#define DEFINE_STATIC_KEY_FALSE(name) struct static_key_false name = { 0 }
#define static_branch_unlikely(key) (!!(key)->enabled)
static struct static_key_false arm_smmu_erratum_repeat_tlbi_cfgi_key;

#endif
