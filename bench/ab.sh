#!/bin/sh
# bench/ab.sh: two builds of ours side by side in one guest boot (`make bench-ab`;
# the guest's /init runs this in v9fs_mode=bench-ab). /v9fs/ab/base holds the
# 9p2000.ko and v9fsd of the base revision; the current ones are the boot's own
# (/v9fs/9p2000.ko, /v9fs/bin/v9fsd), kept in /v9fs/ab/cur. The workloads go in
# groups, a workload with those that need its files (seqwrite with the reads
# of that file, write4m with read4m, untar with the cats), one section at a
# time. A pass is one run of bench/run.sh for one group, with our client's
# configurations alone (V9FS_BENCH_OURS=1) and one round; each group's passes
# go base, current, base, current... (ROUNDS of each) before the next group,
# so that the two sides of a line run seconds apart, not minutes, and a change
# in the machine's load falls on both alike. Between passes the module is
# unloaded and the other side's loaded, and the other side's v9fsd put in
# place. The workload programs (v9bench, run.sh) are the current ones on both
# sides: only the client and the server change.
# Then, per line (configuration and workload), each side's median, its spread
# (min-max), current/base and in how many pairs of passes (base, then current
# right after it) current was the faster, with a verdict: "same within noise" when the two
# spreads overlap, otherwise "better", or "worse by >5%" / "worse by <5%".
# Kernel parameters (from tests/vm/bench-ab.sh), lists comma-separated:
#   v9fs_ab_rounds=N        passes of each side (default 3)
#   v9fs_ab_sections=a,b    bench/run.sh sections (default main,serial,virtio,loose)
#   v9fs_ab_workloads=a,b   only these workloads (a read brings its write along)
#   v9fs_ab_quick=1         main (seqwrite, seqread, randread) and serial only
#   v9fs_ab_swap=WHAT       what the base side takes from the base build: both
#                           (default), server (v9fsd alone: the current module on
#                           both sides) or client (the module alone)
#   v9fs_ab_base=NAME, v9fs_ab_cur=NAME   what the two sides are, for the report
# Ends with "V9FS-EXIT 0", or 1 when a pass or a line of it failed.

AB=/v9fs/ab
ROUNDS=${v9fs_ab_rounds:-3}
OUT=/tmp/ab.results
PASS=/tmp/ab.pass

MAIN_ALL="seqwrite seqread randread smallfiles ls-l"
SERIAL_ALL="stat cat creates write4m read4m"
LOOSE_ALL="seqwrite reread untar cat-cold cat-warm ls-l smallfiles"

SWAP=${v9fs_ab_swap:-both}
case $SWAP in both | server | client) ;; *)
	echo "# bench-ab: v9fs_ab_swap is both, server or client, not '$SWAP'"
	echo "V9FS-EXIT 1"
	exit 1 ;;
esac

sections=$(echo "${v9fs_ab_sections:-main,serial,virtio,loose}" | tr , ' ')
picked=$(echo "${v9fs_ab_workloads:-}" | tr , ' ')
if [ "${v9fs_ab_quick:-0}" = 1 ]; then
	sections="main serial"
	[ -n "$picked" ] || picked="seqwrite seqread randread $SERIAL_ALL"
fi

# pick ALL: the workloads of ALL that were asked for (all of them when none
# was), in ALL's order, each with the one that makes its file
pick() {
	[ -n "$picked" ] || { echo "$1"; return; }
	_want=$picked
	for _w in $picked; do
		case $_w in
		seqread | randread | reread) _want="$_want seqwrite" ;;
		read4m) _want="$_want write4m" ;;
		cat-cold | cat-warm) _want="$_want untar" ;;
		esac
	done
	_got=
	for _w in $1; do
		case " $_want " in *" $_w "*) _got="$_got $_w" ;; esac
	done
	echo $_got
}
mwl=$(pick "$MAIN_ALL")
swl=$(pick "$SERIAL_ALL")
lwl=$(pick "$LOOSE_ALL")
# the groups, "SECTION:WORKLOAD,WORKLOAD", of the workloads asked for
groups=
for s in $sections; do
	case $s in
	main | virtio) list=$mwl sets="seqwrite,seqread,randread smallfiles ls-l" ;;
	serial) list=$swl sets="stat cat creates write4m,read4m" ;;
	loose) list=$lwl sets="seqwrite,reread untar,cat-cold,cat-warm ls-l smallfiles" ;;
	*) echo "# bench-ab: no section '$s'"; continue ;;
	esac
	for set in $sets; do
		g=
		for w in $(echo "$set" | tr , ' '); do
			case " $list " in *" $w "*) g="$g,$w" ;; esac
		done
		[ -n "$g" ] && groups="$groups $s:${g#,}"
	done
done

echo "# bench-ab: kernel $(uname -r), base ${v9fs_ab_base:-?} against current" \
	"${v9fs_ab_cur:-?}; base side swaps: $SWAP; $ROUNDS pass(es) of each side" \
	"per group, base first, alternating"
echo "# groups:$groups"

fail=0
if [ -z "$groups" ]; then
	echo "# bench-ab: no workload was asked for that a section has"
	fail=1
fi
if [ ! -f $AB/base/9p2000.ko ] || [ ! -x $AB/base/v9fsd ]; then
	echo "# bench-ab: the base build is not in the guest ($AB/base)"
	fail=1
fi
mkdir -p $AB/cur
cp /v9fs/9p2000.ko $AB/cur/9p2000.ko && cp /v9fs/bin/v9fsd $AB/cur/v9fsd || fail=1

# use SIDE: SIDE's module and v9fsd in the places bench/run.sh loads them from,
# with no module of ours loaded and no v9fsd running; the part the base side
# does not swap (SWAP) is the current one on both sides
use() {
	if grep -q '^9p2000 ' /proc/modules && ! rmmod 9p2000; then
		echo "# bench-ab: 9p2000 could not be unloaded before the $1 pass"
		return 1
	fi
	if pidof v9fsd > /dev/null; then
		echo "# bench-ab: a v9fsd is still running before the $1 pass"
		return 1
	fi
	_ko=$1 _srv=$1
	case $SWAP in server) _ko=cur ;; client) _srv=cur ;; esac
	cp "$AB/$_ko/9p2000.ko" /v9fs/9p2000.ko && cp "$AB/$_srv/v9fsd" /v9fs/bin/v9fsd
}

# pass SIDE N GROUP: one run of bench/run.sh for GROUP, its timed lines as
# "SIDE CONFIG WORKLOAD SECONDS" into $OUT, its comment lines shown. 2 when
# the sides could not be swapped, 1 when the run failed.
pass() {
	echo "# --- $3, $1 pass $2 ($(date -u +%H:%M:%S))"
	use "$1" || return 2
	_wls=$(echo "${3#*:}" | tr , ' ')
	V9FS_BENCH_OURS=1 V9FS_BENCH_SECTIONS="${3%%:*}" V9FS_BENCH_ROUNDS=1 \
		V9FS_BENCH_SLOW_ROUNDS=1 V9FS_BENCH_VROUNDS=1 V9FS_BENCH_WORKLOADS="$_wls" \
		V9FS_BENCH_SWORKLOADS="$_wls" V9FS_BENCH_LWORKLOADS="$_wls" \
		sh /v9fs/bench/run.sh > $PASS 2>&1
	_rc=$?
	grep '^#' $PASS | sed "s/^/#   $1 $2: /"
	# "# CONFIG WORKLOAD: 1.234s, ..." and "# serial ours WORKLOAD: 1.234s, ..."
	awk -v side="$1" '
		/^# / && $0 ~ /: [0-9]+\.[0-9]+s(,|$)/ {
			i = 2
			cfg = $i
			if (cfg == "serial") cfg = "serial-" $(++i)
			wl = $(i + 1); sub(/:$/, "", wl)
			secs = $(i + 2); sub(/s,?$/, "", secs)
			print side, cfg, wl, secs
		}' $PASS >> $OUT
	if [ $_rc -ne 0 ]; then
		echo "# bench-ab: bench/run.sh exited with status $_rc ($1, pass $2)"
		return 1
	fi
	if grep -Eq 'FAILED|INVALID|failed|did not|could not|no two 9P' $PASS; then
		echo "# bench-ab: the $1 pass $2 had a failure (above)"
		return 1
	fi
}

: > $OUT
for g in $groups; do
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		r=$((r + 1))
		for side in base cur; do
			pass $side $r "$g"
			case $? in 0) ;; 2) fail=2; break 3 ;; *) fail=1 ;; esac
		done
	done
done
[ $fail = 0 ] || fail=1
# leave the boot's own build in place
use cur > /dev/null 2>&1

# The table: a row per line of either side; a line with fewer than ROUNDS
# figures on a side is a failure.
echo ""
echo "# bench-ab summary: seconds; median (min-max) of each side's passes;" \
	"cur/base > 1: current is slower; faster: in how many base-then-current" \
	"pairs of passes current took less time"
awk -v rounds="$ROUNDS" '
	{
		k = $2 " " $3
		if (!(k in seen)) { seen[k] = 1; order[++keys] = k }
		n[$1, k]++; v[$1, k, n[$1, k]] = $4
	}
	function stats(s, k,    c, i, j, t) {
		c = n[s, k]
		for (i = 1; i <= c; i++) w[i] = v[s, k, i]
		for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++)
			if (w[j] + 0 < w[i] + 0) { t = w[i]; w[i] = w[j]; w[j] = t }
		lo = w[1]; hi = w[c]
		med = c % 2 ? w[(c + 1) / 2] : (w[c / 2] + w[c / 2 + 1]) / 2
	}
	END {
		printf "%-24s %-26s %-26s %8s %6s  %s\n", "line", "base median (min-max)",
			"current median (min-max)", "cur/base", "faster", "verdict"
		bad = 0
		for (o = 1; o <= keys; o++) {
			k = order[o]
			if (n["base", k] < rounds || n["cur", k] < rounds) {
				printf "%-24s %-26s %-26s %8s %6s  %s\n", k, n["base", k] + 0 " run(s)",
					n["cur", k] + 0 " run(s)", "-", "-", "FAILED: runs missing"
				bad = 1
				continue
			}
			stats("base", k); bm = med; bl = lo; bh = hi
			stats("cur", k); cm = med; cl = lo; ch = hi
			ratio = bm > 0 ? cm / bm : 0
			# pass i of current ran right after pass i of base
			f = 0
			for (i = 1; i <= rounds; i++) if (v["cur", k, i] + 0 < v["base", k, i] + 0) f++
			if (cl <= bh && bl <= ch) verdict = "same within noise"
			else if (cm < bm) verdict = "better"
			else if (ratio > 1.05) verdict = "worse by >5%"
			else verdict = "worse by <5%"
			printf "%-24s %-26s %-26s %8.2f %6s  %s\n", k,
				sprintf("%.3f (%.3f-%.3f)", bm, bl, bh),
				sprintf("%.3f (%.3f-%.3f)", cm, cl, ch), ratio, f "/" rounds, verdict
		}
		if (keys == 0) { print "# no line was measured"; bad = 1 }
		exit bad
	}' $OUT || fail=1
[ "$ROUNDS" -lt 2 ] && echo "# one pass a side: no spread, so \"same within noise\" means equal times"
echo "V9FS-EXIT $fail"
