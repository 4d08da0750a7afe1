#!/bin/sh
# fetch-clients.sh WEBSITE OUT "RELEASE..." ["RELEASE=SHA256..."]
#
# For each FoundationDB RELEASE, downloads its foundationdb-clients package
# (foundationdb-clients_<release>-1_amd64.deb, from WEBSITE/<release>/, as the
# project's GitHub releases publish it), checks it against the sha256 the
# release publishes beside it and, when one is given, against the pinned
# sha256, and unpacks what the provider image needs into OUT/<major.minor>/:
#   fdbcli, fdbbackup, fdbrestore   the tools (usr/bin of the package)
#   libfdb_c.so                     the client library (usr/lib)
#   include/foundationdb/           the C headers (usr/include)
# Each tool must report the release it was fetched for. A release without a
# pinned sha256 is reported with its sum, to pin it with.
set -eu

website=$1 out=$2 releases=$3 pins=${4:-}

if [ "$(dpkg --print-architecture)" != amd64 ]; then
	echo "FoundationDB 7.1 publishes amd64 client packages only: build with --platform linux/amd64" >&2
	exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for release in $releases; do
	line=${release%.*}
	deb=foundationdb-clients_${release}-1_amd64.deb
	curl --fail --location --silent --show-error --output "$work/$deb" "$website/$release/$deb"
	curl --fail --location --silent --show-error --output "$work/$deb.sha256" "$website/$release/$deb.sha256"
	sum=$(sha256sum "$work/$deb" | cut -d ' ' -f 1)
	published=$(cut -d ' ' -f 1 "$work/$deb.sha256")
	if [ "$sum" != "$published" ]; then
		echo "$deb: sha256 $sum, but the release publishes $published" >&2
		exit 1
	fi
	pin=
	for p in $pins; do
		case $p in "$release="*) pin=${p#*=} ;; esac
	done
	if [ -z "$pin" ]; then
		echo "$deb: sha256 $sum is not pinned (FDB_CLIENTS_SHA256=\"... $release=$sum\")" >&2
	elif [ "$sum" != "$pin" ]; then
		echo "$deb: sha256 $sum, but $pin is pinned" >&2
		exit 1
	fi

	rm -rf "$work/pkg"
	dpkg-deb --extract "$work/$deb" "$work/pkg"
	mkdir -p "$out/$line/include"
	cp -L "$work/pkg/usr/bin/fdbcli" "$work/pkg/usr/bin/fdbbackup" "$work/pkg/usr/bin/fdbrestore" \
		"$work/pkg/usr/lib/libfdb_c.so" "$out/$line/"
	cp -RL "$work/pkg/usr/include/foundationdb" "$out/$line/include/"
	for tool in fdbcli fdbbackup fdbrestore; do
		if ! "$out/$line/$tool" --version | grep -qF "(v$release)"; then
			echo "$deb: $tool does not report release $release" >&2
			exit 1
		fi
	done
done
