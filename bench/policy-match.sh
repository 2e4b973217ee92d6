#!/usr/bin/env bash
# srt-policy match in batch mode: 100,000 queries against a policy of ~1,000 rules.
# Prints queries per second and the time against a baseline measured in the same run:
# `cat` of the same input (the cost of just moving the bytes through a pipe).
# A benchmark, not a test: it never fails on a number.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${SRT_BUILD:-$here/build}
bin=$build/bin/srt-policy
[ -x "$bin" ] || { echo "policy-match: $bin not built (make first)" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/srt-bench.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
nq=100000

# ~1,000 rules: exact names, wildcards, port-qualified entries, IP literals, a few denies.
awk 'BEGIN {
	printf "{\"network\":{\"allowedDomains\":["
	for (i = 0; i < 900; i++) {
		if (i) printf ","
		if (i % 3 == 0) printf "\"*.svc%d.example%d.com\"", i, i % 17
		else if (i % 3 == 1) printf "\"api%d.example%d.com:443\"", i, i % 17
		else printf "\"10.%d.%d.%d\"", i % 250, (i * 7) % 250, (i * 13) % 250
	}
	printf "],\"deniedDomains\":["
	for (i = 0; i < 100; i++) {
		if (i) printf ","
		printf "\"bad%d.svc%d.example%d.com\"", i, i * 3, (i * 3) % 17
	}
	printf ",\"*:22\"],\"deniedDomainReasons\":{\"*:22\":\"no ssh\"}},"
	printf "\"filesystem\":{\"denyRead\":[],\"allowWrite\":[],\"denyWrite\":[]}}\n"
}' >"$work/settings.json"

awk -v n="$nq" 'BEGIN {
	srand(1)
	for (q = 0; q < n; q++) {
		i = int(rand() * 1000)
		k = q % 6
		if (k == 0) printf "a.b.svc%d.example%d.com\t443\n", i, i % 17
		else if (k == 1) printf "api%d.example%d.com\t443\n", i, i % 17
		else if (k == 2) printf "10.%d.%d.%d\t80\n", i % 250, (i * 7) % 250, (i * 13) % 250
		else if (k == 3) printf "bad%d.svc%d.example%d.com\t443\n", i % 100, (i % 100) * 3, ((i % 100) * 3) % 17
		else if (k == 4) printf "www.unlisted%d.org\t443\n", i
		else printf "host%d.example.net\t22\n", i
	}
}' >"$work/queries"

"$bin" compile -s "$work/settings.json" -o "$work/policy.bin"
rules=$(grep -o '"[^"]*"' "$work/settings.json" | grep -c '\.\|\*')

now() { date +%s%N; }
best() {        # best of 5 runs of "$@" < queries > /dev/null, in nanoseconds
	local b=0 t0 t1 d
	for _ in 1 2 3 4 5; do
		t0=$(now)
		"$@" <"$work/queries" >/dev/null
		t1=$(now)
		d=$((t1 - t0))
		if [ "$b" -eq 0 ] || [ "$d" -lt "$b" ]; then b=$d; fi
	done
	echo "$b"
}

# Correctness first: one answer per query.
answers=$("$bin" match -p "$work/policy.bin" - <"$work/queries" | wc -l)
[ "$answers" -eq "$nq" ] || { echo "policy-match: $answers answers for $nq queries" >&2; exit 1; }

t_cat=$(best cat)
t_match=$(best "$bin" match -p "$work/policy.bin" -)
awk -v n="$nq" -v r="$rules" -v tm="$t_match" -v tc="$t_cat" 'BEGIN {
	printf "policy-match: %d queries, ~%d rules: %.1f ms, %.0f queries/s\n", n, r, tm / 1e6, n / (tm / 1e9)
	printf "policy-match: baseline cat of the same input: %.1f ms; match takes %.1fx the baseline\n", tc / 1e6, tm / tc
}'
