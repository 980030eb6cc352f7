#!/bin/bash
# module_trans_shape.sh: the client core hands transports whole messages.
# Drawn from the sources of module/: the core (module/client/) calls no
# byte-level transport operation and runs no receive or send thread of its
# own; the operations a transport offers the core are message-level ones;
# tcp, unix and fd are built on the stream helper (module/trans/stream.c),
# which alone frames replies. Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1

n=0
status=0
check() { # check DESCRIPTION COMMAND...: ok when COMMAND succeeds
	local what=$1

	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $what"
	else
		echo "not ok $n - $what"
		status=1
	fi
}

# The members of struct ninep_trans_ops, one per line.
trans_ops_members() {
	sed -n '/^struct ninep_trans_ops {/,/^};/p' module/trans/trans.h |
		sed -n 's/.*(\*\([a-z_]*\))(.*/\1/p'
}

no_byte_calls() {
	local hits

	hits=$(grep -nE '(ops->|\.)(send|send_nb|recv|recv_nb|send_msg|ack)\(' \
		module/client/*.c module/client/*.h)
	[ -z "$hits" ] || { sed 's/^/# /' <<< "$hits"; return 1; }
}

no_threads() {
	local hits

	hits=$(grep -nE 'kthread_run|kthread_create' module/client/*.c)
	[ -z "$hits" ] || { sed 's/^/# /' <<< "$hits"; return 1; }
}

message_ops() {
	local m members

	members=$(trans_ops_members)
	for m in request cancel wait; do
		grep -qx "$m" <<< "$members" || { echo "# no $m()"; return 1; }
	done
	for m in send send_nb recv recv_nb send_msg ack; do
		if grep -qx "$m" <<< "$members"; then
			echo "# byte-level $m() offered to the core"
			return 1
		fi
	done
}

on_stream() { # on_stream NAME FILE
	sed -n "/^const struct ninep_trans_ops ninep_trans_$1 = {/,/^};/p" "$2" |
		grep -q 'NINEP_STREAM_TRANS_OPS('
}

framing_in_helper() {
	! grep -qE 'v9p_peek_hdr' module/client/*.c &&
	grep -q 'v9p_peek_hdr' module/trans/stream.c 2> /dev/null
}

echo "1..7"
check "module/client/ calls no byte-level transport operation" no_byte_calls
check "module/client/ starts no kernel thread (rx/tx are the stream helper's)" no_threads
check "struct ninep_trans_ops offers request, cancel and wait, no byte-level operation" message_ops
check "tcp is built on the stream helper" on_stream tcp module/trans/trans_sock.c
check "unix is built on the stream helper" on_stream unix module/trans/trans_sock.c
check "fd is built on the stream helper" on_stream fd module/trans/trans_fd.c
check "replies are framed in the stream helper, not in module/client/" framing_in_helper
exit $status
