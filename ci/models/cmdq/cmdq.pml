/*
 * ci/models/cmdq/cmdq.pml: Promela model of how __arm_smmu_cmdq_issue_cmdlist()
 * (drivers/iommu/arm/arm-smmu-v3/arm-smmu-v3.c) reserves command-queue
 * space, gathers lists under an owner and publishes them to the SMMU, and of
 * the SMMU consuming them. tools/model checks it with spin for each line of
 * ci/models/cmdq/configs; `make model' runs that.
 *
 * Knobs (spin -DNAME=value):
 *   V  1: S1 v1, patches/bench/cmdq-v1/ (0001 + 0002 as review found
 *         them): check room at the current prod, reserve with an atomic
 *         add, then wait (interrupts off) until the reserved slots are
 *         free. It deadlocks: B1, the gathering that laps
 *         (tools/native/schedules/b1-lap.sched, ci/models/cmdq/v1-b1.trail.txt).
 *      2: S1 v2, the series before #29 (its 0004 and 0005, "Keep the
 *         command queue's prod apart from its cons", "Reserve command-queue
 *         space with an atomic add", as git history has them):
 *         check room for the list plus reserve_slack, then add
 *         (reserve_add), or check and cmpxchg() with no slack; nobody
 *         waits after reserving.
 *      3: S1 v3, patches/0005 and 0006 ("Reserve command-queue space with
 *         an atomic add", "Wait for a CMD_SYNC without the command-queue
 *         lock"; simulated first as patches/bench/cmdq-v3): always the
 *         add, after a check for room for the list plus (K - 1) * B; a CPU
 *         holds a token from its check to its add, K tokens in all, its own
 *         when K == N (no lock: interrupts are off), else a spinlock shared
 *         by CPU number modulo K, dropped before any wait for room. A
 *         CMD_SYNC takes no shared lock: its wait ends when CONS is past
 *         it, or when the gather word's free-running prod is more than a
 *         queue past it (arm_smmu_cmdq_sync_overtaken()).
 *   S  queue entries (1 << max_n_shift).   N  CPUs issuing lists.
 *   B  entries of the longest list, its CMD_SYNC included: the driver's
 *      batch + 1 (v1: batch_max + 1, v2: CMDQ_BATCH_ENTRIES + 1). v2 reserves
 *      with the add when N * B <= S / 2 (arm_smmu_cmdq_reserve_mode()).
 *   T  lists issued in the run, by whichever CPUs take them (0: no bound).
 *   START, PREFILL  the run starts with the queue empty at index START (the
 *      valid bits as the lap before left them), then PREFILL entries from
 *      START on published and not yet consumed, as an earlier owner left them.
 *   SHAPES 0: any list, n commands (0..B-1) and a CMD_SYNC or not; 1: a lone
 *      CMD_SYNC, one command, a full batch, a full batch and a CMD_SYNC.
 *   LOCK 1 (default): the cmdq lock is modelled (shared for each CMD_SYNC,
 *      exclusive to refresh cons); 0 drops it and cons is refreshed freely.
 *   TIMEOUT 1 (default): queue_poll()'s timeout may end the spin of
 *      arm_smmu_cmdq_poll_until_space(); 0: a CPU that needs it waits for good.
 *   SPINFIX 1 (default): that spin also ends once the cmdq lock is free,
 *      and the caller retries the exclusive trylock (patches/0002, "Retry
 *      the exclusive trylock while waiting for a free slot"); 0: as
 *      mainline and S1 v2 were before the model found the stall (only
 *      cons moving, room or the timeout end it).
 *   K  v3: tokens (default N; the driver has min(N, S / (2 * B) + 1)).
 *   MUTANT 1: v2's or v3's slack one list short; 2: v2 with no shared lock
 *      for a CMD_SYNC; 3: v3 with K < N and no token lock (each CPU acts as
 *      if its token were its own); 4: v3's CMD_SYNC wait without the
 *      overtaken exit (CONS only, and no lock); 5: v3's CONS wait first
 *      looking at the shared cons, which may still be what its own check
 *      read (a cold review's point 1, 2026-12-04).
 *   LIVE: adds the LTL claim `live' (check with pan -a -f).
 *
 * Modelling choices:
 *  - Indices are kept as the driver keeps them, index and wrap bit, that is
 *    modulo W = 2S, and the model makes the driver's comparisons with the
 *    driver's arithmetic on them (HAS_SPACE, CONSUMED, the valid map's wrap
 *    bit, owner_prod). The ghost checks measure distances from the SMMU's
 *    own cons, and every step that widens one asserts that it stays below W,
 *    so the modulus hides nothing from them.
 *  - A run is T lists in all. Which CPU issues the next one is the
 *    scheduler's choice, so one CPU may issue most of them while the others
 *    are stalled, and with START and PREFILL a run can begin at the edge of
 *    a full queue and across its wrap.
 *  - The SMMU consumes in order, one entry at a time; as only a read of its
 *    CONS register tells how far it got, it is modelled lazily: such a read
 *    returns any value from the last one read up to PROD, and consumes the
 *    entries before it then (SMMU_TO). A CPU's decisions rest on the cons
 *    values it read, so the checks lose nothing by it.
 *  - One atomic{} is one shared access of the C code, with what the CPU
 *    computes from it and ghost bookkeeping. A few steps are merged with
 *    their neighbour where no other CPU can tell the difference: writing the
 *    entries and setting their valid bits (no one reads either before the
 *    bits are set: only the owner polls them, and the SMMU reads what is
 *    published), an owner's wait for owner_prod with its fetch_and (the
 *    wait, once over, stays over), its step d with e, and the retries of a
 *    poll loop with the read that ends them. Memory is sequentially
 *    consistent: the barriers (smp_rmb(), dma_wmb(), the release stores) are
 *    taken to do their job, which is for the LKMM litmus tests to show.
 *  - The gather word's PROD is kept modulo W plus what the open gathering
 *    carried past it, as the first v2 folded it. Patch 4 now lets PROD run
 *    free, because the fold allowed an ABA on the cmpxchg(): a CPU stalled
 *    between its check and its cmpxchg() through two laps found the same
 *    word again (tools/native/schedules/v2-gather-aba.sched). These bounded
 *    runs (T lists) are too short for a stall of two laps, so they could
 *    not find it, and they do not tell the two layouts apart.
 *  - v2's arm_smmu_cmdq_snapshot() reads cons, gather, cons and retries
 *    unless both reads of cons agree: a snapshot that succeeds is then the
 *    pair at the moment gather was read, and is modelled as one atomic read
 *    (short of cons moving by a whole W between its two reads).
 *  - Waits are blocking guards, and a poll loop is modelled by the
 *    iterations that can change something: a retry when cons or prod moved
 *    since the last look, or when the exclusive trylock would succeed and
 *    can read a newer cons; an iteration that reads the same values again
 *    is a stutter. So a state where everyone waits is a real deadlock, and
 *    spin reports it as an invalid end state. CMD_SYNC timeouts, command
 *    errors and the MSI completion path are not modelled.
 *  - The entries themselves are ghost state: for each slot, whether it holds
 *    an entry the SMMU has yet to consume (ent), the wrap bit of the index it
 *    was written for (elap), and whose CMD_SYNC it is (sowner).
 *  - v3's ghosts gcnt and scnt count the entries reserved and consumed
 *    since index 0 of lap 0, without a modulus (a run is short enough): the
 *    driver's CMDQ_GATHER_PROD runs free in 38 bits, which gcnt stands for,
 *    and scnt says whether a CMD_SYNC was really consumed.
 *  - The printf()s tell a trail's story (spin -t); pan does not run them.
 */

#ifndef V
#define V 2
#endif
#ifndef S
#define S 8
#endif
#ifndef N
#define N 2
#endif
#ifndef B
#define B 2
#endif
#ifndef T
#define T 0
#endif
#ifndef LOCK
#define LOCK 1
#endif
#ifndef START
#define START 0
#endif
#ifndef PREFILL
#define PREFILL 0
#endif
#ifndef SHAPES
#define SHAPES 0
#endif
#ifndef MUTANT
#define MUTANT 0
#endif
#ifndef TIMEOUT
#define TIMEOUT 1
#endif
#ifndef SPINFIX
#define SPINFIX 1
#endif

#define W	(2 * S)			/* index + wrap bit */
#define IDX(x)	((x) % S)		/* Q_IDX() */
#define WRP(x)	((x) / S)		/* Q_WRP() != 0 */
#define INC(x, n)	(((x) + (n)) % W)	/* queue_inc_prod_n() */
#define DIST(a, b)	(((a) + W - (b)) % W)	/* (a - b) & GENMASK(shift, 0) */

/* queue_has_space(): used <= size && size - used >= n */
#define HAS_SPACE(p, c, n)	(DIST(p, c) <= S && S - DIST(p, c) >= (n))

/* queue_consumed(llq with cons c, prod p) */
#define CONSUMED(c, p) \
	((WRP(c) == WRP(p) && IDX(c) > IDX(p)) || (WRP(c) != WRP(p) && IDX(c) <= IDX(p)))

/* __arm_smmu_cmdq_poll_set_valid_map(): the valid bit is the inverse of the wrap bit */
#define VALID(j)	(vmap[IDX(j)] != WRP(j))

#if V == 2
/* arm_smmu_cmdq_reserve_mode(): the add only while the slack leaves half the queue */
#if N * B <= S / 2
#define RESERVE_ADD 1
#if MUTANT == 1
#define SLACK ((N - 2) * B)		/* mutant: one list short */
#else
#define SLACK ((N - 1) * B)
#endif
#else
#define RESERVE_ADD 0
#define SLACK 0
#endif
#endif
#if V == 3
#ifndef K
#define K N
#endif
#define RESERVE_ADD 1
#if MUTANT == 1
#define SLACK ((K - 2) * B)		/* mutant: one list short */
#else
#define SLACK ((K - 1) * B)
#endif
/* the token a CPU holds from its check to its add: a lock only when shared */
#if K < N && MUTANT != 3
#define TOKEN_TAKE	atomic { tok[_pid % K] == 0 -> tok[_pid % K] = _pid + 1 }
#define TOKEN_PUT	assert(tok[_pid % K] == _pid + 1); tok[_pid % K] = 0
#else
#define TOKEN_TAKE	skip
#define TOKEN_PUT	skip
#endif
/* arm_smmu_cmdq_sync_overtaken(cmdq, pos) */
#if MUTANT == 4
#define OVERTAKEN	0
#else
#define OVERTAKEN	(gcnt - spos > S)
#endif
#define GHOST_CONSUMED	scnt++
#else
#define GHOST_CONSUMED	skip
#endif

#define LOCK_MIN (-64)			/* INT_MIN: far below any count of sharers */

#if T > 0
byte budget = T;	/* lists left to issue in this run */
#endif
#if START > 0 || PREFILL > 0
bit started;		/* the queue the run starts from is set up */
#else
bit started = 1;
#endif

/* the cmdq */
byte gfield;		/* cmdq->gather, PROD: prod, with what this gathering carried past W */
byte glists;		/* cmdq->gather, LISTS (v1: CPUS) */
#if V == 1
byte gsyncs;		/* v1: cmdq->gather, SYNCS */
#endif
byte cons_snap;		/* cmdq->q.llq.cons */
byte owner_prod;	/* cmdq->owner_prod */
short lock;		/* cmdq->lock */
bit vmap[S];		/* cmdq->valid_map */
#if V == 3 && K < N
byte tok[K];		/* v3: the shared tokens' spinlocks (holder + 1) */
#endif
/* the SMMU */
byte hw_prod;		/* the PROD register */
byte smmu_cons;		/* the CONS register */

/* ghost state: what the checks need, not in the driver */
bit ent[S];		/* the slot holds an entry the SMMU has yet to consume */
bit elap[S];		/* ... written for an index with this wrap bit */
byte sowner[S];		/* ... which is the CMD_SYNC of CPU sowner - 1 (0: none) */
bit gown;		/* the open gathering has its owner */
bit ocs;		/* an owner is between its steps a and e */
bit xheld;		/* the cmdq lock is held exclusively */
byte nwait;		/* CPUs waiting for their CMD_SYNC */
byte ndone;		/* CPUs done with the run */
short gcnt;		/* v3: entries ever reserved (CMDQ_GATHER_PROD, free-running) */
short scnt;		/* v3: entries ever consumed by the SMMU */


/* the cmdq lock's count of sharers is never negative */
#define LOCKCHK	assert((xheld && lock >= LOCK_MIN && lock < 0) || (!xheld && lock >= 0))

/* WRITE_ONCE(cmdq->q.llq.cons, v): cons never moves back, nor past the SMMU's */
#define CONS_WRITE(v) \
	assert(DIST(v, cons_snap) <= DIST(smmu_cons, cons_snap)); \
	cons_snap = v; \
	printf("cpu%d: cons = %d\n", _pid, cons_snap)

/*
 * The SMMU consumes while CONS != PROD, one entry at a time, in order, up to
 * v, lazily (see above). No command is lost: each entry it consumes was
 * written, for this lap.
 */
#define SMMU_TO(v) \
	do \
	:: smmu_cons != v -> \
		assert(ent[IDX(smmu_cons)] && elap[IDX(smmu_cons)] == WRP(smmu_cons)); \
		ent[IDX(smmu_cons)] = 0; \
		elap[IDX(smmu_cons)] = 0; \
		sowner[IDX(smmu_cons)] = 0; \
		GHOST_CONSUMED; \
		smmu_cons = INC(smmu_cons, 1) \
	:: else -> break \
	od
/* v = readl(cmdq->q.cons_reg), from v on (v is at most PROD) */
#define READL_FROM(v) \
	do \
	:: v != hw_prod -> v = INC(v, 1) \
	:: break \
	od; \
	SMMU_TO(v)
/*
 * A refresh of cmdq->q.llq.cons is modelled when the SMMU may have moved
 * past it, and reads a new value (the same value again is a stutter)
 */
#define REFRESH_USEFUL	(hw_prod != cons_snap)
#define READL_NEW(v) \
	v = smmu_cons; \
	if \
	:: v == cons_snap -> v = INC(v, 1) \
	:: else \
	fi; \
	READL_FROM(v)

/*
 * The ghost checks of reserving [start, start + k): the distances stay below
 * W; exactly one owner a gathering (old LISTS == 0).
 */
#define RESERVE_CHECKS \
	assert(DIST(start, smmu_cons) + DIST(smmu_cons, cons_snap) + k < W); \
	if \
	:: gl == 0 -> assert(!gown); gown = 1; owner = 1 \
	:: else -> assert(gown) \
	fi; \
	printf("cpu%d: reserved [%d,%d): %d commands + %d CMD_SYNC, owner %d\n", \
	       _pid, start, INC(start, k), n, sync, owner)

/*
 * 2. Write our commands into the queue: arm_smmu_cmdq_write_entries(cmdq,
 * cmds, llq.prod, n), and the CMD_SYNC's queue_write(Q_ENT(&cmdq->q, prod),
 * ...). No slot is written before the SMMU has consumed what it held.
 */
#define WRITE_ENTRIES \
	j = start; \
	do \
	:: j != INC(start, k) -> \
		assert(DIST(j, smmu_cons) < S && !ent[IDX(j)]); \
		ent[IDX(j)] = 1; \
		elap[IDX(j)] = WRP(j); \
		if \
		:: sync && j == INC(start, n) -> sowner[IDX(j)] = _pid + 1 \
		:: else \
		fi; \
		j = INC(j, 1) \
	:: else -> break \
	od

/* 3. dma_wmb(); arm_smmu_cmdq_set_valid_map(cmdq, llq.prod, head.prod) */
#define SET_VALID \
	j = start; \
	do \
	:: j != INC(start, k) -> vmap[IDX(j)] = 1 - vmap[IDX(j)]; j = INC(j, 1) \
	:: else -> break \
	od; \
	j = 0; \
	nwait = nwait + (sync && !owner); \
	printf("cpu%d: wrote [%d,%d), valid\n", _pid, start, INC(start, k))

/*
 * 4d. writel_relaxed(prod, cmdq->q.prod_reg), in order and with no gap, never
 * more than a queue ahead of the SMMU; and 4e. atomic_set_release(
 * &cmdq->owner_prod, prod). Nothing reads owner_prod but the next owner, and
 * nothing reads the PROD register but the SMMU, so the two are one step.
 */
#define PUBLISH \
	assert(hw_prod == start && DIST(fin, smmu_cons) <= S); \
	hw_prod = fin; \
	printf("cpu%d: published [%d,%d)\n", _pid, start, fin); \
	owner_prod = fin; \
	ocs = 0; \
	fin = 0; \
	nwait = nwait + sync

/* the lists' end: forget the list */
#define NEXT_LIST \
	start = 0; n = 0; k = 0; sync = 0; owner = 0; lc = 0; \
	goto end_idle

active [N] proctype cpu()
{
	byte n, k, c, gp, gl, start, fin, j, lc;
	bit sync, owner;
#if LOCK
	short old;
#endif
#if V == 1
	byte nsync;
#endif
#if V == 3
	short spos;	/* where our CMD_SYNC is, as gcnt counts */
	byte cc;	/* the cons our last check read */
#endif

end_idle:
	/*
	 * A caller: arm_smmu_cmdq_issue_cmdlist(smmu, cmdq, cmds, n, sync),
	 * n <= batch commands and maybe a CMD_SYNC, at least one entry.
	 * 1. Allocate some space in the queue, and join the gathering.
	 */
	atomic {
		started;
#if T > 0
		if
		:: budget > 0 -> budget--
		:: else -> goto done
		fi;
#endif
#if SHAPES
		/* a lone CMD_SYNC, one command, a full batch, a full batch and a CMD_SYNC */
		if
		:: n = 0; sync = 1
		:: B > 1 -> n = 1; sync = 0
		:: B > 2 -> n = B - 1; sync = 0
		:: B > 1 -> n = B - 1; sync = 1
		fi;
#else
		/* any n from 0 to batch, any sync, not both none */
		select (n : 0 .. B - 1);
		if
		:: n > 0 -> if :: sync = 0 :: sync = 1 fi
		:: else -> sync = 1
		fi;
#endif
		k = n + sync;
#if V >= 2
		goto snapshot
#else
		/* llq.cons = READ_ONCE(cmdq->q.llq.cons) */
		c = cons_snap
#endif
	};

#if V == 1
check:
	/*
	 * llq.prod = arm_smmu_cmdq_gather_prod(atomic64_read(&cmdq->gather), shift);
	 * if (queue_has_space(&llq, n + sync)) break;
	 */
	atomic {
		gp = gfield;
		if
		:: HAS_SPACE(gp % W, c, k) ->
			printf("cpu%d: room at prod %d, cons %d\n", _pid, gp % W, c);
			gp = 0
		:: else ->
			printf("cpu%d: no room at prod %d, cons %d\n", _pid, gp % W, c);
			goto poll
		fi
	};
	/* old = atomic64_fetch_add_relaxed(arm_smmu_cmdq_gather_add(n, sync), &cmdq->gather) */
	atomic {
		gl = glists;
		start = gfield % W;
		gfield = gfield + k;
		glists++;
		gsyncs = gsyncs + sync;
		assert(gfield < 2 * W);
		RESERVE_CHECKS;
		gl = 0;
		lc = c;
		c = 0
	};
	/*
	 * Others may have reserved after our check: wait for our slots.
	 * while (!queue_has_space(&llq, n + sync))
	 *	arm_smmu_cmdq_poll_until_space(smmu, cmdq, &llq, n + sync);
	 * then write the entries and set their valid bits.
	 */
v1_wait_space:
	atomic {
		if
		:: HAS_SPACE(start, lc, k) -> lc = 0
		:: else ->
			printf("cpu%d: waits for its slots [%d,%d), cons %d\n", _pid, start, INC(start, k), lc);
			goto v1_poll
		fi;
		WRITE_ENTRIES;
		SET_VALID
	};
#else /* V >= 2 */
#if RESERVE_ADD
add:
	/*
	 * old = atomic64_fetch_add_relaxed(arm_smmu_cmdq_gather_add(n + sync), &cmdq->gather),
	 * and our slots are free: write the entries at once
	 */
	atomic {
		gl = glists;
		start = gfield % W;
#else
cmpxchg:
	/*
	 * atomic64_try_cmpxchg_relaxed(&cmdq->gather, &old, old +
	 * arm_smmu_cmdq_gather_add(n + sync)); a failure snapshots again.
	 * Our slots are free: write the entries at once.
	 */
	atomic {
		if
		:: gfield == gp && glists == gl -> skip
		:: else -> goto snapshot
		fi;
		start = gp % W;
#endif
		gfield = gfield + k;
		glists++;
#if V == 3
		spos = gcnt + n;
		gcnt = gcnt + k;
		TOKEN_PUT;
		if
		:: !sync -> cc = 0
		:: else
		fi;
#endif
		assert(gfield < 2 * W);
		RESERVE_CHECKS;
		/* the series' claim: prod stays within a queue of cons */
		assert(DIST(start, smmu_cons) + k <= S);
		gl = 0;
		gp = 0;
		WRITE_ENTRIES;
		if
		:: !(LOCK && sync && V == 2) -> SET_VALID
		:: else
		fi
	};
#if LOCK && V == 2
	if
	:: sync ->
		/*
		 * arm_smmu_cmdq_shared_lock(cmdq): atomic_fetch_inc_relaxed(&cmdq->lock),
		 * then, unless held exclusively, set the valid bits
		 */
		atomic {
			old = lock;
#if MUTANT != 2
			lock++;
#endif
			LOCKCHK;
			if
			:: old >= 0 -> old = 0; SET_VALID
			:: else
			fi
		};
		if
		:: old < 0 ->
			/* atomic_cond_read_relaxed(&cmdq->lock, VAL > 0), then set the valid bits */
			atomic { lock > 0 -> old = 0; SET_VALID }
		:: else
		fi
	:: else
	fi;
#endif
#endif /* V >= 2 */

	/* 4. If we are the owner, take control of the SMMU hardware */
	if
	:: owner ->
		/*
		 * a. atomic_cond_read_relaxed(&cmdq->owner_prod, VAL == llq.prod);
		 * b. old = atomic64_fetch_and_relaxed(GENMASK_ULL(shift, 0), &cmdq->gather);
		 *    prod = arm_smmu_cmdq_gather_prod(old, shift);
		 */
owner_wait:
		atomic {
			owner_prod == start ->
			assert(!ocs);
			ocs = 1;
			fin = gfield % W;
			gfield = fin;
			glists = 0;
#if V == 1
			nsync = gsyncs;
			gsyncs = 0;
#endif
			assert(gown);
			gown = 0;
			printf("cpu%d: owner, gathered [%d,%d)\n", _pid, start, fin);
			j = start
		};
		/*
		 * c. arm_smmu_cmdq_poll_valid_map(cmdq, llq.prod, prod): slot by
		 * slot, as many as are valid at once
		 */
owner_poll:
		do
		:: atomic {
			j != fin && VALID(j) ->
			do
			:: j != fin && VALID(j) ->
				/* the valid bit is not a stale one */
				assert(ent[IDX(j)] && elap[IDX(j)] == WRP(j));
				j = INC(j, 1)
			:: else -> break
			od
		   }
		:: j == fin -> break
		od;
#if V == 1 && LOCK
		if
		:: nsync > 0 ->
			/* v1: arm_smmu_cmdq_shared_lock_n(cmdq, nsync): atomic_fetch_add_relaxed(n, &cmdq->lock) */
			atomic { old = lock; lock = lock + nsync; nsync = 0; LOCKCHK };
			if
			:: old < 0 ->
				/* atomic_cond_read_relaxed(&cmdq->lock, VAL > 0) */
				atomic { lock > 0 -> old = 0 }
			:: else -> old = 0
			fi
		:: else
		fi;
#elif V == 1
		nsync = 0;
#endif
		/* d. writel_relaxed(prod, cmdq->q.prod_reg); e. atomic_set_release(&cmdq->owner_prod, prod) */
		atomic {
			PUBLISH;
			if
			:: !sync -> NEXT_LIST
			:: else
			fi
		}
	:: else ->
		if
		:: !sync -> atomic { NEXT_LIST }
		:: else
		fi
	fi;

#if V == 3
	/*
	 * 5. v3: wait for our CMD_SYNC with no lock held.
	 * __arm_smmu_cmdq_poll_until_consumed(): llq->cons =
	 * readl(cmdq->q.cons_reg); then until queue_consumed(llq, prod):
	 * llq->cons = readl(cmdq->q.cons_reg), and stop if
	 * arm_smmu_cmdq_sync_overtaken(cmdq, pos). A poll is modelled when it
	 * ends the wait, by the gather word, or reads a CONS it has not just
	 * read: a waiter with neither waits, and one that reads the same CONS
	 * again stutters (see above).
	 * MUTANT 5: the first look is at the shared cons, as v2's was. After a
	 * relaxed add nothing orders that read, and it may return the value
	 * our own check read, which is stale by more than a queue if we
	 * stalled between check and add while others ran the queue on.
	 */
#if MUTANT == 5
	atomic {
		if
		:: lc = cons_snap
		:: lc = cc
		fi;
		cc = 0
	};
#else
	atomic { lc = smmu_cons; READL_FROM(lc); cc = 0 };
#endif
sync_wait:
	if
	:: atomic { CONSUMED(lc, INC(start, n)) -> skip }
	:: atomic { !CONSUMED(lc, INC(start, n)) && OVERTAKEN -> skip }
	:: atomic { !CONSUMED(lc, INC(start, n)) && hw_prod != lc ->
		j = smmu_cons;
		if
		:: j == lc -> j = INC(j, 1)
		:: else
		fi;
		READL_FROM(j);
		lc = j;
		j = 0;
		if
		:: CONSUMED(lc, INC(start, n)) || OVERTAKEN -> skip
		:: else -> goto sync_wait	/* judged not yet: poll on */
		fi }
	fi;
	atomic {
		/* the SMMU is past our CMD_SYNC: it completed */
		assert(scnt > spos);
		printf("cpu%d: CMD_SYNC at %d done\n", _pid, INC(start, n));
		nwait--;
		NEXT_LIST
	};
#else
	/*
	 * 5. If we are inserting a CMD_SYNC, we must wait for it to complete:
	 * llq.prod = queue_inc_prod_n(&llq, n); __arm_smmu_cmdq_poll_until_consumed():
	 * llq->cons = READ_ONCE(cmdq->q.llq.cons), then llq->cons = readl(cmdq->q.cons_reg)
	 * until queue_consumed(llq, prod). Its CMD_SYNC is then out of the queue.
	 */
sync_wait:
	atomic {
		if
		:: CONSUMED(cons_snap, INC(start, n)) -> lc = cons_snap
		:: sowner[IDX(INC(start, n))] != _pid + 1 ->
			/* the SMMU is past our CMD_SYNC already */
			lc = smmu_cons; READL_FROM(lc)
		:: sowner[IDX(INC(start, n))] == _pid + 1 &&
		   DIST(INC(start, n), smmu_cons) < DIST(hw_prod, smmu_cons) ->
			/* the SMMU can get past it: read a CONS past it */
			lc = INC(start, n + 1); READL_FROM(lc)
		fi;
		if
		:: !CONSUMED(lc, INC(start, n)) -> lc = 0; goto sync_wait	/* judged not yet: poll on */
		:: else
		fi;
		assert(sowner[IDX(INC(start, n))] != _pid + 1);
		printf("cpu%d: CMD_SYNC at %d done\n", _pid, INC(start, n));
		nwait--
	};
#if LOCK
	/* arm_smmu_cmdq_shared_tryunlock(): if (atomic_read(&cmdq->lock) == 1) */
	if
	:: atomic { lock == 1 -> skip };
		/* tryunlock failed, the last sharer: WRITE_ONCE(cmdq->q.llq.cons, llq.cons) */
		atomic { CONS_WRITE(lc) };
		/* arm_smmu_cmdq_shared_unlock(): atomic_dec_return_release(&cmdq->lock) */
		atomic { lock--; LOCKCHK; NEXT_LIST }
	:: atomic { lock != 1 -> skip };
		/* arm_smmu_cmdq_shared_tryunlock(): arm_smmu_cmdq_shared_unlock() */
		atomic { lock--; LOCKCHK; NEXT_LIST }
	fi;
#else
	atomic { NEXT_LIST };
#endif

#endif

	/*
	 * 1. No room: wait for the SMMU, holding nothing, then check again.
	 * v2: arm_smmu_cmdq_poll_until_space(smmu, cmdq, &llq, n + sync +
	 * cmdq->reserve_slack), then the loop takes a new snapshot.
	 * v1: arm_smmu_cmdq_exclusive_trylock_irqsave() and the refresh, or
	 * queue_poll(&qp), then the loop reads cons and prod again.
	 */
poll:
#if V >= 2
	/*
	 * arm_smmu_cmdq_poll_until_space(cmdq, &llq, n + sync + cmdq->reserve_slack, &qp)
	 * A retry is modelled when a new snapshot can differ from the last
	 * (cons or prod moved), or the refresh can read a new cons.
	 */
	if
#if LOCK
	:: atomic { lock == 0 && (REFRESH_USEFUL || cons_snap != c || gfield != gp) ->
		/* arm_smmu_cmdq_exclusive_trylock_irqsave() succeeds */
		lock = LOCK_MIN; xheld = 1; LOCKCHK };
		/* WRITE_ONCE(cmdq->q.llq.cons, readl_relaxed(cmdq->q.cons_reg)) */
		atomic {
			if
			:: REFRESH_USEFUL -> READL_NEW(j)
			:: else -> j = cons_snap
			fi;
			CONS_WRITE(j);
			j = 0
		};
		/*
		 * arm_smmu_cmdq_exclusive_unlock_irqrestore(); return 0, or
		 * queue_poll(qp) first if there is still no room (a wait, which
		 * the model leaves out): snapshot again
		 */
		atomic { assert(lock < 0); lock = lock - LOCK_MIN; xheld = 0; LOCKCHK; c = 0; gp = 0; gl = 0; goto snapshot }
	:: atomic { lock != 0 ->
		/* arm_smmu_cmdq_exclusive_trylock_irqsave() fails */
		printf("cpu%d: spins for room at prod %d\n", _pid, gp % W) };
		/*
		 * do { llq->cons = READ_ONCE(cmdq->q.llq.cons);
		 * if (llq->cons != cons || queue_has_space(llq, n))
		 * return 0; ...; ret = queue_poll(qp); } while (!ret &&
		 * atomic_read(&cmdq->lock)) (SPINFIX: the lock test), with cons
		 * the caller's: llq->prod is still the snapshot's. queue_poll()'s
		 * timeout (one second without cons moving; the caller restarts it
		 * on progress) ends it too (TIMEOUT), which is modelled when it
		 * can lead somewhere: a CPU that needs it when TIMEOUT is 0 waits
		 * for good. The return value (0, -EAGAIN, -ETIMEDOUT) only decides
		 * whether the caller restarts that timeout and what it prints.
		 */
poll_spin:
		if
		:: atomic { cons_snap != c || HAS_SPACE(gp % W, cons_snap, k + SLACK) ||
			    (SPINFIX && lock == 0) ->
			c = 0; gp = 0; gl = 0; goto snapshot }
#if TIMEOUT
		:: atomic { REFRESH_USEFUL || gfield != gp ->
			printf("cpu%d: CMDQ timeout\n", _pid);
			c = 0; gp = 0; gl = 0; goto snapshot }
#endif
		fi
#else
	:: atomic { REFRESH_USEFUL || cons_snap != c || gfield != gp ->
		/* WRITE_ONCE(cmdq->q.llq.cons, readl_relaxed(cmdq->q.cons_reg)), no lock */
		if
		:: REFRESH_USEFUL -> READL_NEW(j)
		:: else -> j = cons_snap
		fi;
		CONS_WRITE(j);
		j = 0; c = 0; gp = 0; gl = 0;
		goto snapshot }
#endif
	fi;
#else /* V == 1 */
	/*
	 * The loop: arm_smmu_cmdq_exclusive_trylock_irqsave() and the refresh,
	 * or queue_poll(&qp); then it reads cons and prod again. A retry is
	 * modelled when cons or prod moved, or the refresh can read a new cons.
	 */
	if
#if LOCK
	:: atomic { lock == 0 && REFRESH_USEFUL ->
		/* arm_smmu_cmdq_exclusive_trylock_irqsave() */
		lock = LOCK_MIN; xheld = 1; LOCKCHK };
		/* WRITE_ONCE(cmdq->q.llq.cons, readl_relaxed(cmdq->q.cons_reg)) */
		atomic { READL_NEW(j); CONS_WRITE(j); j = 0 };
		/* arm_smmu_cmdq_exclusive_unlock_irqrestore(&cmdq, flags) */
		atomic { assert(lock < 0); lock = lock - LOCK_MIN; xheld = 0; LOCKCHK };
#else
	:: atomic { REFRESH_USEFUL ->
		/* WRITE_ONCE(cmdq->q.llq.cons, readl_relaxed(cmdq->q.cons_reg)), no lock */
		READL_NEW(j); CONS_WRITE(j); j = 0 };
#endif
		/* llq.cons = READ_ONCE(cmdq->q.llq.cons) */
		atomic { c = cons_snap; gp = 0; goto check }
	:: atomic { cons_snap != c || gfield != gp ->
		/* queue_poll(&qp); llq.cons = READ_ONCE(cmdq->q.llq.cons) */
		c = cons_snap; gp = 0; goto check }
	fi;
#endif

#if V >= 2
	/*
	 * arm_smmu_cmdq_snapshot(): cons, smp_rmb(), gather, smp_rmb(), cons
	 * again, as one read (see above); then
	 * if (!queue_has_space(&llq, n + sync + cmdq->reserve_slack))
	 * poll for space. v3 takes its token first, and puts it back before
	 * it polls.
	 */
snapshot:
#if V == 3
	TOKEN_TAKE;
#endif
	atomic {
		c = cons_snap;
		gp = gfield;
#if !RESERVE_ADD
		gl = glists;
#endif
		if
		:: HAS_SPACE(gp % W, c, k + SLACK) ->
			printf("cpu%d: room at prod %d, cons %d\n", _pid, gp % W, c);
#if V == 3
			cc = c;
#endif
			c = 0
#if RESERVE_ADD
			; gp = 0; goto add
#else
			; goto cmpxchg
#endif
		:: else ->
			printf("cpu%d: no room at prod %d, cons %d\n", _pid, gp % W, c);
#if V == 3
			TOKEN_PUT;
#endif
			goto poll
		fi
	};
#else
	/*
	 * v1: the wait for our own slots after the add:
	 * arm_smmu_cmdq_poll_until_space(smmu, cmdq, &llq, n + sync)
	 */
v1_poll:
	if
#if LOCK
	:: atomic { lock == 0 && REFRESH_USEFUL ->
		/* arm_smmu_cmdq_exclusive_trylock_irqsave() */
		lock = LOCK_MIN; xheld = 1; LOCKCHK };
		/* WRITE_ONCE(cmdq->q.llq.cons, readl_relaxed(cmdq->q.cons_reg)) */
		atomic { READL_NEW(j); CONS_WRITE(j); j = 0 };
		/* arm_smmu_cmdq_exclusive_unlock_irqrestore(); llq->cons = READ_ONCE(cmdq->q.llq.cons) */
		atomic { assert(lock < 0); lock = lock - LOCK_MIN; xheld = 0; LOCKCHK; lc = cons_snap; goto v1_wait_space }
#else
	:: atomic { REFRESH_USEFUL -> READL_NEW(j); CONS_WRITE(j); j = 0; lc = cons_snap; goto v1_wait_space }
#endif
	:: atomic { cons_snap != lc ->
		/*
		 * its spin: llq->cons = READ_ONCE(cmdq->q.llq.cons), until
		 * queue_has_space() or queue_poll() times out
		 */
		lc = cons_snap; goto v1_wait_space }
	fi;
#endif
done:
	ndone++
}

#if START > 0 || PREFILL > 0
/*
 * The queue the run starts from: empty at index START, the valid bits as
 * the lap before left them; then PREFILL entries from START on, published
 * and not yet consumed (a gathering of some earlier owner), cons at START.
 */
active proctype setup()
{
	byte i;

	atomic {
		do
		:: i < S ->
			vmap[i] = (i < IDX(START) -> 1 - WRP(START) : WRP(START));
			i++
		:: else -> break
		od;
		i = START;
		do
		:: i != INC(START, PREFILL) ->
			ent[IDX(i)] = 1;
			elap[IDX(i)] = WRP(i);
			vmap[IDX(i)] = 1 - vmap[IDX(i)];
			i = INC(i, 1)
		:: else -> break
		od;
		cons_snap = START;
		smmu_cons = START;
		hw_prod = INC(START, PREFILL);
		gfield = hw_prod;
		gcnt = START + PREFILL;
		scnt = START;
		owner_prod = hw_prod;
		i = 0;
		started = 1
	}
}
#endif

#ifdef LIVE
#if T == 0
#error the claim live is for runs that end (T > 0)
#endif
/*
 * Under weak fairness: again and again everything reserved is published
 * (PROD reaches the gather word's prod), so every reservation is: hw_prod
 * passes it; again and again no CPU waits for its CMD_SYNC, so none waits
 * forever; and every CPU gets through its lists. With T > 0 a run ends, so
 * this says that every run ends, with all published and nobody waiting.
 */
ltl live { ([] <> (hw_prod == gfield % W)) && ([] <> (nwait == 0)) && (<> (ndone == N)) }
#endif
