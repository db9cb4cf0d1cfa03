# tools/bench/stats.awk: the order statistics the reports share, prepended to
# their awk programs ("$STATS_AWK" from lib.sh). A list is a string of
# numbers, each preceded by a space, as the programs build them.

# sort(a, n): sort a[1..n] in place, ascending (insertion sort: lists are short)
function sort(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
}
# stats(list): "median<TAB>min<TAB>max" of the list
function stats(list,   a, n) {
	n = split(substr(list, 2), a, " ")
	sort(a, n)
	return sprintf("%s\t%s\t%s", (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2, a[1], a[n])
}
# median(list): the median alone
function median(list,   s) { split(stats(list), s, "\t"); return s[1] + 0 }
