# One mutation of a scenario (tests/fuzz/test_fuzz_inputs.sh), chosen and placed by a seeded
# generator of its own (Park-Miller: 16807 x mod 2^31 - 1, exact in any awk's doubles), so the same
# seed gives the same text with mawk, gawk or busybox awk.
#   awk -v seed=N -f mutate.awk BASE.yaml > MUTATED.yaml
# Prints the mutated text; the first line of stderr names the mutation (for the log).
# Mutations: deleted lines (keys), duplicated lines (duplicate keys), swapped lines, a value replaced
# (wrong types, NaN, infinities, 1e308, -0, huge integers, unicode, empty), a number scaled by
# 10^k or negated (huge, tiny and negative sizes), a key renamed, a character dropped or
# inserted, indentation broken, unicode and control characters inserted, a value nested 20 to
# 100000 lists deep, anchors and aliases (used properly, and as an alias bomb: 10^9 leaves, or a
# list of 20000 copies of a body), 2000 materials, the text cut short; some cases apply two.

function rnd(n) { state = (16807 * state) % 2147483647; return state % n }

# One of the entries of list, which are separated by "\034".
function pick(list, k) { k = split(list, parts, "\034"); return parts[rnd(k) + 1] }

# The value segments of line i: starts and lengths of scalars after ": ", "[" or ", " that are not
# keys. Returns how many; vstart[], vlen[] filled.
function values(i, s, pos, n, rest, off, seg, next_char) {
  s = line[i]; n = 0; off = 0
  while (match(s, /(: |\[|, )[^][{},:]+/)) {
    seg = substr(s, RSTART, RLENGTH)
    lead = (substr(seg, 1, 1) == "[") ? 1 : 2
    next_char = substr(s, RSTART + RLENGTH, 1)
    if (next_char != ":") { n++; vstart[n] = off + RSTART + lead; vlen[n] = RLENGTH - lead }
    off += RSTART + RLENGTH - 1
    s = substr(s, RSTART + RLENGTH)
  }
  return n
}

function set_value(i, k, text) {
  line[i] = substr(line[i], 1, vstart[k] - 1) text substr(line[i], vstart[k] + vlen[k])
}

# A content line (not a comment), or 0.
function content_line(tries, i) {
  for (tries = 0; tries < 50; tries++) { i = rnd(n) + 1; if (line[i] !~ /^#/ && line[i] != "") return i }
  return 0
}

# A line with a value, its value index in vk; 0 if none found.
function value_line(tries, i, m) {
  for (tries = 0; tries < 50; tries++) {
    i = content_line()
    if (i && (m = values(i)) > 0) { vk = rnd(m) + 1; return i }
  }
  return 0
}

function nested(depth, closed, s, k) {
  s = ""; for (k = 0; k < depth; k++) s = s "["
  s = s "1"
  if (closed) for (k = 0; k < depth; k++) s = s "]"
  return s
}

function mutate(op, i, j, t, v, k, x, e, d, s) {
  what = "no change (mutation " op " found no place)"
  if (op == 0) { i = content_line(); what = "delete line " i; if (i) line[i] = "#" }
  else if (op == 1) {
    i = value_line()
    if (i) {
      v = pick("nan\034.nan\034.NaN\034inf\034.inf\034-.inf\034+.inf\034infinity\0341e308\034-1e308\0341.8e308\0341e-320\0344.9e-324\034-0\034-0.0\0340\034-1\0341e100\0341.1e100\0341e-100\0349e-101\03499999999999999999999\03418446744073709551616\0349223372036854775808\0344294967297\0342147483648\034-2147483649\0341e19\0341e9\0340x10\0341_000\034+.5\0345.\034.\034abc\034true\034null\034~\034[]\034{}\034[1, 2]\034[[1]]\034{a: 1}\034'5'\034\"7\"\034\"\"\034üñï\034💥\034\\u0000\034\034   \034-\034--1\0341e\0341e+\0340.0.1\0341,5\034&x 1\034*undefined\034!!str 5\034!!float 1\034|\034>\034@\034`\034%\034\t")
      what = "line " i ": value '" substr(line[i], vstart[vk], vlen[vk]) "' -> '" v "'"
      set_value(i, vk, v)
    }
  } else if (op == 2 || op == 3) {
    for (t = 0; t < 50; t++) {
      i = value_line()
      if (i && substr(line[i], vstart[vk], vlen[vk]) ~ /^[-+]?[0-9.]+([eE][-+]?[0-9]+)?$/) break
      i = 0
    }
    if (i) {
      x = substr(line[i], vstart[vk], vlen[vk])
      if (op == 2) { e = rnd(61) - 30; v = x "e" e; if (x ~ /[eE]/) v = (x + 0) "e" e }
      else v = (x ~ /^-/) ? substr(x, 2) : "-" x
      what = "line " i ": number '" x "' -> '" v "'"
      set_value(i, vk, v)
    }
  } else if (op == 4) { i = content_line(); what = "duplicate line " i; if (i) line[i] = line[i] "\n" line[i] }
  else if (op == 5) {
    i = content_line(); j = content_line(); what = "swap lines " i " and " j
    if (i && j) { t = line[i]; line[i] = line[j]; line[j] = t }
  } else if (op == 6) {
    i = content_line()
    if (i) {
      v = pick("\t\034\001\034\033[31m\034\r\034\377\034\376\034é\034\303\050\034\342\202\241\034💥\034\342\200\256\034\\\034\"\034'\034\357\273\277")
      k = rnd(length(line[i]) + 1)
      what = "line " i ": insert a character at " k
      line[i] = substr(line[i], 1, k) v substr(line[i], k + 1)
    }
  } else if (op == 7) {
    i = value_line()
    if (i) {
      d = pick("20\03463\03464\03465\03466\034200\0345000\034100000")
      what = "line " i ": a value nested " d " deep" (d > 1000 ? ", unclosed" : "")
      set_value(i, vk, nested(d + 0, d + 0 <= 1000))
    }
  } else if (op == 8) {
    k = rnd(4)
    if (k == 0) { # billion laughs under known keys
      s = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"
      for (t = 1; t < 9; t++) s = s ", &a" t " [*a" t-1 ", *a" t-1 ", *a" t-1 ", *a" t-1 ", *a" t-1 ", *a" t-1 ", *a" t-1 ", *a" t-1 ", *a" t-1 ", *a" t-1 "]"
      line[n + 1] = "analysis: {repose: [" substr(s, 5) "]}"; n++
      what = "alias bomb (10^9 leaves) as analysis.repose"
    } else if (k == 1) {
      s = "[&a0 [1, 2, 3]"
      for (t = 1; t < 9; t++) s = s ", &a" t " [*a" t-1 ", *a" t-1 ", *a" t-1 ", *a" t-1 ", *a" t-1 ", *a" t-1 ", *a" t-1 ", *a" t-1 ", *a" t-1 ", *a" t-1 "]"
      i = value_line(); what = "alias bomb as the value on line " i
      if (i) set_value(i, vk, s "]")
    } else if (k == 2) { # 20000 copies of one body by alias
      s = "bodies: [&b {shape: sphere, radius: 0.01, position: [0, 0, 0.5], material: " mat "}"
      for (t = 0; t < 20000; t++) s = s ", *b"
      for (j = 1; j <= n; j++) if (line[j] ~ /^bodies:/) { line[j] = "#"; while (line[j + 1] ~ /^  /) line[++j] = "#" }
      line[n + 1] = s "]"; n++
      what = "20000 bodies by alias"
    } else { # an anchor used properly, and a recursive alias
      i = value_line()
      if (i) {
        v = substr(line[i], vstart[vk], vlen[vk])
        set_value(i, vk, "&v " v)
        j = value_line()
        if (j > i) { what = "anchor on line " i ", alias on line " j; set_value(j, vk, "*v") }
        else { what = "recursive alias on line " i; line[i] = line[i] " *v" }
      }
    }
  } else if (op == 9) {
    t = 0; for (j = 1; j <= n; j++) t += length(line[j]) + 1
    k = rnd(t); what = "cut at byte " k; s = ""
    for (j = 1; j <= n; j++) s = s line[j] "\n"
    for (j = 1; j <= n; j++) line[j] = "#"
    line[1] = substr(s, 1, k); cut = 1
  } else if (op == 10) {
    i = content_line()
    if (i && match(line[i], /[a-z_]+:/)) {
      v = pick("Domain\034gravity_\034step\034end\034model\034radius\034count\034x\034id\034\"domain\"\034?\034- \034bodies\034materials\034ü\034<<")
      what = "line " i ": key '" substr(line[i], RSTART, RLENGTH - 1) "' -> '" v "'"
      line[i] = substr(line[i], 1, RSTART - 1) v ":" substr(line[i], RSTART + RLENGTH)
    }
  } else if (op == 11) {
    i = content_line()
    if (i) {
      k = rnd(length(line[i])) + 1
      what = "line " i ": drop character " k " '" substr(line[i], k, 1) "'"
      line[i] = substr(line[i], 1, k - 1) substr(line[i], k + 1)
    }
  } else if (op == 12) {
    i = content_line()
    if (i) { v = pick(" \034  \034\t\034    \034- "); what = "line " i ": indented by '" v "'"; line[i] = v line[i] }
  } else if (op == 13) {
    s = "materials:"
    for (t = 0; t < 2000; t++) s = s "\n  - {name: m" t ", density: 1000, friction: 0.5}"
    for (j = 1; j <= n; j++) if (line[j] ~ /^materials:/) { line[j] = s; while (line[j + 1] ~ /^  /) line[++j] = "#" }
    what = "2000 materials"
  }
}

# The seed enters non-linearly, so that neighbouring seeds do not give related choices.
BEGIN { state = (seed * seed * 7 + seed * 104729 + 12345) % 2147483646 + 1; for (k = 0; k < 20; k++) rnd(2) }
{ line[NR] = $0 }
END {
  n = NR; mat = "steel"; cut = 0
  for (j = 1; j <= n; j++) if (match(line[j], /name: [a-z]+/)) { mat = substr(line[j], RSTART + 6, RLENGTH - 6); break }
  op = rnd(16)
  if (op >= 14) { mutate(rnd(14)); first = what; if (!cut) { mutate(rnd(9)); what = first "; then " what } }
  else mutate(op)
  print what > "/dev/stderr"
  for (j = 1; j <= n; j++) if (line[j] != "#") { if (cut && j == 1) printf "%s", line[j]; else print line[j] }
}
