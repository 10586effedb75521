# SPDX-License-Identifier: GPL-2.0-or-later
# Turns `perf script` text (default fields) into an lp stream, for benchmarking
# lp-collapse on lp input of the same samples. Not a converter for users.
BEGIN { OFS = "\t"; print "#lp-stream 1"; n = 0 }
/^[^ \t#]/ {
	# comm pid/tid [cpu] secs: period event:
	split($0, w, /[ \t]+/)
	for (i = 2; i <= length(w); i++) if (w[i] ~ /^[0-9]+(\/[0-9]+)?$/) break
	comm = w[1]; for (j = 2; j < i; j++) comm = comm " " w[j]
	ids = w[i]; pid = ids; tid = ids
	if (ids ~ /\//) { split(ids, p, "/"); pid = p[1]; tid = p[2] }
	for (k = i + 1; k <= length(w); k++) if (w[k] ~ /^[0-9]+\.[0-9]+:$/) break
	t = w[k]; sub(/:$/, "", t); split(t, tp, "."); time = tp[1] tp[2] "000"
	weight = w[k + 1]
	n = 0
	next
}
/^[ \t]/ {
	addr = $1; sym = $2; sub(/\+0x[0-9a-f]+$/, "", sym)
	dso = $NF; gsub(/[()]/, "", dso)
	n++; f[n] = sym; l[n] = dso "+0x" addr
	next
}
/^$/ {
	if (n == 0) next
	stack = f[n]; locs = l[n]
	for (i = n - 1; i >= 1; i--) { stack = stack ";" f[i]; locs = locs ";" l[i] }
	print "S", time, pid, tid, comm, "cpu", weight, stack, locs
	records++
	n = 0
}
END { print "#lp.end", records + 0 }
