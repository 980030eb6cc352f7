#!/bin/bash
# syscall-check.sh: does v9fsd.service's SystemCallFilter= allow every system
# call v9fsd makes? The v9fsd host tests (tests/unit/server_*.c: every
# message of the three dialects, listeners, renames, confinement) are built
# against a wrapper that runs build/bin/v9fsd under strace -f; the calls seen
# are compared with the filter's sets as this host's systemd-analyze
# expands them. Prints TAP. Needs strace (installed if missing).
#
# Some tests fail under strace (they time things, or signal the server and
# strace takes the signal); only the calls matter here.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
scratch=$top/build/pkg/syscalls
n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

if ! command -v strace > /dev/null; then
	sudo=
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends strace > /dev/null
fi
rm -rf "$scratch"
mkdir -p "$scratch/traces"
make -s build/bin/v9fsd
cat > "$scratch/v9fsd" <<EOT
#!/bin/sh
exec strace -f -qq -o "$scratch/traces/t.\$\$" "$top/build/bin/v9fsd" "\$@"
EOT
chmod +x "$scratch/v9fsd"

tests=$(ls tests/unit/server_*.c | grep -v -e server_client.c -e server_bench.c)
for t in $tests; do
	name=$(basename "$t" .c)
	gcc -std=gnu11 -O2 -g -Iproto -Itests/unit -DV9FSD_BIN="\"$scratch/v9fsd\"" -pthread \
		-o "$scratch/$name" "$t" tests/unit/server_client.c proto/*.c || {
		not_ok "build $name against the strace wrapper"
		continue
	}
	(cd "$scratch" && timeout 300 "./$name" > "$name.out" 2>&1)
	echo "# $name: $(grep -c '^ok' "$scratch/$name.out") ok, $(grep -c '^not ok' "$scratch/$name.out") not ok under strace"
done
# A test stops its daemon with SIGTERM, which strace takes and detaches on:
# the daemon lives on. Stop each v9fsd of this build's binary started since
# the wrapper was written; nothing else.
for p in /proc/[0-9]*; do
	[ "$(readlink "$p/exe" 2> /dev/null)" = "$top/build/bin/v9fsd" ] || continue
	[ "$p" -nt "$scratch/v9fsd" ] && kill "${p#/proc/}" 2> /dev/null
done

# the calls, past the exec of v9fsd itself (strace's own set-up is before)
cat "$scratch"/traces/t.* | sed -n 's/^[0-9]* *\([a-z_0-9]*\)(.*/\1/p' | sort -u > "$scratch/used"
used=$(wc -l < "$scratch/used")
filter=$(sed -n 's/^SystemCallFilter=//p' dist/v9fsd.service)
systemd-analyze syscall-filter > "$scratch/groups" 2> /dev/null
missing=$(python3 - "$scratch/groups" "$scratch/used" $filter <<'EOT'
import sys
groups, cur = {}, None
for l in open(sys.argv[1]):
    s = l.strip()
    if l.startswith("@"):
        cur = s
        groups[cur] = []
    elif s and not s.startswith("#") and cur:
        groups[cur].append(s)
def expand(name, seen):
    if not name.startswith("@"):
        return {name}
    if name in seen:
        return set()
    seen.add(name)
    out = set()
    for m in groups.get(name, []):
        out |= expand(m, seen)
    return out
allowed = set()
for f in sys.argv[3:]:
    allowed |= expand(f, set())
used = set(open(sys.argv[2]).read().split())
print(" ".join(sorted(used - allowed)))
EOT
)
if [ "$used" -gt 20 ]; then
	ok "strace saw $used distinct system calls of v9fsd"
else
	not_ok "strace saw $used distinct system calls of v9fsd (too few to mean anything)"
fi
if [ -z "$missing" ]; then
	ok "SystemCallFilter=$filter allows all of them"
else
	not_ok "SystemCallFilter=$filter refuses: $missing"
fi
echo "1..$n"
[ $failed -eq 0 ]
