# SPDX-License-Identifier: GPL-2.0-or-later
# Deterministic folded stacks for benchmarks, harder than gen-stacks.awk:
# N unique stacks (-v n=200000) of depth 20 to 42 (about 31) whose frames
# come from a pool of 30000 C++-like names. Each stack shares a short spine
# (3 to 10 frames, one of 40), then walks a call graph where each function
# calls 3 others, at random, so stacks part early and keep long tails of
# their own, as an interpreter's or a compiler's do. The tree has millions of
# nodes, where gen-stacks.awk's has a few hundred thousand. Lines are unique,
# their counts summed (pipe through LC_ALL=C sort for the folded order).
BEGIN {
	if (!n) n = 200000
	seed = 4242
	split("parse,emit,visit,lower,match,build,check,resolve,expand,fold,scan,walk,load,store,merge,split", verb, ",")
	split("Node,Expr,Stmt,Type,Decl,Scope,Block,Value,Inst,Pass,Token,Symbol,Module,Graph", noun, ",")
	for (i = 0; i < 30000; i++)
		pool[i] = sprintf("ns%d::%s%d::%s_%s", i % 23, noun[1 + i % 14], i % 97,
				  verb[1 + int(i / 14) % 16], noun[1 + int(i / 224) % 14])
	for (s = 0; s < 40; s++) {
		spine[s] = "prog_" (s % 4) ";main"
		len[s] = 3 + s % 8
		for (d = 2; d < len[s]; d++)
			spine[s] = spine[s] ";" pool[(s * 7919 + d * 104729) % 30000]
	}
	for (i = 0; i < n; i++) {
		s = i % 40
		line = spine[s]
		f = (s * 7919 + len[s] * 104729) % 30000
		seed = (seed * 16807) % 2147483647
		depth = 20 + seed % 23
		for (d = len[s]; d < depth; d++) {
			seed = (seed * 16807) % 2147483647
			f = (f * 7919 + (1 + int(seed / 1024) % 3) * 104729) % 30000
			line = line ";" pool[f]
		}
		seed = (seed * 16807) % 2147483647
		count[line] += 1 + seed % 100
	}
	for (line in count)
		print line, count[line]
}
