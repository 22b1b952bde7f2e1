# Sourced by the build and test scripts: times one step of a build or test run, in wall seconds
# and in CPU seconds of the processes it ran (user + system of the shell's waited-for children,
# from /proc), so that CI's log says where its time goes (configure, build and test of each stage)
# and what a change costs in CPU, the figure that stays comparable on a shared, noisy machine.
#
#   step NAME CMD [ARGS...]   runs CMD; prints "step: NAME: wall W s, cpu C s" on stderr and, when
#                             XRPM_STEP_LOG names a file, appends "NAME<TAB>W<TAB>C" to it.
#                             Returns CMD's exit status.

# CPU seconds (user + system) of the children that shell $1 has waited for: fields 16 and 17 of
# /proc/PID/stat (cutime, cstime) in clock ticks. The process name (field 2) has no spaces here.
_step_child_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '{ printf "%.0f", ($16 + $17) / hz }' "/proc/$1/stat"
}

step() {
  local name=$1; shift
  # $BASHPID, not $$: in a pipeline or subshell the commands are children of that subshell.
  local me=$BASHPID t0=$SECONDS c0 rc=0
  c0=$(_step_child_cpu "$me")
  "$@" || rc=$?
  local wall=$((SECONDS - t0)) cpu
  cpu=$(($(_step_child_cpu "$me") - c0))
  echo "step: $name: wall $wall s, cpu $cpu s$([ $rc -eq 0 ] || echo ", exit $rc")" >&2
  if [ -n "${XRPM_STEP_LOG:-}" ]; then printf '%s\t%s\t%s\n' "$name" "$wall" "$cpu" >>"$XRPM_STEP_LOG"; fi
  return $rc
}
