// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-scale guest init: binds the QEMU edu PCI device to dma_map_benchmark,
 * runs the sweep named on the kernel command line, prints one line per point
 * and powers off. Runs as PID 1 from an initramfs with nothing else in it.
 *
 * Kernel command line (all required unless a default is given):
 *   bench.threads=1,2,4    thread counts
 *   bench.granules=1,16    pages per map/unmap
 *   bench.seconds=2        seconds per point
 *   bench.group=DMA        expected iommu group type: DMA (strict) or DMA-FQ (lazy)
 *   bench.dir=bidir        bidir, to or from (default bidir)
 *   bench.bits=32          DMA mask in bits (default 32)
 *   bench.verify=1         count pages mapped twice at once (default 0;
 *                          needs a kernel with the verify field, MB_HAS_VERIFY)
 *   bench.device=BDF       the PCI device to bind to the benchmark, on a
 *                          machine with no edu device (a lab's server: one
 *                          behind its SMMU that no driver holds, or that
 *                          pci-stub holds, which lets it go); default:
 *                          QEMU's edu device, found by its IDs
 *   bench.end=halt         halt at the end instead of powering off
 *
 * Output, one line each:
 *   BENCH-INFO  key=value ...          the device, group, kernel, CPUs,
 *                                      firmware, each SMMU's queue sizes and
 *                                      the kernel's IOMMU mode (from its log)
 *   BENCH-CHECK <an input the kernel must reject> -> EINVAL
 *   BENCH-POINT threads=T granule=G seconds=S map_100ns=.. map_sd=..
 *               unmap_100ns=.. unmap_sd=.. [ops=N elapsed_ns=N] [dups=N]
 *   BENCH-LEAK  <a kmemleak report line>
 *   BENCH-ERROR <what failed and why>
 *   BENCH-DONE points=N
 * ops and elapsed_ns are printed when the uapi header the init is built
 * against has them (MB_HAS_OPS); a kernel without them returns zeros.
 * Before the sweep, every input the kernel must refuse is tried, and must
 * fail with EINVAL. With verify, a point with dups above 0 is an error.
 * After the sweep, if the kernel has kmemleak, a scan is run and any
 * unreferenced object is an error.
 * Any failure prints BENCH-ERROR and powers off without BENCH-DONE.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <linux/map_benchmark.h>

#define EDU_VENDOR	0x1234
#define EDU_DEVICE	0x11e8
#define MAX_LIST	32
#define PCI_DEVS	"/sys/bus/pci/devices"

/* bench.end=halt: halt at the end rather than power off (a lab's board) */
static int halt_at_end;

static void poweroff(void) __attribute__((noreturn));
static void poweroff(void)
{
	sync();
	reboot(halt_at_end ? RB_HALT_SYSTEM : RB_POWER_OFF);
	/* reboot() only returns on failure; PID 1 must not exit */
	for (;;)
		pause();
}

static void fail(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	printf("BENCH-ERROR ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	poweroff();
}

static void do_mount(const char *src, const char *dst, const char *type)
{
	if (mkdir(dst, 0755) && errno != EEXIST)
		fail("mkdir %s: %s", dst, strerror(errno));
	if (mount(src, dst, type, 0, NULL) && errno != EBUSY)
		fail("mount %s on %s: %s", type, dst, strerror(errno));
}

static int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static void write_file(const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	n = write(fd, val, len);
	if (n < 0 || (size_t)n != len)
		fail("write '%s' to %s: %s", val, path,
		     n < 0 ? strerror(errno) : "short write");
	if (close(fd))
		fail("close %s: %s", path, strerror(errno));
}

/* value of "name=" on the command line, copied into val, or NULL */
static const char *param(const char *cmdline, const char *name, char *val, size_t size)
{
	size_t nlen = strlen(name);
	const char *p = cmdline;

	while (*p) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, name, nlen) && p[nlen] == '=') {
			size_t i = 0;

			p += nlen + 1;
			while (p[i] && p[i] != ' ' && i < size - 1) {
				val[i] = p[i];
				i++;
			}
			val[i] = '\0';
			return val;
		}
		while (*p && *p != ' ')
			p++;
	}
	return NULL;
}

static unsigned long parse_num(const char *name, const char *s, unsigned long min,
			       unsigned long max)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		fail("%s: '%s' is not a number from %lu to %lu", name, s, min, max);
	return v;
}

static int parse_list(const char *name, const char *s, unsigned int *out, unsigned long max)
{
	char buf[256], *tok, *save = NULL;
	int n = 0;

	if (!s || !*s)
		fail("%s missing from the kernel command line", name);
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_LIST)
			fail("%s: more than %d values", name, MAX_LIST);
		out[n++] = parse_num(name, tok, 1, max);
	}
	if (!n)
		fail("%s: empty list", name);
	return n;
}

static void find_edu(char *bdf, size_t len)
{
	char path[512], val[64];
	struct dirent *de;
	DIR *d;

	d = opendir(PCI_DEVS);
	if (!d)
		fail("opendir %s: %s", PCI_DEVS, strerror(errno));
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), PCI_DEVS "/%s/vendor", de->d_name);
		if (read_file(path, val, sizeof(val)) || strtoul(val, NULL, 16) != EDU_VENDOR)
			continue;
		snprintf(path, sizeof(path), PCI_DEVS "/%s/device", de->d_name);
		if (read_file(path, val, sizeof(val)) || strtoul(val, NULL, 16) != EDU_DEVICE)
			continue;
		snprintf(bdf, len, "%s", de->d_name);
		closedir(d);
		return;
	}
	closedir(d);
	fail("no edu PCI device (%04x:%04x) in %s: start QEMU with -device edu",
	     EDU_VENDOR, EDU_DEVICE, PCI_DEVS);
}

/* bench.device=BDF: a PCI address (0000:01:00.0 or 01:00.0) that exists */
static void named_device(const char *want, char *bdf, size_t len)
{
	char path[512];
	unsigned int dom = 0, bus, dev, fn;
	int n = 0;
	bool ok;

	/* hex digits, colons and one dot only: sscanf's %x would take 0x or a sign */
	if (strspn(want, "0123456789abcdefABCDEF:.") != strlen(want))
		fail("bench.device: '%s' is not a PCI address (0000:01:00.0)", want);
	/* with a domain, or without one (domain 0) */
	ok = sscanf(want, "%4x:%2x:%2x.%1u%n", &dom, &bus, &dev, &fn, &n) == 4 && !want[n];
	if (!ok) {
		dom = 0;
		n = 0;
		ok = sscanf(want, "%2x:%2x.%1u%n", &bus, &dev, &fn, &n) == 3 && !want[n];
	}
	if (!ok)
		fail("bench.device: '%s' is not a PCI address (0000:01:00.0)", want);
	if (dev > 31 || fn > 7)
		fail("bench.device: '%s' is not a PCI address (device 0-1f, function 0-7)", want);
	snprintf(bdf, len, "%04x:%02x:%02x.%u", dom, bus, dev, fn);
	snprintf(path, sizeof(path), PCI_DEVS "/%s", bdf);
	if (access(path, F_OK))
		fail("bench.device=%s: no such PCI device in %s", want, PCI_DEVS);
}

#define MAX_SMMU	16
#define SYSLOG_READ_ALL	3
#define SYSLOG_CONSOLE_LEVEL	8

/* the word before p in a log line: the device of a dev_info() message */
static void word_before(const char *line, const char *p, char *out, size_t len)
{
	const char *b = p;
	size_t n;

	while (b > line && b[-1] != ' ')
		b--;
	n = (size_t)(p - b) < len - 1 ? (size_t)(p - b) : len - 1;
	memcpy(out, b, n);
	out[n] = 0;
}

/* the first word after a prefix found in a log line */
static void word_after(const char *p, char *out, size_t len)
{
	size_t n = strcspn(p, " \t\r\n(");

	n = n < len - 1 ? n : len - 1;
	memcpy(out, p, n);
	out[n] = 0;
}

/*
 * The machine, as this kernel sees it, so that every result names where it
 * came from: the firmware's tables, each SMMU's queue sizes (arm-smmu-v3's
 * "allocated N entries for cmdq" lines) and the default domain type and
 * TLB invalidation policy that iommu core logs at boot. A line the log
 * does not hold is reported as unknown, never guessed.
 */
static void machine_info(void)
{
	static char log[1 << 18];
	static struct {
		char dev[64];
		unsigned int q[3];
	} smmu[MAX_SMMU];
	static const char *const qname[3] = { "cmdq", "evtq", "priq" };
	char def[32] = "unknown", policy[32] = "unknown", dev[64], q[16];
	unsigned int entries, nsmmu = 0, more = 0, i, j;
	char *line, *save, *p;
	int n;

	if (!access("/sys/firmware/acpi/tables/IORT", F_OK))
		printf("BENCH-INFO firmware=acpi iort=yes\n");
	else if (!access("/sys/firmware/acpi/tables", F_OK))
		printf("BENCH-INFO firmware=acpi iort=no\n");
	else if (!access("/sys/firmware/devicetree/base", F_OK))
		printf("BENCH-INFO firmware=devicetree\n");
	else
		printf("BENCH-INFO firmware=unknown\n");

	n = klogctl(SYSLOG_READ_ALL, log, sizeof(log) - 1);
	if (n < 0) {
		printf("BENCH-INFO smmu=unknown iommu_default=unknown iommu_policy=unknown (kernel log: %s)\n",
		       strerror(errno));
		return;
	}
	log[n] = 0;
	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		p = strstr(line, ": allocated ");
		if (p && strstr(line, "arm-smmu-v3 ") && sscanf(p, ": allocated %u entries for %15s", &entries, q) == 2) {
			word_before(line, p, dev, sizeof(dev));
			for (i = 0; i < nsmmu && strcmp(smmu[i].dev, dev); i++)
				;
			if (i == nsmmu && nsmmu < MAX_SMMU)
				snprintf(smmu[nsmmu++].dev, sizeof(smmu[0].dev), "%s", dev);
			else if (i == nsmmu && !strcmp(q, "cmdq"))
				more++;
			for (j = 0; i < nsmmu && j < 3; j++)
				if (!strcmp(q, qname[j]))
					smmu[i].q[j] = entries;
			continue;
		}
		p = strstr(line, "Default domain type: ");
		if (p)
			word_after(p + strlen("Default domain type: "), def, sizeof(def));
		p = strstr(line, "TLB invalidation policy: ");
		if (p)
			word_after(p + strlen("TLB invalidation policy: "), policy, sizeof(policy));
	}
	if (!nsmmu)
		printf("BENCH-INFO smmu=unknown\n");
	for (i = 0; i < nsmmu; i++)
		printf("BENCH-INFO smmu=%s cmdq=%u evtq=%u priq=%u\n", smmu[i].dev,
		       smmu[i].q[0], smmu[i].q[1], smmu[i].q[2]);
	if (more)
		printf("BENCH-INFO smmus_not_listed=%u\n", more);
	printf("BENCH-INFO iommu_default=%s iommu_policy=%s\n", def, policy);
}

static void bind_benchmark(const char *bdf, const char *want_group)
{
	char path[512], val[256], *slash;

	/*
	 * A device a driver holds is refused before anything is changed;
	 * pci-stub's hold (pci-stub.ids=, which keeps a NIC's built-in
	 * driver off it) is released.
	 */
	snprintf(path, sizeof(path), PCI_DEVS "/%s/driver", bdf);
	memset(val, 0, sizeof(val));
	if (readlink(path, val, sizeof(val) - 1) >= 0) {
		slash = strrchr(val, '/');
		slash = slash ? slash + 1 : val;
		if (strcmp(slash, "pci-stub"))
			fail("%s is already bound to a driver (%s): the benchmark takes a device no driver holds, or one pci-stub holds (pci-stub.ids=)",
			     bdf, slash);
		write_file("/sys/bus/pci/drivers/pci-stub/unbind", bdf);
		printf("BENCH-INFO released=%s from=pci-stub\n", bdf);
	}

	snprintf(path, sizeof(path), PCI_DEVS "/%s/iommu_group/type", bdf);
	if (read_file(path, val, sizeof(val)))
		fail("%s has no iommu group (%s): no IOMMU translates it (QEMU: -M virt,iommu=smmuv3; a server: a device behind its SMMU, in the IORT)",
		     bdf, path);
	if (strcmp(val, want_group))
		fail("iommu group type of %s is %s, the run asked for %s", bdf, val, want_group);
	printf("BENCH-INFO device=%s group_type=%s\n", bdf, val);
	/* which SMMU translates it, when the kernel links it */
	snprintf(path, sizeof(path), PCI_DEVS "/%s/iommu", bdf);
	memset(val, 0, sizeof(val));
	if (readlink(path, val, sizeof(val) - 1) >= 0) {
		slash = strrchr(val, '/');
		printf("BENCH-INFO device_iommu=%s\n", slash ? slash + 1 : val);
	}

	snprintf(path, sizeof(path), PCI_DEVS "/%s/driver_override", bdf);
	write_file(path, "dma_map_benchmark");
	snprintf(path, sizeof(path), PCI_DEVS "/%s/driver", bdf);
	write_file("/sys/bus/pci/drivers_probe", bdf);
	memset(val, 0, sizeof(val));
	if (readlink(path, val, sizeof(val) - 1) < 0)
		fail("binding %s to dma_map_benchmark failed: no driver after drivers_probe", bdf);
	slash = strrchr(val, '/');
	if (!slash || strcmp(slash + 1, "dma_map_benchmark"))
		fail("%s bound to %s, not dma_map_benchmark", bdf, val);
}

static unsigned int parse_dir(const char *s)
{
	if (!s || !strcmp(s, "bidir"))
		return DMA_MAP_BIDIRECTIONAL;
	if (!strcmp(s, "to"))
		return DMA_MAP_TO_DEVICE;
	if (!strcmp(s, "from"))
		return DMA_MAP_FROM_DEVICE;
	fail("bench.dir: '%s' is not bidir, to or from", s);
	return 0;
}

/*
 * With kmemleak: wait until the last point's objects are old enough to be
 * reported, scan (twice, as kmemleak wants an object unreferenced on two
 * scans before it reports it) and fail on any report.
 */
static void kmemleak_check(void)
{
	const char *path = "/sys/kernel/debug/kmemleak";
	char line[256];
	int leaks = 0;
	FILE *f;

	if (access(path, F_OK))
		return;
	/*
	 * kmemleak reports only objects older than 5 s (MSECS_MIN_AGE): wait
	 * that long after the last point, so that its leaks are old enough.
	 */
	sleep(6);
	write_file(path, "scan");
	sleep(1);
	write_file(path, "scan");
	f = fopen(path, "r");
	if (!f)
		fail("open %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		printf("BENCH-LEAK %s", line);
		if (!strncmp(line, "unreferenced object", 19))
			leaks++;
	}
	fclose(f);
	if (leaks)
		fail("kmemleak reports %d unreferenced objects (BENCH-LEAK lines above)", leaks);
	printf("BENCH-INFO kmemleak=clean\n");
}

static void init_params(struct map_benchmark *mb, unsigned int threads,
			unsigned int granule, unsigned int seconds,
			unsigned int bits, unsigned int dir)
{
	memset(mb, 0, sizeof(*mb));
	mb->threads = threads;
	mb->seconds = seconds;
	mb->node = -1;
	mb->dma_bits = bits;
	mb->dma_dir = dir;
	mb->granule = granule;
	mb->map_mode = DMA_MAP_BENCH_SINGLE_MODE;
}

/* inputs the kernel has always refused with EINVAL, and must still refuse */
static void check_rejects(int fd, unsigned int bits, unsigned int dir)
{
	static const struct {
		const char *what;
		unsigned int threads, granule, seconds;
	} bad[] = {
		{ "threads=0", 0, 1, 1 },
		{ "threads=DMA_MAP_MAX_THREADS+1", DMA_MAP_MAX_THREADS + 1, 1, 1 },
		{ "granule=0", 1, 0, 1 },
		{ "granule=1025", 1, 1025, 1 },
		{ "seconds=0", 1, 1, 0 },
		{ "seconds=DMA_MAP_MAX_SECONDS+1", 1, 1, DMA_MAP_MAX_SECONDS + 1 },
	};
	struct map_benchmark mb;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		init_params(&mb, bad[i].threads, bad[i].granule, bad[i].seconds, bits, dir);
		if (!ioctl(fd, DMA_MAP_BENCHMARK, &mb))
			fail("DMA_MAP_BENCHMARK accepted %s", bad[i].what);
		if (errno != EINVAL)
			fail("DMA_MAP_BENCHMARK with %s failed with %s, not EINVAL",
			     bad[i].what, strerror(errno));
		printf("BENCH-CHECK %s -> EINVAL\n", bad[i].what);
	}
}

int main(void)
{
	unsigned int threads[MAX_LIST], granules[MAX_LIST], seconds, bits, dir, verify;
	int nthreads, ngranules, t, g, fd, points = 0;
	char cmdline[4096], bdf[256], ver[256], pbuf[256], gbuf[16];
	const char *group, *s;

	do_mount("proc", "/proc", "proc");
	do_mount("sysfs", "/sys", "sysfs");
	do_mount("debugfs", "/sys/kernel/debug", "debugfs");
	do_mount("devtmpfs", "/dev", "devtmpfs");
	setvbuf(stdout, NULL, _IOLBF, 0);

	if (read_file("/proc/cmdline", cmdline, sizeof(cmdline)))
		fail("cannot read /proc/cmdline");
	if (read_file("/proc/version", ver, sizeof(ver)))
		fail("cannot read /proc/version");
	/* first, so that a failure below ends the way the run asked */
	s = param(cmdline, "bench.end", pbuf, sizeof(pbuf));
	halt_at_end = s && !strcmp(s, "halt");
	if (s && !halt_at_end)
		fail("bench.end: '%s' is not halt", s);
	nthreads = parse_list("bench.threads", param(cmdline, "bench.threads", pbuf, sizeof(pbuf)),
			      threads, DMA_MAP_MAX_THREADS);
	ngranules = parse_list("bench.granules", param(cmdline, "bench.granules", pbuf, sizeof(pbuf)),
			       granules, 1024);
	s = param(cmdline, "bench.seconds", pbuf, sizeof(pbuf));
	if (!s)
		fail("bench.seconds missing from the kernel command line");
	seconds = parse_num("bench.seconds", s, 1, DMA_MAP_MAX_SECONDS);
	group = param(cmdline, "bench.group", gbuf, sizeof(gbuf));
	if (!group || (strcmp(group, "DMA") && strcmp(group, "DMA-FQ")))
		fail("bench.group must be DMA (strict) or DMA-FQ (lazy)");
	dir = parse_dir(param(cmdline, "bench.dir", pbuf, sizeof(pbuf)));
	s = param(cmdline, "bench.bits", pbuf, sizeof(pbuf));
	bits = s ? parse_num("bench.bits", s, 1, 64) : 32;
	s = param(cmdline, "bench.verify", pbuf, sizeof(pbuf));
	verify = s ? parse_num("bench.verify", s, 0, 1) : 0;
#ifndef MB_HAS_VERIFY
	if (verify)
		fail("bench.verify=1, but this init was built against a map_benchmark.h without verify");
#endif

	printf("BENCH-INFO kernel=\"%s\"\n", ver);
	printf("BENCH-INFO cpus_online=%ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	machine_info();
	/*
	 * From here on the console carries warnings and worse only: an
	 * informational line printed from another context (a deferred probe,
	 * a driver's firmware message on a server) must not land inside a
	 * BENCH-POINT line that LAVA or the sweep parses. Reports, which the
	 * judges look for, are warnings or errors, and still show.
	 */
	if (klogctl(SYSLOG_CONSOLE_LEVEL, NULL, 5))
		printf("BENCH-INFO console_loglevel=unchanged (%s)\n", strerror(errno));
	s = param(cmdline, "bench.device", pbuf, sizeof(pbuf));
	if (s)
		named_device(s, bdf, sizeof(bdf));
	else
		find_edu(bdf, sizeof(bdf));
	bind_benchmark(bdf, group);

	fd = open("/sys/kernel/debug/dma_map_benchmark", O_RDWR);
	if (fd < 0)
		fail("open /sys/kernel/debug/dma_map_benchmark: %s", strerror(errno));
	check_rejects(fd, bits, dir);

	for (g = 0; g < ngranules; g++) {
		for (t = 0; t < nthreads; t++) {
			struct map_benchmark mb;

			init_params(&mb, threads[t], granules[g], seconds, bits, dir);
#ifdef MB_HAS_VERIFY
			mb.verify = verify;
#endif
			if (ioctl(fd, DMA_MAP_BENCHMARK, &mb))
				fail("DMA_MAP_BENCHMARK threads=%u granule=%u: %s",
				     threads[t], granules[g], strerror(errno));
			printf("BENCH-POINT threads=%u granule=%u seconds=%u map_100ns=%llu map_sd=%llu unmap_100ns=%llu unmap_sd=%llu",
			       threads[t], granules[g], seconds,
			       (unsigned long long)mb.avg_map_100ns,
			       (unsigned long long)mb.map_stddev,
			       (unsigned long long)mb.avg_unmap_100ns,
			       (unsigned long long)mb.unmap_stddev);
#ifdef MB_HAS_OPS
			printf(" ops=%llu elapsed_ns=%llu", (unsigned long long)mb.ops,
			       (unsigned long long)mb.elapsed_ns);
#endif
#ifdef MB_HAS_VERIFY
			if (verify)
				printf(" dups=%llu", (unsigned long long)mb.dups);
#endif
			printf("\n");
#ifdef MB_HAS_VERIFY
			if (verify && mb.dups)
				fail("threads=%u granule=%u: %llu pages were mapped twice at once",
				     threads[t], granules[g], (unsigned long long)mb.dups);
#endif
			points++;
		}
	}
	if (close(fd))
		fail("close dma_map_benchmark: %s", strerror(errno));
	/*
	 * In lazy mode the last unmaps wait in the flush queue for its timer
	 * (10 ms). Powering off before it fired lets the SMMU be disabled
	 * first, and the late flush then reports a CMD_SYNC timeout
	 * (results/observed/lazy-poweroff-cmd-sync-timeout.log). Let it drain.
	 */
	usleep(200 * 1000);
	kmemleak_check();
	printf("BENCH-DONE points=%d\n", points);
	poweroff();
	return 0;
}
