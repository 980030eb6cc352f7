# loose-coherence.sh: cache=loose against a server other than v9fsd, sourced
# by 52-dotl (diod) and 80-virtio (QEMU's server) after lib.sh; they set OUT
# and SEED. A file is made, changed, replaced and removed from the other
# side (the export itself, or another client of the same share) while a
# loose mount (actimeo=1) looks at it:
#   - after actimeo a stat shows the new size and mode, and an open right
#     after it reads the new bytes (over 9P2000.L ours sends the name check's
#     Twalk beside a Tgetattr, then the Tlopen beside a Tgetattr of the same
#     fid: the two in flight together on that server);
#   - a change of the same size made at once shows at the next open
#     (close-to-open);
#   - a file replaced by a rename shows as the new file, a removed one is gone.
# Ours (9P) is asserted; the in-tree client (9p) runs the same as the
# reference, its differences shown as notes (ref_expect in lib.sh; its
# cache=loose does not check at open, for one).

# loose_coherence CLIENT LABEL DIR OTHER: DIR on CLIENT's loose mount, OTHER
# the same directory as the other side sees it. Three files, each read
# through the loose mount first, change on the other side at once (one
# changed, one replaced by a rename, one removed), so that one wait for
# actimeo serves all three.
loose_coherence() {
	_lc=$1 _ll="$2: cache=loose" _ld=$3 _lo=$4 _lf=loose.$1
	rm -f "$_lo/$_lf" "$_lo/$_lf.r" "$_lo/$_lf.g"
	printf one > "$_lo/$_lf"
	printf one > "$_lo/$_lf.r"
	printf one > "$_lo/$_lf.g"
	ref_expect $_lc "$_ll: a file made on the other side: stat" \
		"$(stat -c '%s %a' "$_ld/$_lf" 2>&1)" "3 644"
	ref_expect $_lc "$_ll: ... and read" "$(cat "$_ld/$_lf" 2>&1)" one
	# the other two cached the same way
	stat "$_ld/$_lf.r" "$_ld/$_lf.g" > /dev/null 2>&1
	cat "$_ld/$_lf.r" "$_ld/$_lf.g" > /dev/null 2>&1
	printf 'second!' > "$_lo/$_lf"
	chmod 600 "$_lo/$_lf"
	printf third > "$_lo/$_lf.new"
	mv "$_lo/$_lf.new" "$_lo/$_lf.r"
	rm -f "$_lo/$_lf.g"
	sleep 1.1
	ref_expect $_lc "$_ll: changed on the other side, after actimeo: stat shows the new size and mode" \
		"$(stat -c '%s %a' "$_ld/$_lf" 2>&1)" "7 600"
	ref_expect $_lc "$_ll: ... and an open right after reads the new bytes" \
		"$(cat "$_ld/$_lf" 2>&1)" 'second!'
	printf 'SECOND!' > "$_lo/$_lf"
	ref_expect $_lc "$_ll: changed again, same size, at once: the next open reads it (close-to-open)" \
		"$(cat "$_ld/$_lf" 2>&1)" 'SECOND!'
	ref_expect $_lc "$_ll: replaced by a rename on the other side, after actimeo: stat shows the new file" \
		"$(stat -c '%s %a' "$_ld/$_lf.r" 2>&1)" "5 644"
	ref_expect $_lc "$_ll: ... and an open reads it" "$(cat "$_ld/$_lf.r" 2>&1)" third
	ref_expect $_lc "$_ll: removed on the other side, after actimeo: the name is gone" \
		"$(stat -c %s "$_ld/$_lf.g" > /dev/null 2>&1 && echo there || echo gone)" gone
	rm -f "$_lo/$_lf" "$_lo/$_lf.r"
}

# loose_fsx CLIENT LABEL DIR OPS [FSX_FLAGS]: one fsx on the loose mount. A
# failure of ours that the in-tree client's run of the same LABEL had is a
# SKIP that says so.
loose_fsx() {
	timeout 400 /v9fs/bin/fsx -q ${5:-} -N $4 -l 131072 -o 16384 -S "$SEED" \
		"$3/fsx.loose.$1" > "$OUT/lfsx.out" 2> "$OUT/lfsx.err"
	_rc=$?
	_lt="$2: cache=loose: fsx ($4 ops${5:+, $5})"
	if [ $_rc -eq 0 ]; then
		ok "$1: $_lt"
	elif [ "$1" = 9p ]; then
		LC_REF_FAILED="$LC_REF_FAILED|$2|"
		diag "note: in-tree 9p: $_lt: exit $_rc, seed $SEED"
	else
		case $LC_REF_FAILED in
		*"|$2|"*) skip "$1: $_lt" "the in-tree client fails this too" ;;
		*) not_ok "$1: $_lt: exit $_rc, seed $SEED" ;;
		esac
	fi
	[ $_rc -ne 0 ] && head -n 30 "$OUT/lfsx.err" | sed 's/^/#   /'
	diag "$1/$2: loose fsx: $(tail -n 1 "$OUT/lfsx.out")"
	rm -f "$3/fsx.loose.$1"
}
