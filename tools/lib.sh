# shellcheck shell=bash
# The variables set here are used by the tools that source this file.
# shellcheck disable=SC2034
# Shared library of the iommu-scale tools. Every tool sources this file and
# nothing else. Its sections follow the data: settings; messages and steps;
# the kernel tree and its base; worktrees; the series (apply, export,
# mails); kernel builds; the gates; the benchmarks.

set -euo pipefail
# errexit also inside $(...): a failing command there ends the substitution
shopt -s inherit_errexit

# ---- Settings ------------------------------------------------------------
# The tooling runs on Debian's packages (make deps): put them first, ahead
# of any other python3 or gcc on the PATH, so that, for example,
# checkpatch's spdxcheck.py finds python3-ply.
PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=tools/series/base.pin
. "$TOP/tools/series/base.pin"

CACHE_DIR=${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/iommu-scale}
# The real path: kbuild resolves its source tree with realpath, so the paths
# in warnings, and in ccache's base directory, are the resolved ones. A cache
# reached through a symlink must compare and hash the same paths.
CACHE_DIR=$(realpath -m "$CACHE_DIR")
PATCHES_DIR=${PATCHES_DIR:-$TOP/patches}
JOBS=${JOBS:-$(nproc)}
KERNEL_SRC=${KERNEL_SRC:-}
BASE_REF=${BASE_REF:-}
export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache}
# ccache's depend mode: a miss compiles once, and the compiler's own -MMD
# output (kbuild passes -Wp,-MMD) names the headers to hash, where the
# default mode runs the preprocessor first on every miss. Measured on this
# project's arm64 kernel/ and mm/ (2026-12-02, 2 cores, empty caches): 169 s
# by default, 125 s in depend mode, 13 s when hit. It gives up the
# preprocessed-output hits across different configs, which the kernels here
# do not share anyway. CCACHE_NODEPEND=1 turns it off.
export CCACHE_DEPEND=${CCACHE_DEPEND:-1}

# What a kernel prints when something went wrong that a test does not see
# by itself: an oops, BUG or WARNING, KASAN, UBSAN, lockdep, debugobjects,
# RCU and lockup reports, the SMMU's command-queue timeouts, kmemleak. One
# extended regular expression, and the one list: a boot (tools/bench/boot) and a
# KUnit run (tools/gates/ktap) both fail on any line it matches.
KERNEL_REPORTS='Oops|BUG:|WARNING:|Kernel panic|Unable to handle kernel|Internal error:|kernel BUG at|KASAN:|UBSAN:|ODEBUG: |soft lockup|hard LOCKUP|rcu_.*detected stall|blocked for more than|circular locking|inconsistent lock state|possible recursive locking|suspicious RCU usage|CMDQ timeout|CMD_SYNC timeout|kmemleak: [0-9]+ new suspected'
# The one report line a judge lets pass, and why: the arm-smmu-v3-cmdq KUnit
# cases msi_timeout and gerror stop their fake SMMU on a command error, so
# that a CMD_SYNC times out on purpose (the cases check that it did). Only
# that line, only from their device (arm-smmu-v3-cmdq-test): the same line
# from any other device, a "CMDQ timeout", or anything else still fails.
KERNEL_REPORTS_EXPECTED=' arm-smmu-v3-cmdq-test: CMD_SYNC timeout at '

# the awk functions the reports share (sort, stats, median)
STATS_AWK=$(<"$TOP/tools/bench/stats.awk")

BASE_REPO=$CACHE_DIR/base/linux
BASE_TAG=iommu-scale-base
TREE_BRANCH=iommu-scale/series

TOOL=$(basename "$0")

# ---- Messages, steps and commands --------------------------------------

msg() { printf '%s: %s\n' "$TOOL" "$*" >&2; }

# die TEXT...: one paragraph saying what failed and what to do, then exit 1.
die() {
	printf '\n%s: error: %s\n\n' "$TOOL" "$*" >&2
	exit 1
}

# step NAME CMD...: run CMD with a start line and an end line that carries
# the elapsed time, so a long step (fetch, extract, build, boot) is never
# silent. The command's status is returned unchanged. CMD runs under
# errexit_run, so a failing command inside a function ends the step.
step() {
	local name=$1 t0 rc=0
	shift
	t0=$(date +%s)
	printf '>>> %s\n' "$name" >&2
	errexit_run "$@" || rc=$?
	if [ "$rc" = 0 ]; then
		printf '<<< %s: done in %ss\n' "$name" "$(($(date +%s) - t0))" >&2
	else
		printf '<<< %s: FAILED after %ss\n' "$name" "$(($(date +%s) - t0))" >&2
	fi
	return "$rc"
}

# errexit_run CMD...: run CMD with errexit, pipefail and inherit_errexit on,
# wherever it is called from, and return its status. Bash ignores errexit
# in everything a condition runs (if, while, ||, &&, !), functions and
# subshells included, and 'set -e' cannot turn it back on there; only a new
# process starts clean. So CMD runs in a child bash that is given this
# shell's functions and variables (not its traps: an EXIT trap stays with
# the tool). CMD cannot set this shell's variables; die() in it ends CMD.
errexit_run() {
	local defs
	defs=$(
		declare -p | grep -vE '^declare -[a-zA-Z-]*r|^declare -[a-zA-Z-]* (BASH[A-Z_]*|FUNCNAME|GROUPS|PIPESTATUS|DIRSTACK|_|LINENO|RANDOM|SRANDOM|SECONDS|EPOCH[A-Z]*|HISTCMD|SHLVL|COMP_[A-Z]*|OPTIND|OPTERR)(=|$)'
		declare -f
	)
	# the definitions come through a file of their own (a process
	# substitution), so that no descriptor of the caller's is taken
	bash -c '. "$1"; shift; set -euo pipefail; shopt -s inherit_errexit; "$@"' "$0" <(printf '%s\n' "$defs") "$@"
}
need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 ||
			die "'$c' is not installed. Run 'make deps' to install the Debian packages the tooling needs."
	done
}

# ---- The kernel tree, its base commit, and the private apt fetch --------

# The kernel tree the series applies to: the user's KERNEL_SRC, or the
# pinned base in the cache. Prints the repository path.
kernel_repo() {
	if [ -z "$KERNEL_SRC" ]; then
		printf '%s\n' "$BASE_REPO"
		return
	fi
	[ -d "$KERNEL_SRC" ] ||
		die "KERNEL_SRC=$KERNEL_SRC does not exist. Point KERNEL_SRC at a git checkout of Linux, or leave it unset to use the pinned base ($BASE_PACKAGE $BASE_VERSION)."
	local top
	top=$(git -C "$KERNEL_SRC" rev-parse --show-toplevel 2>/dev/null) ||
		die "KERNEL_SRC=$KERNEL_SRC is not a git repository. The series is applied on a new branch in a worktree, which needs git: run 'git init && git add -A && git commit' there first, or leave KERNEL_SRC unset to use the pinned base."
	[ "$top" = "$(cd "$KERNEL_SRC" && pwd -P)" ] ||
		die "KERNEL_SRC=$KERNEL_SRC is not the top of a git repository: it lies inside $top. Point KERNEL_SRC at the top of a Linux checkout."
	if [ -n "$(git -C "$top" status --porcelain --untracked-files=no)" ]; then
		die "KERNEL_SRC=$top has uncommitted changes. Nothing was done: commit or stash them first ('git -C $top stash'), so that the base of the series is a commit."
	fi
	printf '%s\n' "$top"
}

# The commit the series applies to.
base_commit() {
	local repo=$1 ref
	if [ -z "$KERNEL_SRC" ]; then
		ref=${BASE_REF:-$BASE_TAG}
	else
		ref=${BASE_REF:-HEAD}
	fi
	git -C "$repo" rev-parse --verify --quiet "$ref^{commit}" ||
		die "base ref '$ref' is not a commit in $repo. Set BASE_REF to a commit, tag or branch of that tree."
}

# deb_unpack PACKAGE VERSION SHA256 DIR: fetch Debian's PACKAGE=VERSION
# with apt-get download (never installed), check it against SHA256, and
# unpack it into DIR (a new directory). Dies, naming the pin, when the
# machine's apt sources do not carry that version or the sha256 differs.
deb_unpack() {
	local pkg=$1 ver=$2 sum=$3 dir=$4 deb got
	need_cmd apt-get dpkg-deb sha256sum
	mkdir -p "$dir"
	deb=$dir/${pkg}_${ver}_all.deb
	# apt-get download writes into the current directory, as the _apt user
	# where it can: a private directory makes it fall back to root, quietly
	# (its warning about that is dropped; the rest of its output is shown)
	# shellcheck disable=SC2317 # called by step
	_fetch() {
		local ok=1
		(cd "$dir" && chmod 755 . && apt-get download -q "$pkg=$ver" >"$dir/apt.log" 2>&1) || ok=
		sed '/^W: Download is performed unsandboxed/d' "$dir/apt.log" >&2
		[ -n "$ok" ] && [ -f "$deb" ]
	}
	step "fetch $pkg $ver" _fetch ||
		die "apt-get download $pkg=$ver gave no $deb. The machine's apt sources must carry Debian 12's $pkg $ver (apt-cache policy $pkg); run 'apt-get update' if they do."
	got=$(sha256sum "$deb" | cut -d' ' -f1)
	[ "$got" = "$sum" ] ||
		die "${pkg}_${ver}_all.deb has sha256 $got, not the pinned $sum. Nothing was unpacked."
	dpkg-deb -x "$deb" "$dir/x"
	rm -f "$deb"
}

# apt_opts: the options of a private apt configuration under $APT_DIR (its
# own sources list, preferences, lists, state and cache), one per line, so
# that fetching from the machine's mirror never touches /etc/apt or the
# system's lists. Set up with apt_dir_init.
apt_opts() {
	printf '%s\n' \
		-o "Dir::Etc::SourceList=$APT_DIR/sources.list" \
		-o "Dir::Etc::SourceParts=$APT_DIR/sources.list.d" \
		-o "Dir::Etc::Preferences=$APT_DIR/preferences" \
		-o "Dir::Etc::PreferencesParts=$APT_DIR/preferences.d" \
		-o "Dir::State=$APT_DIR/state" \
		-o "Dir::State::status=$APT_DIR/state/status" \
		-o "Dir::Cache=$APT_DIR/cache" \
		-o "Acquire::Languages=none" \
		-o "APT::Sandbox::User=root"
}
apt_dir_init() {
	mkdir -p "$APT_DIR"/{sources.list.d,preferences.d,state/lists/partial,cache/archives/partial}
	touch "$APT_DIR/state/status" "$APT_DIR/preferences"
}

# private_apt DIR TYPE SUITE: a private apt configuration in DIR, which
# touches nothing of the machine's own apt state, with one source: the
# machine's Debian mirror (tools/series/base mirror), TYPE (deb or deb-src) SUITE
# main; its lists updated (log DIR/update.log). tools/series/base fetches the
# pinned .deb and tools/gates/sparse its source package through one.
# private_apt_get DIR ARGS...: apt-get with that configuration.
private_apt() {
	local dir=$1 type=$2 suite=$3 m uri key
	m=$("$TOP/tools/series/base" mirror)
	read -r uri key <<<"$m"
	[ -f "$key" ] || die "the keyring $key named by the apt sources does not exist, so the private apt configuration could not verify $suite. Run 'make deps' (debian-archive-keyring) or set DEBIAN_MIRROR."
	APT_DIR=$dir apt_dir_init
	printf '%s [signed-by=%s] %s %s main\n' "$type" "$key" "$uri" "$suite" >"$dir/sources.list"
	private_apt_get "$dir" update >"$dir/update.log" 2>&1 || {
		tail -n 5 "$dir/update.log" >&2
		die "apt-get update of $suite from the machine's Debian mirror failed (log: $dir/update.log). Check that 'apt-get update' works on this machine."
	}
}
private_apt_get() {
	local dir=$1 opts
	shift
	mapfile -t opts < <(APT_DIR=$dir apt_opts)
	apt-get -q "${opts[@]}" "$@"
}

# ---- Worktrees and build directories -----------------------------------

# A short name for the tree, used for worktree and build directories, so
# that the pinned base and each user tree keep their own.
tree_id() {
	if [ -z "$KERNEL_SRC" ]; then
		echo base
	else
		local r
		r=$(kernel_repo) || exit 1
		printf 'user-%s\n' "$(printf '%s\n' "$r" | sha1sum | cut -c1-10)"
	fi
}

tree_dir() { printf '%s/trees/%s/%s\n' "$CACHE_DIR" "$(tree_id)" "${1:-series}"; }
build_dir() { printf '%s/build/%s/%s\n' "$CACHE_DIR" "$(tree_id)" "$1"; }

# require_tree DIR: stop unless DIR is a worktree (the series worktree, or
# one the caller names), saying how to make it
require_tree() {
	[ -e "$1/.git" ] ||
		die "there is no worktree at $1. Run 'make tree' first: it applies patches/ to the base in a worktree, which is where the series is edited."
}

# new_worktree REPO COMMIT DIR: a detached worktree of REPO at COMMIT in
# DIR; whatever an interrupted run left at DIR is removed first
new_worktree() {
	rm -rf "$3"
	git -C "$1" worktree prune
	mkdir -p "$(dirname "$3")"
	git -C "$1" worktree add -q --detach "$3" "$2"
}

# scratch_worktree REPO BASE DIR: a throw-away worktree of REPO at BASE in
# DIR (a leftover from an interrupted run is removed first), removed again
# when the calling tool exits.
scratch_worktree() {
	SCRATCH_REPO=$1 SCRATCH_DIR=$3
	_scratch_remove() {
		git -C "$SCRATCH_REPO" worktree remove --force "$SCRATCH_DIR" 2>/dev/null || rm -rf "$SCRATCH_DIR"
		git -C "$SCRATCH_REPO" worktree prune
	}
	_scratch_remove
	trap _scratch_remove EXIT
	new_worktree "$@"
}

# Patches applied to the series worktree for one run, taken out again
# afterwards (tools/gates/mutation, tools/gates/gate-fixtures):
#   require_clean_tree TREE WHY  stop unless TREE is a worktree with nothing
#                                uncommitted (the patch goes on top of it)
#   apply_for_run TREE PATCH     git apply it; 1 if it no longer applies.
#                                undo_run_patch (also run on exit, and on
#                                INT or TERM) takes it out again.
require_clean_tree() {
	require_tree "$1"
	[ -z "$(git -C "$1" status --porcelain --untracked-files=no)" ] ||
		die "the worktree $1 has uncommitted changes; $2. Commit (then 'make export') or stash them first."
}
RUN_PATCH_TREE='' RUN_PATCH=''
undo_run_patch() {
	[ -z "$RUN_PATCH" ] || git -C "$RUN_PATCH_TREE" apply -R "$RUN_PATCH"
	RUN_PATCH=
}
apply_for_run() {
	git -C "$1" apply --check "$2" 2>/dev/null || return 1
	trap undo_run_patch EXIT
	trap 'undo_run_patch; exit 130' INT TERM
	git -C "$1" apply "$2"
	RUN_PATCH_TREE=$1 RUN_PATCH=$2
}

# no_hidden_files TREE: stop if TREE has untracked files (builds go to
# build directories, so there should be none). Debian's packaged .gitignore
# ignores the whole top level, so a new file never shows in 'git status',
# is easily left out of a commit, and would be lost with the worktree.
no_hidden_files() {
	local hidden
	hidden=$(git -C "$1" ls-files --others -- ':!:**/__pycache__/**')
	[ -z "$hidden" ] && return 0
	printf '%s\n' "$hidden" | sed 's/^/    /' >&2
	die "the worktree $1 has files (above) that are in no commit. Debian's .gitignore ignores the whole top level, so 'git status' does not show them: add them with 'git add -f' and commit (then 'make export'), or delete them."
}

# ---- The series: patches/ to the worktree and back, and as mails -------

# Patch names listed in a series file, comments and blank lines dropped.
series_patches() {
	local f=$1
	[ -f "$f" ] || return 0
	sed -e 's/[[:space:]]*#.*$//' -e 's/^[[:space:]]*//' "$f" | awk 'NF { print $1 }'
}

# format_patches TREE BASE OUTDIR: the commits BASE..HEAD of TREE as
# NNNN-slug.patch files. Every option that a user's git config could change
# is fixed, so the same commits always give the same bytes. A commit's note
# (refs/notes/commits: the project history a patch carries below its ---
# line, which is not part of the commit message) is written there, and
# am_patch puts it back. These are the files of patches/, not mails: b4
# writes the mails (tools/mail/send).
format_patches() {
	git -C "$1" -c diff.noprefix=false -c diff.mnemonicPrefix=false \
		-c core.abbrev=7 -c format.from=false \
		-c diff.renames=true -c diff.algorithm=myers -c format.signOff=false \
		format-patch -q --zero-commit --no-signature --no-base -N --notes=commits \
		--no-thread --no-cover-letter --no-to --no-cc --no-add-header \
		--subject-prefix=PATCH --suffix=.patch -o "$3" "$2..HEAD" >/dev/null
}

# merge_series OLD_SERIES NEW_NAMES: a series file listing NEW_NAMES (one per
# line, in order) that keeps the comment lines (topic sections) of
# OLD_SERIES. A comment block stays before the patch it preceded, matched by
# slug (the name without NNNN-), else by position; the block of a patch that
# is gone moves to the next one, so no section heading is lost.
merge_series() {
	awk '
		function slug(n) { sub(/^[0-9]+-/, "", n); return n }
		FILENAME == ARGV[1] {
			if ($0 ~ /^[[:space:]]*(#|$)/) { pend = pend $0 "\n"; next }
			no++; oname[no] = $1; oblock[no] = pend; pend = ""; next
		}
		NF { nn++; nname[nn] = $1; nslug[slug($1)] = nn }
		END {
			for (j = 1; j <= no; j++) {
				s = slug(oname[j])
				if (s in nslug && !(nslug[s] in used)) { m[j] = nslug[s]; used[m[j]] = 1 }
			}
			for (j = 1; j <= no; j++) oslug[slug(oname[j])] = 1
			for (j = 1; j <= no; j++)
				if (!(j in m) && j <= nn && !(j in used) && !(slug(nname[j]) in oslug)) {
					m[j] = j; used[j] = 1
				}
			carry = ""
			for (j = 1; j <= no; j++) {
				if (j in m) { block[m[j]] = carry oblock[j]; carry = "" }
				else carry = carry oblock[j]
			}
			for (i = 1; i <= nn; i++) printf "%s%s\n", block[i], nname[i]
			printf "%s%s", carry, pend
		}' "$1" "$2"
}

# mail_plan [SERIES-FILE]: the mailed series of a series file (default
# $PATCHES_DIR/series, tools/mail/send), one line each, in order: NAME RFC(0|1) AFTER(-|NAME) FIRST LAST
# (the 1-based positions of its patches in patches/series)
mail_plan() {
	awk '
		function flush() { if (name != "") print name, rfc, after, first, last }
		/^#[[:space:]]*mail:/ {
			flush()
			sub(/^#[[:space:]]*mail:[[:space:]]*/, "")
			name = $1; rfc = 0; after = "-"; first = n + 1; last = n
			for (i = 2; i <= NF; i++) {
				if ($i == "rfc") rfc = 1
				else if ($i ~ /^after=/) after = substr($i, 7)
				else { printf "unknown word \"%s\" in a mail: line\n", $i > "/dev/stderr"; bad = 1 }
			}
			next
		}
		/^[[:space:]]*(#|$)/ { next }
		{
			n++
			if (name == "") { printf "patch %s comes before any \"# mail: NAME\" line\n", $1 > "/dev/stderr"; bad = 1 }
			last = n
		}
		END { flush(); exit bad }' "${1:-$PATCHES_DIR/series}"
}
# change_id_of NAME: the change-id that $PATCHES_DIR/versions records for
# the mailed series NAME
change_id_of() { awk -v n="$1" '$1 == "change-id" && $2 == n { print $3 }' "$PATCHES_DIR/versions"; }

# same_patches DIR_A DIR_B: do two patch directories hold the same series
# (same names in the same order) and the same patch files? Prints the
# differences.
# require_exported: the benchmark variants are built from patches/, not
# from the series worktree; work in the worktree that patches/ lacks would
# be left out without a word, so refuse it (as check and send do)
require_exported() {
	local wt
	wt=$(tree_dir series)
	[ -e "$wt/.git" ] || return 0
	[ -z "$(git -C "$wt" status --porcelain --untracked-files=no)" ] ||
		die "the variants are built from $PATCHES_DIR, and the series worktree $wt has uncommitted changes, which would be left out. Commit them and run 'make export' first."
	local why
	why=$("$TOP/tools/series/export" check 2>&1 >/dev/null) ||
		die "the variants are built from $PATCHES_DIR, and the series worktree $wt does not match it: $(printf '%s\n' "$why" | grep -m1 'error:' | sed 's/^[^:]*: error: //') Run 'make export' to benchmark the worktree, or 'FORCE=1 make tree' to drop its work and benchmark patches/."
}

same_patches() {
	local a=$1 b=$2 rc=0 p
	if ! diff -u <(series_patches "$a/series") <(series_patches "$b/series") >&2; then
		rc=1
	fi
	for p in $({ series_patches "$a/series"; series_patches "$b/series"; } | sort -u); do
		if [ ! -f "$a/$p" ] || [ ! -f "$b/$p" ]; then
			rc=1
		elif ! diff -u "$a/$p" "$b/$p" >&2; then
			rc=1
		fi
	done
	return "$rc"
}

# export_to TREE BASE OUTDIR: write TREE's commits to OUTDIR with a series
# file whose sections come from $PATCHES_DIR/series.
export_to() {
	local tree=$1 base=$2 out=$3 names
	mkdir -p "$out"
	format_patches "$tree" "$base" "$out"
	names=$(find "$out" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' -printf '%f\n' | sort)
	if [ -f "$PATCHES_DIR/series" ]; then
		merge_series "$PATCHES_DIR/series" <(printf '%s\n' "$names") >"$out/series"
	else
		printf '%s\n' "$names" | sed '/^$/d' >"$out/series"
	fi
}

# The series commit that patches/ was last made from, or applied to, kept as
# a ref of the repository so that it outlives the worktree.
mark_synced() { git -C "$1" update-ref refs/iommu-scale/synced HEAD; }
synced_rev() { git -C "$1" rev-parse -q --verify refs/iommu-scale/synced; }

# patch_notes PATCH: the note that format_patches wrote below the --- line
# of PATCH ("Notes:", then lines indented by 4), without the indent; nothing
# if it has none
patch_notes() {
	awk '
		!cut { if ($0 == "---") cut = 1; next }
		cut == 1 { cut = ($0 == "" ? 2 : 9); next }
		cut == 2 { cut = ($0 == "Notes:" ? 3 : 9); next }
		cut == 3 && /^    / { print substr($0, 5); next }
		cut == 3 && /^$/ { print ""; next }
		{ exit }
	' "$1"
}

# am_patch TREE PATCH: 'git am --3way' one patch. On failure, the am is
# aborted (nothing half-applied stays), AM_LOG holds git's output and
# AM_FILES the files that did not apply, and the status is 1.
am_patch() {
	local tree=$1 p=$2 notes
	if AM_LOG=$(git -C "$tree" am --3way "$p" 2>&1); then
		notes=$(patch_notes "$p")
		[ -z "$notes" ] || git -C "$tree" notes --ref=commits add -f -m "$notes" HEAD ||
			die "patch $p applied, but its note (below the --- line) could not be attached to the commit in $tree."
		return 0
	fi
	AM_FILES=$({
		{
			git -C "$tree" apply --check "$p" 2>&1
			printf '%s\n' "$AM_LOG"
		} | sed -n \
			-e 's/^error: patch failed: \(.*\):[0-9]*$/\1/p' \
			-e 's/^error: \(.*\): does not exist in index$/\1/p' \
			-e 's/^error: \(.*\): already exists in index$/\1/p' \
			-e 's/^error: sha1 information is lacking or useless (\(.*\))\.$/\1/p' \
			-e 's/^CONFLICT ([^)]*): .* in \(.*\)$/\1/p'
		git -C "$tree" diff --name-only --diff-filter=U
	} | sort -u | tr '\n' ' ')
	if [ -d "$(git -C "$tree" rev-parse --path-format=absolute --git-path rebase-apply)" ]; then
		git -C "$tree" am --abort >/dev/null 2>&1
	fi
	return 1
}

# am_failed PATCH WHERE ADVICE: after a failed am_patch, show git am's
# output, name the files PATCH conflicts in, and stop with ADVICE
am_failed() {
	printf '%s\n' "$AM_LOG" | sed 's/^/    /' >&2
	die "patch $1 does not apply $2; it conflicts in: ${AM_FILES:-(see the git am output above)}. $3"
}

# signed_off_by: the Signed-off-by line of the git identity configured
# here, the one a patch gets when it is sent.
signed_off_by() {
	local name email
	if ! name=$(git config user.name) || ! email=$(git config user.email); then
		die "git has no identity configured, and patches are signed off with it when they are sent. Set yours: git config --global user.name 'Your Name'; git config --global user.email you@example.org"
	fi
	printf 'Signed-off-by: %s <%s>\n' "$name" "$email"
}

# as_sent SOB < PATCH: the patch with SOB added to its trailers unless it
# already carries it, as format-patch -s or b4 add it at send time.
as_sent() {
	git interpret-trailers --if-exists addIfDifferent --trailer "$1"
}

# ---- Kernel builds and configs -----------------------------------------

# check_config FRAGMENT DOTCONFIG: every CONFIG_ symbol the fragment sets
# must have the same value in the final .config; olddefconfig drops what
# it cannot satisfy without a word, so say which ones it dropped.
check_config() {
	local frag=$1 dot=$2 bad
	bad=$(config_mismatch "$frag" "$dot")
	if [ -n "$bad" ]; then
		printf '%s\n' "$bad" | sed 's/^/    /' >&2
		die "olddefconfig dropped or changed the symbols above, which $frag asks for ($dot). Their dependencies are not met: look them up with 'make menuconfig' (search with /) and add what they depend on to the fragment."
	fi
}

# config_mismatch FRAGMENT DOTCONFIG: the symbols of FRAGMENT whose value
# in DOTCONFIG differs, one "CONFIG_X=want (got have)" line each
config_mismatch() {
	awk '
		FNR == NR {
			if ($0 ~ /^CONFIG_[A-Za-z0-9_]+=/) {
				i = index($0, "="); want[substr($0, 1, i - 1)] = substr($0, i + 1)
			} else if ($0 ~ /^# CONFIG_[A-Za-z0-9_]+ is not set/) {
				want[$2] = "n"
			}
			next
		}
		/^CONFIG_[A-Za-z0-9_]+=/ { i = index($0, "="); have[substr($0, 1, i - 1)] = substr($0, i + 1) }
		END {
			for (s in want) {
				h = (s in have) ? have[s] : "n"
				if (h != want[s])
					printf "%s=%s (got %s)\n", s, want[s], (s in have) ? h : "not set"
			}
		}' "$1" "$2" | sort
}

# defined_only TREE FILE: the lines of a config fragment or kunitconfig
# FILE, without those that set a CONFIG_ symbol no Kconfig of TREE defines
# (yet: a patch before the one that adds it)
defined_only() {
	local tree=$1 file=$2
	awk '
		FNR == NR { defined[$2] = 1; next }
		{
			sym = ""
			if (match($0, /^(# )?CONFIG_[A-Za-z0-9_]+[= ]/)) {
				sym = substr($0, RSTART, RLENGTH - 1)
				sub(/^(# )?CONFIG_/, "", sym)
			}
			if (sym == "" || sym in defined)
				print
		}' <(git -C "$tree" grep -h -E '^[[:space:]]*(menu)?config [A-Za-z0-9_]+[[:space:]]*$' -- '*Kconfig*') "$file"
}

# modules_build TREE BDIR ARCH LOG: the tristates the series touches, as
# modules (kernel-config/modcheck-ARCH.config on allnoconfig, the symbols
# TREE does not define yet left out), built into BDIR with modpost. Prints
# one line saying how many modules were built; returns 1 on a failed
# build, a modpost error or warning (an unexported symbol, a section
# mismatch, a missing license) or a symbol of the fragment that did not
# survive olddefconfig, with the reasons on the following lines.
modules_build() {
	local tree=$1 bdir=$2 arch=$3 log=$4 frag rc=0 bad nmods lost
	frag=$(mktemp)
	defined_only "$tree" "$TOP/kernel-config/modcheck-$arch.config" >"$frag"
	if ! configure_build "$tree" "$bdir" "$arch" "$frag" "$log"; then
		rm -f "$frag"
		printf 'configuring the %s module build failed (log %s):\n' "$arch" "$log"
		tail -n 5 "$log"
		return 1
	fi
	lost=$(config_mismatch "$frag" "$bdir/.config")
	rm -f "$frag"
	kmake_arch "$tree" "$bdir" "$arch" vmlinux modules >>"$log" 2>&1 || rc=$?
	# modpost's own lines: ERROR: modpost: ..., WARNING: modpost: ...
	bad=$(grep -E '^(ERROR|WARNING): modpost: ' "$log" | sort -u || true)
	# modules.order is written again by every build (old .ko files stay)
	nmods=0
	if [ -f "$bdir/modules.order" ]; then
		nmods=$(awk 'NF { n++ } END { print n + 0 }' "$bdir/modules.order")
	fi
	printf '%s: %s modules (log %s)\n' "$arch" "$nmods" "$log"
	[ "$rc" = 0 ] && [ -z "$bad" ] && [ -z "$lost" ] && [ "$nmods" -gt 0 ] && return 0
	[ -n "$lost" ] && printf 'olddefconfig dropped what kernel-config/modcheck-%s.config asks for:\n%s\n' "$arch" "$lost"
	[ -n "$bad" ] && printf '%s\n' "$bad"
	[ "$rc" != 0 ] && [ -z "$bad" ] && { printf 'the build failed (status %s):\n' "$rc"; grep -E ': error: |\*\*\*' "$log" | head -n 10; }
	[ "$nmods" -gt 0 ] || echo "no module was built"
	return 1
}

# modcheck_key TREE ARCH: what a passing 'make modcheck' for ARCH vouches
# for: the worktree's committed tree and the module fragment. tools/gates/modcheck
# writes it to CACHE_DIR/modcheck/ARCH.pass on a pass of a clean worktree,
# and make send mails nothing unless both architectures' keys match.
modcheck_key() {
	printf '%s %s\n' "$(git -C "$1" rev-parse 'HEAD^{tree}')" \
		"$(sha256sum <"$TOP/kernel-config/modcheck-$2.config" | cut -d' ' -f1)"
}

# configure_build TREE BDIR ARCH FRAGMENT LOG: BDIR configured as every
# kernel here is: allnoconfig with FRAGMENT (KCONFIG_ALLCONFIG), then
# olddefconfig; make's output in LOG. Returns make's status: the caller
# says what failed, and checks the fragment with check_config or
# config_mismatch.
configure_build() {
	{ KCONFIG_ALLCONFIG=$4 kmake_arch "$1" "$2" "$3" allnoconfig &&
		kmake_arch "$1" "$2" "$3" olddefconfig; } >"$5" 2>&1
}

# kmake_arch TREE BDIR ARCH ARGS...: make in TREE into BDIR for ARCH
# (arm64 and arm: cross-compiled; x86_64), through ccache, with JOBS jobs
kmake_arch() {
	local tree=$1 bdir=$2 arch=$3
	shift 3
	mkdir -p "$bdir"
	if [ "$arch" = arm64 ]; then
		make -C "$tree" O="$bdir" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
			CC="ccache aarch64-linux-gnu-gcc" -j"$JOBS" "$@"
	elif [ "$arch" = arm ]; then
		make -C "$tree" O="$bdir" ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf- \
			CC="ccache arm-linux-gnueabihf-gcc" -j"$JOBS" "$@"
	else
		make -C "$tree" O="$bdir" ARCH=x86_64 CC="ccache gcc" -j"$JOBS" "$@"
	fi
}

# ---- Gates: warnings and checkpatch -------------------------------------------------

# cell_result FILE CMD...: the result of a make check cell whose inputs
# FILE is named after. A pass kept in FILE is printed as "pass (cached)"
# and CMD is not run. Otherwise CMD runs, printing pass, fail or n/a (its
# details on descriptor 3 go to FILE.txt; a failed CMD is "fail"); the
# result is printed, and kept in FILE only if it is pass or n/a, so that
# a failure, transient or not, runs again next time.
cell_result() {
	local f=$1 res
	shift
	if [ -f "$f" ] && [ "$(head -n 1 "$f")" = pass ]; then
		echo "pass (cached)"
		return 0
	fi
	if ! res=$("$@" 3>"$f.txt"); then res=fail; fi
	[ -n "$res" ] || res=fail
	if [ "$res" = pass ] || [ "$res" = n/a ]; then
		{ echo "$res"; cat "$f.txt"; } >"$f.tmp" && mv "$f.tmp" "$f"
	else
		rm -f "$f"
	fi
	echo "$res"
}

# mutant_verdict STATUS LOG: what a KUnit run (tools/gates/kunit, exit STATUS,
# output LOG) says of the mutant it ran on: "killed BY" (a case failed, a
# suite crashed, or a kernel report fired: BY names them), "survived" (the
# run passed), or "invalid" (it failed with no test result: the mutant did
# not build or boot, which shows nothing about the tests)
mutant_verdict() {
	local rc=$1 log=$2 by
	if [ "$rc" = 0 ]; then
		echo survived
		return
	fi
	by=$(awk '
		/^FAIL .*failed:/ { s = $0; sub(/^.*failed: */, "", s); out = out " " $2 ": " s; next }
		/^CRASH [^0-9]/ { out = out " " $2 ": crashed"; next }
		/^SPLAT / { s = $0; sub(/^.*the first: /, "", s); out = out " a kernel report: " s }
		END { sub(/^ /, "", out); print out }' "$log")
	if [ -n "$by" ]; then echo "killed $by"; else echo invalid; fi
}

# warning_lines TREE LOG: the warning and error lines of a compiler or
# sparse log, without line and column and with paths relative to TREE, one
# of each, sorted: code that moves does not make a warning new
warning_lines() {
	grep -E ': (warning|error): ' "$2" |
		sed -E -e "s#$1/##g" -e 's#^(\.\./)+##' -e 's#^([^: ]+):[0-9]+(:[0-9]+)?:#\1:#' |
		LC_ALL=C sort -u || true
}
# new_lines OLD NEW: the lines of NEW that OLD lacks (both sorted bytewise)
new_lines() { LC_ALL=C comm -13 "$1" "$2"; }

# checkpatch_one SRC PATCH: scripts/checkpatch.pl of the tree SRC, --strict
# with the flags 'b4 prep --check' uses (-q --terse --no-summary --mailback
# --showfile), on one patch file. Prints the defects; fails if there is any.
checkpatch_one() {
	local out rc=0 extra=()
	# the pinned base is a tarball imported as one commit, with no history:
	# checkpatch cannot look up the mainline commits a Fixes: tag names
	# there. With KERNEL_SRC (your tree, with its history) it does.
	[ -n "${KERNEL_SRC:-}" ] || extra=(--ignore UNKNOWN_COMMIT_ID)
	out=$(cd "$1" && ./scripts/checkpatch.pl -q --terse --no-summary --mailback \
		--showfile --strict "${extra[@]}" "$2" 2>&1) || rc=$?
	# checkpatch asks about MAINTAINERS for every new file; a file that an
	# F: pattern of a subsystem's entry already covers needs no new line
	local line file kept=() dropped=0
	while IFS= read -r line; do
		file=${line%%:*}
		if [[ "$line" == *": WARNING: added, moved or deleted file(s), does MAINTAINERS need updating?" ]] &&
			maintained_file "$1" "$file"; then
			dropped=$((dropped + 1))
		else
			kept+=("$line")
		fi
	done <<<"$out"
	if [ "$dropped" -gt 0 ]; then
		out=$(printf '%s\n' "${kept[@]}" | sed '/^$/d')
		[ -n "$out" ] || rc=0
	fi
	[ -z "$out" ] || printf '%s\n' "$out"
	[ "$rc" = 0 ] && [ -z "$out" ]
}

# maintained_file TREE FILE: FILE (which may not exist yet) falls under an
# entry of TREE's MAINTAINERS other than THE REST (make check's question
# of a new file, not an address for mail: b4 --auto-to-cc finds those).
maintained_file() {
	local fake out rc=0
	fake=$(mktemp)
	printf 'diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+x\n' \
		"$2" "$2" "$2" >"$fake"
	out=$(cd "$1" && ./scripts/get_maintainer.pl --nogit --nogit-fallback \
		--no-tree --sections "$fake" 2>&1) || rc=$?
	rm -f "$fake"
	[ "$rc" = 0 ] || die "get_maintainer.pl failed on $2: $out"
	# section names are the lines that are not 'X:<tab>...' fields
	printf '%s\n' "$out" | awk '/^$/ || /^[A-Z]:\t/ || /^THE REST$/ { next } { found = 1 } END { exit !found }'
}

# ---- Benchmarks: variants and knobs ------------------------------------

# variant_env NAME...: what a benchmark run records of its variants: the
# base, and for each variant its patches with a short hash of each.
variant_env() {
	local repo base v p
	repo=$(kernel_repo) || exit 1
	base=$(base_commit "$repo") || exit 1
	echo "base=$(git -C "$repo" describe --tags --always "$base") $base"
	for v in "$@"; do
		variant_load "$v"
		printf 'variant.%s=' "$v"
		for p in "${VARIANT_PATCHES[@]}"; do
			printf '%s:%s ' "${p#"$PATCHES_DIR"/}" "$(sha256sum <"$p" | cut -c1-12)"
		done
		echo
	done
}

# variant_load NAME: set VARIANT_SETS (series files) and VARIANT_PATCHES
# (patch files, absolute, in order) of a benchmark variant:
#   bare    the base alone
#   base    the base + patches/bench/common.series
#   series  base + patches/series
#   NAME    base + patches/bench/NAME.series (a historic or bench-only variant)
# Entries of a series file are relative to the file's directory; the entry
# @series stands for the patches of patches/series, in their order. Call it
# directly, not in $(...), so that its errors stop the caller.
variant_load() {
	local common=$PATCHES_DIR/bench/common.series set p known
	case $1 in
	bare) VARIANT_SETS=() ;;
	base) VARIANT_SETS=("$common") ;;
	series) VARIANT_SETS=("$common" "$PATCHES_DIR/series") ;;
	*)
		if [ ! -f "$PATCHES_DIR/bench/$1.series" ] || [ "$1" = common ]; then
			known="bare base series"
			for p in "$PATCHES_DIR"/bench/*.series; do
				[ -e "$p" ] && [ "${p##*/}" != common.series ] && known="$known $(basename "$p" .series)"
			done
			die "there is no benchmark variant '$1'. Known variants: $known. A variant NAME is defined by patches/bench/NAME.series."
		fi
		VARIANT_SETS=("$common" "$PATCHES_DIR/bench/$1.series")
		;;
	esac
	VARIANT_PATCHES=()
	for set in "${VARIANT_SETS[@]}"; do
		[ -f "$set" ] || die "$set does not exist (a patch set of variant '$1')."
		while read -r p; do
			if [ "$p" = @series ]; then
				local q
				for q in $(series_patches "$PATCHES_DIR/series"); do
					VARIANT_PATCHES+=("$PATCHES_DIR/$q")
				done
				continue
			fi
			[ -f "$(dirname "$set")/$p" ] || die "$set names $p, which does not exist."
			VARIANT_PATCHES+=("$(realpath -m "$(dirname "$set")/$p")")
		done < <(series_patches "$set")
	done
}

# variant_uses_series: after variant_load, whether the variant carries
# patches of the series (patches/NNNN-*.patch), which the worktree may hold
# newer versions of
variant_uses_series() {
	local p top
	top=$(realpath -m "$PATCHES_DIR")
	for p in "${VARIANT_PATCHES[@]}"; do
		[ "$(dirname "$p")" = "$top" ] && return 0
	done
	return 1
}

# bench_knobs: read and validate the make bench knobs from the environment
# (VARIANTS CPUS THREADS GRANULES MODES BENCH_SECONDS ROUNDS DMA_DIR DMA_BITS
# VERIFY BOOT_TIMEOUT); lists take spaces or commas. Dies naming the bad knob.
bench_knobs() {
	local x t
	_list() { tr ',' ' ' <<<"$1" | xargs -n1 | xargs; }
	_num() { # _num KNOB VALUE MIN MAX
		if ! [[ $2 =~ ^(0|[1-9][0-9]*)$ ]] || [ "$2" -lt "$3" ] || [ "$2" -gt "$4" ]; then
			die "$1: '$2' is not a whole number from $3 to $4. See 'make help'."
		fi
	}
	VARIANTS=$(_list "${VARIANTS:-base series}")
	t=$(nproc)
	CPUS=${CPUS:-$((t > 64 ? 64 : t))}
	MODES=$(_list "${MODES:-strict lazy}")
	GRANULES=$(_list "${GRANULES:-1}")
	BENCH_SECONDS=${BENCH_SECONDS:-2}
	ROUNDS=${ROUNDS:-3}
	DMA_DIR=${DMA_DIR:-bidir}
	DMA_BITS=${DMA_BITS:-32}
	VERIFY=${VERIFY:-0}
	BOOT_TIMEOUT=${BOOT_TIMEOUT:-180}
	BENCH_FIRMWARE=${BENCH_FIRMWARE:-dt}
	_num CPUS "$CPUS" 1 64
	if [ -z "${THREADS:-}" ]; then
		THREADS=1
		t=2
		while [ "$t" -le "$CPUS" ]; do
			THREADS="$THREADS $t"
			t=$((t * 2))
		done
		[ "${THREADS##* }" = "$CPUS" ] || THREADS="$THREADS $CPUS"
	fi
	THREADS=$(_list "$THREADS")
	[ -n "$THREADS" ] || die "THREADS is empty: give thread counts, for example THREADS='1 2 4'."
	[ -n "$GRANULES" ] || die "GRANULES is empty: give pages per map, for example GRANULES='1 16'."
	[ -n "$VARIANTS" ] || die "VARIANTS is empty: give at least one, for example VARIANTS='base series'."
	[ -n "$MODES" ] || die "MODES is empty: give strict, lazy or both."
	for x in $THREADS; do _num THREADS "$x" 1 1024; done
	for x in $GRANULES; do _num GRANULES "$x" 1 1024; done
	_num SECONDS "$BENCH_SECONDS" 1 300
	_num ROUNDS "$ROUNDS" 1 100
	_num DMA_BITS "$DMA_BITS" 20 64
	_num VERIFY "$VERIFY" 0 1
	_num BOOT_TIMEOUT "$BOOT_TIMEOUT" 10 3600
	for x in $MODES; do
		case $x in strict | lazy) ;; *) die "MODES: '$x' is neither strict nor lazy." ;; esac
	done
	case $DMA_DIR in bidir | to | from) ;; *) die "DMA_DIR: '$DMA_DIR' is not bidir, to or from." ;; esac
	case $BENCH_FIRMWARE in dt | uefi) ;; *) die "BENCH_FIRMWARE: '$BENCH_FIRMWARE' is neither dt nor uefi." ;; esac
	export BENCH_FIRMWARE
	for x in VARIANTS THREADS GRANULES MODES; do
		[ "$(wc -w <<<"${!x}")" = "$(tr ' ' '\n' <<<"${!x}" | sort -u | wc -l)" ] ||
			die "$x names a value twice: ${!x}."
	done
}

# native_knobs: read, default and validate the make bench-native knobs from
# the environment (THREADS ROUNDS BENCH_SECONDS NATIVE_SHIFT NATIVE_CMD_NS
# NATIVE_SYNC_NS), for tools/native/bench-native before it builds anything and for
# tools/native/native-sweep (also in the bench bundle). Dies naming the bad knob.
native_knobs() {
	local t
	_nnum() { # _nnum KNOB VALUE MIN MAX
		if ! [[ $2 =~ ^(0|[1-9][0-9]*)$ ]] || [ "$2" -lt "$3" ] || [ "$2" -gt "$4" ]; then
			die "$1: '$2' is not a whole number from $3 to $4. See 'make help'."
		fi
	}
	THREADS=$(tr ',' ' ' <<<"${THREADS:-$(seq -s ' ' 1 "$(nproc)")}" | xargs)
	ROUNDS=${ROUNDS:-3}
	BENCH_SECONDS=${BENCH_SECONDS:-2}
	NATIVE_SHIFT=${NATIVE_SHIFT:-12}
	NATIVE_CMD_NS=${NATIVE_CMD_NS:-0}
	NATIVE_SYNC_NS=${NATIVE_SYNC_NS:-0}
	[ -n "$THREADS" ] || die "THREADS is empty: give thread counts, for example THREADS='1 2 4'."
	for t in $THREADS; do _nnum THREADS "$t" 1 1024; done
	_nnum ROUNDS "$ROUNDS" 1 100
	_nnum SECONDS "$BENCH_SECONDS" 1 300
	_nnum NATIVE_SHIFT "$NATIVE_SHIFT" 7 19
	_nnum NATIVE_CMD_NS "$NATIVE_CMD_NS" 0 1000000
	_nnum NATIVE_SYNC_NS "$NATIVE_SYNC_NS" 0 1000000
	export THREADS ROUNDS BENCH_SECONDS NATIVE_SHIFT NATIVE_CMD_NS NATIVE_SYNC_NS
}
