// SPDX-License-Identifier: GPL-2.0
/*
 * c2c: the core-to-core probe that a machine profile is made from. Two
 * threads, pinned to two CPUs, pass one cache line back and forth (each
 * waits for the other's value, then writes its own); half the round trip
 * is the one-way transfer. One pair of CPUs per distance class that the
 * machine's topology (sysfs) has:
 *   cluster  the same cluster (cluster_id), another core
 *   node     the same NUMA node, another cluster
 *   package  the same package, another NUMA node
 *   machine  another package
 * Prints "C2C class=NAME cpus=A,B one_way_ns=X min_ns=Y" per class (the
 * median and the minimum of 9 rounds), and "TOPOLOGY cpus=N ..." with the
 * sizes of each level, for tools/native/sim/probe-profile.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 9
#define TRIPS 20000

static volatile long line[16] __attribute__((aligned(128)));
static int cpu_b;

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (pthread_setaffinity_np(pthread_self(), sizeof(s), &s)) {
		fprintf(stderr, "c2c: cannot run on CPU %d\n", cpu);
		exit(2);
	}
}

static void *pong(void *arg)
{
	long i;

	(void)arg;
	pin(cpu_b);
	for (i = 1; i <= (long)ROUNDS * TRIPS; i++) {
		while (__atomic_load_n(&line[0], __ATOMIC_ACQUIRE) != 2 * i - 1)
			;
		__atomic_store_n(&line[0], 2 * i, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void probe(const char *cls, int a, int b)
{
	pthread_t t;
	double r[ROUNDS];
	long i = 0, k, t0;
	int n;

	line[0] = 0;
	cpu_b = b;
	pthread_create(&t, NULL, pong, NULL);
	pin(a);
	for (n = 0; n < ROUNDS; n++) {
		t0 = now_ns();
		for (k = 0; k < TRIPS; k++) {
			i++;
			__atomic_store_n(&line[0], 2 * i - 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&line[0], __ATOMIC_ACQUIRE) != 2 * i)
				;
		}
		r[n] = (double)(now_ns() - t0) / TRIPS / 2;
	}
	pthread_join(t, NULL);
	qsort(r, ROUNDS, sizeof(r[0]), cmp);
	printf("C2C class=%s cpus=%d,%d one_way_ns=%.1f min_ns=%.1f\n", cls, a, b, r[ROUNDS / 2], r[0]);
	fflush(stdout);
}

static int sysint(int cpu, const char *what)
{
	char p[256];
	FILE *f;
	int v = -1;

	snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
	f = fopen(p, "r");
	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static int node_of(int cpu)
{
	char p[256];
	int n;

	for (n = 0; n < 1024; n++) {
		snprintf(p, sizeof(p), "/sys/devices/system/cpu/cpu%d/node%d", cpu, n);
		if (access(p, F_OK) == 0)
			return n;
	}
	return 0;
}

int main(void)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN), c, found[4] = { 0 }, pairs[4][2];
	static const char *const names[] = { "cluster", "node", "package", "machine" };
	int *core, *cl, *pkg, *node, sizes[4] = { 0 };

	if (ncpu < 2) {
		fprintf(stderr, "c2c: one CPU: nothing to probe\n");
		return 2;
	}
	core = calloc(ncpu, sizeof(int));
	cl = calloc(ncpu, sizeof(int));
	pkg = calloc(ncpu, sizeof(int));
	node = calloc(ncpu, sizeof(int));
	for (c = 0; c < ncpu; c++) {
		core[c] = sysint(c, "core_id");
		cl[c] = sysint(c, "cluster_id");
		pkg[c] = sysint(c, "physical_package_id");
		node[c] = node_of(c);
	}
	/* from CPU 0 to the first CPU of each class (another core: not an SMT sibling) */
	for (c = 1; c < ncpu; c++) {
		int k;

		if (pkg[c] != pkg[0])
			k = 3;
		else if (node[c] != node[0])
			k = 2;
		else if (cl[c] != cl[0] || cl[c] < 0)
			k = 1;
		else if (core[c] != core[0])
			k = 0;
		else
			continue;	/* an SMT sibling */
		sizes[k]++;
		if (!found[k]) {
			found[k] = 1;
			pairs[k][0] = 0;
			pairs[k][1] = c;
		}
	}
	printf("TOPOLOGY cpus=%d cluster_peers=%d node_peers=%d package_peers=%d machine_peers=%d\n", ncpu,
	       sizes[0], sizes[1], sizes[2], sizes[3]);
	for (c = 0; c < 4; c++)
		if (found[c])
			probe(names[c], pairs[c][0], pairs[c][1]);
	return 0;
}
