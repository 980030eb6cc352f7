#!/bin/bash
# unit-run.sh ROOT PROBE: start the v9fsd installed under ROOT (an extracted
# .deb or a `make install DESTDIR=` tree) the way its systemd unit does, with
# no systemd: read EnvironmentFile=, expand ExecStart= as systemd would
# ($VAR split on white space), create StateDirectory=, apply UMask=. Then
# prove it serves, with PROBE (serve-probe), and stops cleanly on SIGTERM.
# Prints TAP.
#
# What is changed for a scratch run, and only this: every absolute path is
# taken beneath ROOT (the binary, the config file, the state directory the
# default config exports), and a TCP port becomes 0 (any free one) so that
# the run never collides with a real server on port 564.
set -uo pipefail
root=$(cd "${1:?usage: unit-run.sh ROOT PROBE}" && pwd)
probe=${2:?usage: unit-run.sh ROOT PROBE}
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; return 1; fi; }
# A v9fsd of ROOT still running (one that detached, say) is stopped: by the
# exact path of ROOT's binary, nothing else.
bin=
reap() {
	local p
	[ -n "$bin" ] || return 0
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/exe" 2> /dev/null)" = "$bin" ] && kill "${p#/proc/}" 2> /dev/null
	done
}
finish() { reap; echo "1..$n"; [ $failed -eq 0 ]; exit; }

unit=$(find "$root" -path '*/systemd/system/v9fsd.service' | head -n 1)
if [ -z "$unit" ]; then
	not_ok "v9fsd.service is installed under $root"
	finish
fi
ok "unit ${unit#"$root"}"

# [Service] key=value, continuation lines joined; the last one wins.
key() {
	sed -e ':a' -e '/\\$/{N;s/\\\n//;ba' -e '}' "$unit" |
		awk -v k="$1" '/^\[/ { s = $0 } s == "[Service]" && index($0, k "=") == 1 {
			v = substr($0, length(k) + 2) } END { print v }'
}
envfile=$(key EnvironmentFile)
exec_start=$(key ExecStart)
state=$(key StateDirectory)
umask_v=$(key UMask)
check "ExecStart= is set ($exec_start)" test -n "$exec_start"

# EnvironmentFile=-PATH: optional; VAR=value lines, quotes removed.
declare -A env=()
if [ -n "$envfile" ]; then
	f=$root${envfile#-}
	if [ -f "$f" ]; then
		ok "config ${envfile#-} is installed"
		while IFS= read -r l; do
			[[ $l =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
			k=${BASH_REMATCH[1]}
			v=${BASH_REMATCH[2]}
			[[ $v =~ ^\"(.*)\"$ ]] && v=${BASH_REMATCH[1]}
			env[$k]=$v
		done < "$f"
	else
		[ "${envfile:0:1}" = - ] || not_ok "config $envfile is installed"
	fi
fi

# systemd's expansion: $VAR splits into words, ${VAR} is one word.
argv=()
read -r -a words <<< "$exec_start"
for w in "${words[@]}"; do
	if [[ $w =~ ^\$([A-Za-z_][A-Za-z0-9_]*)$ ]]; then
		read -r -a more <<< "${env[${BASH_REMATCH[1]}]:-}"
		argv+=("${more[@]}")
	elif [[ $w =~ ^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$ ]]; then
		argv+=("${env[${BASH_REMATCH[1]}]:-}")
	else
		argv+=("$w")
	fi
done
echo "# the unit runs: ${argv[*]}"

# Scratch paths and port, as described at the top.
for i in "${!argv[@]}"; do
	a=${argv[$i]}
	case $a in
	/*) a=$root$a ;;
	unix:/*) a=unix:$root${a#unix:} ;;
	esac
	[[ $a =~ ^(tcp[:!].*[:!])[0-9]+$ ]] && a=${BASH_REMATCH[1]}0
	argv[$i]=$a
done
bin=${argv[0]}
[ -n "$state" ] && mkdir -p "$root/var/lib/$state"
# what the default config exports gets one file to read back
export_dir=
for i in "${!argv[@]}"; do
	[ "${argv[$i]}" = -e ] && export_dir=${argv[$((i + 1))]:-}
done
if ! check "the default config names an export that exists (${export_dir#"$root"})" \
	test -d "$export_dir"; then
	finish
fi
text="served by the unit's v9fsd"
printf '%s' "$text" > "$export_dir/probe.txt"
chmod 644 "$export_dir/probe.txt"
echo "# scratch run: ${argv[*]}"

log=$(mktemp)
(
	[ -n "$umask_v" ] && umask "$umask_v"
	exec "${argv[@]}"
) 2> "$log" &
pid=$!
addr=
for _ in $(seq 50); do
	addr=$(sed -n 's/^v9fsd: listening on \(tcp:[^ ]*\|unix:[^ ]*\)$/\1/p' "$log" | head -n 1)
	[ -n "$addr" ] && break
	kill -0 $pid 2> /dev/null || break
	sleep 0.1
done
if ! check "v9fsd started from ExecStart= listens (${addr:-nothing reported})" test -n "$addr"; then
	sed 's/^/# /' "$log"
	kill $pid 2> /dev/null
	wait $pid 2> /dev/null
	rm -f "$log" "$export_dir/probe.txt"
	finish
fi
check "it stays in the foreground (the process started is the server)" kill -0 $pid

"$probe" "$addr" probe.txt "$text" | while IFS= read -r l; do
	case $l in
	"ok "*) echo "SUB ok ${l#ok [0-9]* - }" ;;
	"not ok "*) echo "SUB not ok ${l#not ok [0-9]* - }" ;;
	esac
done > "$log.probe"
while IFS= read -r l; do
	case $l in
	"SUB ok "*) ok "${l#SUB ok }" ;;
	"SUB not ok "*) not_ok "${l#SUB not ok }" ;;
	esac
done < "$log.probe"
check "the probe ran (${addr})" test -s "$log.probe"

kill -TERM $pid
rc=
for _ in $(seq 30); do
	kill -0 $pid 2> /dev/null || { wait $pid; rc=$?; break; }
	sleep 0.1
done
if [ -z "$rc" ]; then
	kill -KILL $pid
	wait $pid 2> /dev/null
fi
check "SIGTERM (systemctl stop) ends it with status 0 (${rc:-still running})" test "${rc:-x}" = 0
rm -f "$log" "$log.probe" "$export_dir/probe.txt"
finish
