# tools/lava/lib.sh: what only the lava family's verbs share, sourced by
# each of them after tools/lib.sh (split out of tools/lib.sh, #48).
# shellcheck shell=bash

# ---- LAVA: the bench as jobs for LAVA's dispatcher ----------------------

# LAVA's code and the modules it needs are Debian's (lava-dispatcher,
# python3-jinja2, python3-yaml, python3-voluptuous), installed for Debian's
# own interpreter, which is not always the first python3 on PATH
LAVA_PYTHON=${LAVA_PYTHON:-/usr/bin/python3}
LAVA_SCHEMA=${LAVA_SCHEMA:-/usr/share/lava-common/lava-schema.py}
# lava_need_schema: what writing and checking jobs and device dictionaries
# needs (LAVA's schema and Python modules, the pinned release); no root
lava_need_schema() {
	local have pin
	if ! { [ -x "$LAVA_PYTHON" ] && [ -f "$LAVA_SCHEMA" ] &&
		"$LAVA_PYTHON" -c 'import jinja2, yaml, voluptuous, lava_common' 2>/dev/null; }; then
		die "LAVA's dispatcher or its Python modules are missing for $LAVA_PYTHON ($LAVA_SCHEMA, jinja2, yaml, voluptuous). Run 'make deps' (Debian packages lava-dispatcher, python3-jinja2)."
	fi
	# the templates (tools/lava/lava.pin) and the dispatcher are one
	# release: the same upstream version (a Debian stable update of the
	# dispatcher, +debNuM, keeps it)
	have=$(dpkg-query -W -f='${Version}' lava-dispatcher 2>/dev/null || true)
	pin=$(sed -n 's/^LAVA_SERVER_VERSION=//p' "$TOP/tools/lava/lava.pin")
	[ -z "$have" ] || [ "${have%%-*}" = "${pin%%-*}" ] ||
		die "lava-dispatcher $have is installed, but tools/lava/lava.pin pins lava-server $pin's device-type templates: pin the lava-server of the same release (its version and the .deb's sha256), so that the dictionaries rendered here are the ones this dispatcher reads."
}
# lava_need: what running jobs here with lava-run needs: the above, and root
lava_need() {
	need_cmd lava-run
	# lava-run refuses to run as anyone else (and says so on its standard
	# output, where a job's records would be)
	[ "$(id -u)" = 0 ] ||
		die "LAVA's dispatcher (lava-run) runs only as root: run this as root (sudo -E make ...). Nothing was run."
	lava_need_schema
}

# lava_unsubmitted LEDGER: the job names on stdin that LEDGER (a
# submitted.tsv: job, lab id) has no row for, one per line, in order
lava_unsubmitted() {
	local job
	while read -r job; do
		cut -f1 "$1" | grep -qxF "$job" || echo "$job"
	done
}

# lava_identity: LAVA_IDENTITY is set, lavacli ($LAVACLI) knows it, and
# lavacli's config file, which holds its token in clear text, is readable
# by its owner only
lava_identity() {
	local conf mode
	[ -n "${LAVA_IDENTITY:-}" ] ||
		die "LAVA_IDENTITY is not set: name the lavacli identity of your lab (lavacli identities list). Add one by writing it into lavacli's config with nothing else able to read it: (umask 077; cat >>${XDG_CONFIG_HOME:-~/.config}/lavacli.yaml) with the lines 'NAME:', '  uri: https://LAB/RPC2', '  username: USER', '  token: TOKEN' (not 'lavacli identities add --token', which leaves the token in the shell's history). Nothing was done."
	need_cmd "$LAVACLI"
	conf=${XDG_CONFIG_HOME:-$HOME/.config}/lavacli.yaml
	if [ -f "$conf" ]; then
		mode=$(stat -c %a "$conf")
		[ $((8#$mode & 8#077)) = 0 ] ||
			die "$conf holds lavacli's tokens and is readable by others (mode $mode): chmod 600 $conf. Nothing was done."
	fi
	"$LAVACLI" identities show "$LAVA_IDENTITY" >/dev/null 2>&1 ||
		die "lavacli knows no identity '$LAVA_IDENTITY' (lavacli identities list). Nothing was done."
}
# lava_schema device|job FILE [OPTION...]: LAVA's own validation (a device
# dictionary as rendered, not rendered again); its report on failure
lava_schema() {
	local out kind=$1 file=$2
	shift 2
	[ "$kind" = job ] || set -- --no-render "$@"
	out=$("$LAVA_PYTHON" "$LAVA_SCHEMA" "$kind" "$@" "$file" 2>&1) && return 0
	printf '%s\n' "$out" >&2
	return 1
}
