#!/bin/bash
# need-packages.sh WHO PACKAGE...: install whichever of these Debian packages are
# missing (apt-get, as root or through sudo), saying so on stderr as WHO.
set -euo pipefail
who=${1:?usage: need-packages.sh WHO PACKAGE...}
shift
missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2> /dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -n "$missing" ] || exit 0
sudo=
[ "$(id -u)" -eq 0 ] || sudo=sudo
echo "$who: installing Debian packages:$missing" >&2
$sudo apt-get update -q >&2
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends \
	$missing >&2
