# Turns `kedge config-reference` (Markdown) into the KEYS and UDTF KEYS
# sections of kedge.conf(5): a section per "## " heading, a subsection per
# "### ", a tagged paragraph per table row, ending with whether SIGHUP
# applies the key.  Used by "make man".

# roff text: backslashes and minus signs escaped, `code` in bold, and no
# line that starts with a control character.
function roff(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	while (match(s, /`[^`]*`/))
		s = substr(s, 1, RSTART - 1) "\\fB" \
		    substr(s, RSTART + 1, RLENGTH - 2) "\\fR" \
		    substr(s, RSTART + RLENGTH)
	if (s ~ /^[.']/)
		s = "\\&" s
	return s
}

function cells(line, out,   n) {
	sub(/^\| /, "", line)
	sub(/ \|$/, "", line)
	n = split(line, out, / \| /)
	# a description holding " | " is one cell
	for (; n > ncols && ncols > 0; n--)
		out[n - 1] = out[n - 1] " | " out[n]
	return n
}

/^## / {
	started = 1
	title = substr($0, 4)
	if (title == "UDTF keys")
		print ".SH \"UDTF KEYS\""
	else
		print ".SS " roff(title)
	next
}
!started { next }
/^### / { print ".SS " roff(substr($0, 5)); next }
/^\| key \|/ {
	ncols = 0
	ncols = cells($0, head)
	next
}
/^\|---/ { next }
/^\| / {
	cells($0, c)
	print ".TP"
	if (ncols >= 4)
		print roff(c[1]) " (" roff(c[2]) "; default: " roff(c[3]) ")"
	else
		print roff(c[1]) " (default: " roff(c[2]) ")"
	print roff(c[ncols])
	# the keys' own table says whether SIGHUP applies each
	if (ncols == 5) {
		print ".br"
		print "On SIGHUP: " roff(c[4]) "."
	}
	next
}
/^$/ { next }
{ print ".PP"; print roff($0) }
