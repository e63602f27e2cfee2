# Sourced by the bench scripts. With KEEP=DIR in the environment, `keep SUBDIR FILE...` copies
# run files into DIR/SUBDIR (`.` for DIR itself): the way every bench script keeps the run files
# of the figures it prints, as docs/runs/ keeps those that README.md and docs/ quote
# (bench/docs.py renders them again). Without KEEP it does nothing.
keep() {
  [ -n "${KEEP:-}" ] || return 0
  local into="$KEEP/$1"
  shift
  mkdir -p "$into"
  cp "$@" "$into/"
}
