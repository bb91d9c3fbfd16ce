#!/bin/sh
# Renders an Alertmanager config template: every ${NAME} outside comment lines becomes the value of the environment
# variable NAME, or the content of the file named by NAME_FILE (a mounted secret). A placeholder
# with neither, or a value with a quote, a backslash or a line break (it would change the YAML),
# stops the render with a message naming it. POSIX sh + awk: runs in the prom/alertmanager image
# (busybox) and on Debian.
#   render-config.sh TEMPLATE OUTPUT
set -eu
if [ "$#" -ne 2 ]; then
  echo "usage: render-config.sh TEMPLATE OUTPUT" >&2
  exit 64
fi
umask 077
tmp="$2.tmp.$$"
awk '
  function value(name,   file, v, line, n) {
    if (name in ENVIRON && ENVIRON[name] != "") return ENVIRON[name]
    file = ENVIRON[name "_FILE"]
    if (file == "") fail("no value for ${" name "}: set " name " or " name "_FILE")
    n = 0
    while ((getline line < file) > 0) { v = (n++ ? v "\n" : "") line }
    close(file)
    if (n == 0) fail(name "_FILE (" file ") is missing or empty")
    return v
  }
  function fail(msg) { print "render-config.sh: " msg > "/dev/stderr"; failed = 1; exit 1 }
  /^[ \t]*#/ { print; next }
  {
    rest = $0; out = ""
    while (match(rest, /\$\{[A-Z][A-Z0-9_]*\}/)) {
      name = substr(rest, RSTART + 2, RLENGTH - 3)
      if (!(name in seen)) {
        seen[name] = value(name)
        if (seen[name] ~ /["\\\n\r]/) fail("the value of " name " contains a quote, a backslash or a line break")
      }
      out = out substr(rest, 1, RSTART - 1) seen[name]
      rest = substr(rest, RSTART + RLENGTH)
    }
    print out rest
  }
' "$1" > "$tmp" || { rm -f "$tmp"; exit 1; }
mv "$tmp" "$2"
