# SPDX-License-Identifier: GPL-2.0-or-later
# The fields of lp-stream(5)'s records by name, for the tests' awk programs
# (lp_awk in test_helper.bash puts this before them):
#   f("weight")   an S record's WEIGHT; f("comm") the COMM of an S, P or T record
#   attr("state") the value of a KEY=VALUE attribute of the record, "" without one
#   meta("lost", "cpu")  in an END block: the value after "#lp.lost<TAB>cpu", "" without one
# A name the record's kind does not have stops awk with a message, so a
# test cannot read the wrong field by mistake.
function lp_names(kind, names,    n, i, v) {
	n = split(names, v, " ")
	for (i = 1; i <= n; i++)
		LP_AT[kind, v[i]] = i + 1
	LP_ATTRS[kind] = n + 2
}

BEGIN {
	lp_names("S", "time pid tid comm event weight stack locs")
	lp_names("T", "time pid tid comm")
	lp_names("P", "time pid tid what comm")
	lp_names("C", "time pid tid what name")
	lp_names("Pspawn", "time pid tid what comm ppid ptid stack locs")
	lp_names("Pexec", "time pid tid what comm path")
	lp_names("R", "name kind value unit")
	lp_names("Q", "name flops bytes seconds")
	lp_names("K", "pid tid name insns flops loaded stored")
	lp_names("N", "time pid tid comm event value enabled running")
}

function lp_kind() {
	return $1 == "P" && ($5 == "spawn" || $5 == "exec") ? "P" $5 : $1
}

function f(name,    k) {
	k = lp_kind()
	if (!((k, name) in LP_AT)) {
		printf "lp.awk: line %d: a %s record has no field '%s'\n", NR, $1, name > "/dev/stderr"
		exit 2
	}
	return $(LP_AT[k, name])
}

function attr(key,    i, k) {
	k = lp_kind()
	for (i = (k in LP_ATTRS) ? LP_ATTRS[k] : 2; i <= NF; i++)
		if (index($i, key "=") == 1)
			return substr($i, length(key) + 2)
	return ""
}

# metadata lines, kept as they pass: "#lp.KEY<TAB>V1..." under KEY and under KEY SUBSEP V1;
# the first of each holds, as for lp's readers
$1 ~ /^#lp\./ {
	if (!(substr($1, 5) in LP_META))
		LP_META[substr($1, 5)] = $2
	if (NF >= 3 && !((substr($1, 5), $2) in LP_META))
		LP_META[substr($1, 5), $2] = $3
}

function meta(key, first) {
	if (first == "")
		return (key in LP_META) ? LP_META[key] : ""
	return ((key, first) in LP_META) ? LP_META[key, first] : ""
}
